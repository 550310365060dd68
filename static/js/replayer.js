// The replayer on a finished hand's page: the server wrote every step of the hand
// (lobby.hand_views._replayer) into #replayer-data, words and chips already in the
// viewer's language; this steps through them, an action or a street at a time.
(function () {
  "use strict";

  function cardSpan(card) {
    var span = document.createElement("span");
    span.className = "playing-card " + card.colour;
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", card.name);
    span.textContent = card.text;
    return span;
  }

  function cell(row, content) {
    var td = document.createElement("td");
    if (typeof content === "string") td.textContent = content;
    else content.forEach(function (node) { td.appendChild(node); });
    row.appendChild(td);
  }

  function start(section, data) {
    var steps = data.steps, at = 0, players = {};
    data.seats.forEach(function (seat) { players[seat.seat] = seat; });
    var show = function (name) { return section.querySelector('[data-show="' + name + '"]'); };
    var buttons = {};
    section.querySelectorAll("button[data-go]").forEach(function (button) { buttons[button.dataset.go] = button; });

    // The first step of the street before (or of this one, if not already there), and of the next.
    function streetBack() {
      var first = at;
      while (first > 0 && steps[first - 1].street === steps[at].street) first -= 1;
      if (first < at) return first;
      var back = Math.max(0, at - 1);
      while (back > 0 && steps[back - 1].street === steps[back].street) back -= 1;
      return back;
    }
    function streetNext() {
      var next = at;
      while (next < steps.length - 1 && steps[next].street === steps[at].street) next += 1;
      return next;
    }

    function render() {
      var step = steps[at];
      show("position").textContent = (at + 1) + " / " + steps.length;
      show("street").textContent = step.street;
      show("said").textContent = step.said;
      var board = show("board");
      board.replaceChildren.apply(board, step.board.length ? step.board.map(cardSpan) : [document.createTextNode("—")]);
      show("pot").textContent = step.pot;
      show("to-act").textContent = step.to_act;
      section.querySelector('[data-show-line="to-act"]').hidden = !step.to_act;
      var rows = step.seats.map(function (seat) {
        var known = players[seat.seat];
        var row = document.createElement("tr");
        if (seat.folded) row.className = "folded";
        cell(row, String(seat.seat));
        cell(row, known.name);
        cell(row, known.cards.map(cardSpan));
        cell(row, seat.stack);
        cell(row, seat.bet);
        cell(row, seat.note);
        return row;
      });
      var body = show("seats");
      body.replaceChildren.apply(body, rows);
      buttons.back.disabled = buttons["street-back"].disabled = at === 0;
      buttons.next.disabled = buttons["street-next"].disabled = at === steps.length - 1;
    }

    var moves = {
      back: function () { return Math.max(0, at - 1); },
      next: function () { return Math.min(steps.length - 1, at + 1); },
      "street-back": streetBack,
      "street-next": streetNext,
    };
    Object.keys(buttons).forEach(function (go) {
      buttons[go].addEventListener("click", function () { at = moves[go](); render(); });
    });
    render();
    section.hidden = false;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var section = document.getElementById("replayer");
    var source = document.getElementById("replayer-data");
    if (section && source) start(section, JSON.parse(source.textContent));
  });
})();
