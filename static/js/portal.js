// Times: the server renders them in the zone stored in the "tz" cookie (UTC until
// this script has stored the browser's own); rewrite them locally meanwhile.
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && document.cookie.indexOf("tz=" + encodeURIComponent(zone)) === -1) {
    document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax";
  }
  var lang = document.documentElement.lang || "en";

  // The site's one way of writing an instant, as the server writes it
  // (tournaments/dates.py): "Thu 31 Dec, 23:59", "tor 31. dec, 23:59"; the year when
  // the server wrote one or it is not this year's. A Date's getters read the
  // browser's own zone.
  var NAMES = {
    en: { days: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"], months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], dayMark: "" },
    da: { days: ["søn", "man", "tir", "ons", "tor", "fre", "lør"], months: ["jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"], dayMark: "." }
  };
  var names = NAMES[lang] || NAMES.en;

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function written(when, shown) {
    var time = pad(when.getHours()) + ":" + pad(when.getMinutes());
    if (shown.length <= 5) return time;
    var withYear = /\d{4}/.test(shown) || when.getFullYear() !== new Date().getFullYear();
    return names.days[when.getDay()] + " " + when.getDate() + names.dayMark + " " + names.months[when.getMonth()] +
      (withYear ? " " + when.getFullYear() : "") + ", " + time;
  }

  function localise(root) {
    root.querySelectorAll("time[data-local]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when)) return;
      el.textContent = written(when, el.textContent.trim());
    });
    root.querySelectorAll("[data-tz]").forEach(function (el) { el.textContent = zone; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localise(document);
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  });
  document.addEventListener("htmx:afterSwap", function (event) { localise(event.target); });
  document.addEventListener("htmx:oobAfterSwap", function (event) { localise(event.detail.target || event.target); });
  document.addEventListener("live:reloaded", function () { localise(document); });
  // A reminder (the reality check), arrived or shown open with the page for a browser
  // without script, opens as a modal dialog; however it is closed, the slot for the
  // next one takes its place.
  document.addEventListener("htmx:load", function (event) {
    var loaded = event.detail.elt;
    if (!loaded.querySelectorAll) return;
    var dialogs = loaded.matches("dialog[data-modal]") ? [loaded] : loaded.querySelectorAll("dialog[data-modal][open]");
    Array.prototype.forEach.call(dialogs, function (dialog) {
      dialog.removeAttribute("open");
      dialog.addEventListener("close", function () {
        htmx.ajax("GET", dialog.getAttribute("data-next"), { target: dialog, swap: "outerHTML" });
      });
      dialog.showModal();
    });
  });
  // A lobby row's registration button opens the viewer's card under the row, and closes it again.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var button = event.detail.elt;
    if (!button.hasAttribute || !button.hasAttribute("data-registration-toggle")) return;
    var row = button.closest("tr");
    var open = row && row.nextElementSibling;
    if (open && open.classList.contains("registration-row")) {
      open.remove();
      event.preventDefault();
    }
  });
})();

// Countdowns: the server sends instants (a level ends at T) and its own time; the
// page counts down itself, corrected for this computer's clock being off.
(function () {
  "use strict";
  var offset = 0; // the server's clock minus this one's, in ms

  function readServerTime() {
    var clock = document.querySelector("[data-server-now]");
    if (!clock) return;
    var server = Date.parse(clock.getAttribute("data-server-now"));
    if (!isNaN(server)) offset = server - Date.now();
  }

  function text(ms) {
    var seconds = Math.max(0, Math.ceil(ms / 1000));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return h ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
  }

  function tick() {
    var now = Date.now() + offset;
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      var left = Date.parse(el.getAttribute("datetime")) - now;
      // A time bank stays whole while the action time before it runs, then drains.
      var most = el.getAttribute("data-countdown-max");
      if (most !== null) left = Math.min(left, Number(most));
      el.textContent = text(left);
      // Only a countdown seen running out asks for the new state: one already
      // over when the card came means the server has not moved on yet.
      if (el.dataset.running === undefined) el.dataset.running = left > 0 ? "1" : "0";
      if (left <= 0 && el.dataset.running === "1") {
        el.dataset.running = "0";
        var card = el.closest("[data-clock]");
        if (card && window.htmx) window.htmx.trigger(card, "clock-due");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    readServerTime();
    tick();
    setInterval(tick, 250);
  });
  ["htmx:afterSettle", "htmx:oobAfterSwap", "live:reloaded"].forEach(function (name) {
    document.addEventListener(name, function () { readServerTime(); tick(); });
  });
})();

// Live updates (lobby/live.py): one socket a page, to the groups it shows. A message
// is HTML that htmx swaps in out of band, or JSON naming what to fetch again. When
// the connection drops the page says so, reconnects with backoff and fetches its
// content again: no message has to arrive for the page to be right.
(function () {
  "use strict";
  var retries = 0;
  var connected = false;

  function groups() {
    var body = document.body;
    if (!body.hasAttribute("data-live")) return [];
    var names = body.getAttribute("data-live").split(",").filter(Boolean);
    var user = document.querySelector("[data-live-user]");
    if (user) names.push("user-" + user.getAttribute("data-live-user"));
    return names;
  }

  function show(state) {
    document.body.setAttribute("data-live-state", state);
    var banner = document.getElementById("live-status");
    if (banner) banner.hidden = state !== "reconnecting";
  }

  function connect() {
    var names = groups();
    if (!names.length) return;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/live/?groups=" + encodeURIComponent(names.join(",")));
    socket.onopen = function () {
      retries = 0;
      if (connected) reload(); // what changed while the page was not listening
      connected = true;
      show("open");
    };
    socket.onmessage = function (event) { receive(event.data); };
    socket.onclose = function () {
      if (connected) show("reconnecting");
      // Backoff with jitter, so that a restarted server is not met by every page at once.
      var delay = Math.min(30000, 1000 * Math.pow(2, retries)) * (0.5 + Math.random() / 2);
      retries += 1;
      setTimeout(connect, delay);
    };
  }

  function receive(text) {
    if (text.charAt(0) === "{") {
      var command = JSON.parse(text);
      if (command.signed_out) { location.reload(); return; } // a break or exclusion ended his session
      if (command.reload) reload();
      (command.refresh || []).forEach(refresh);
      return;
    }
    var stale = [];
    var parts = present(text, stale);
    if (parts) window.htmx.swap(document.body, parts, { swapStyle: "none" });
    stale.forEach(refresh);
  }

  // A shared message may carry parts this page does not show (a lobby row its
  // filters leave out): only those whose place is on the page are swapped in. A
  // signed-in viewer's own marks (data-own) inside a part stay as they are: shared
  // parts carry a visitor's. A mark whose key the part changes (the event started,
  // it filled up, the players moved) is fetched again: its id goes into `stale`.
  function present(text, stale) {
    var template = document.createElement("template");
    template.innerHTML = text;
    Array.prototype.slice.call(template.content.children).forEach(function (part) {
      if (!part.id || !part.hasAttribute("hx-swap-oob")) return;
      var current = document.getElementById(part.id);
      if (!current) part.remove();
      // A part the page shows in another view (a search, another page of a list)
      // is fetched again in the page's own view.
      else if (current.hasAttribute("data-view") && current.getAttribute("data-view") !== part.getAttribute("data-view")) {
        part.remove();
        stale.push(part.id);
      }
      // The player's own part at a table, sent to him alone: of another table (he
      // was moved), fetched from this page's address, which follows him there; older
      // than the one shown, or showing the same (he may be choosing an amount), kept out.
      else if (part.hasAttribute("data-own-at")) {
        if (current.getAttribute("data-refresh-url") !== part.getAttribute("data-refresh-url")) {
          part.remove();
          stale.push(part.id);
        } else if (older(part, current) || part.getAttribute("data-refresh-key") === current.getAttribute("data-refresh-key")) {
          part.remove();
        }
      }
    });
    // Only a signed-in player has marks of their own (a visitor's are the shared ones).
    var signedIn = document.querySelector("[data-live-user]") !== null;
    if (signedIn) {
      template.content.querySelectorAll("[data-own][id]").forEach(function (own) {
        var current = document.getElementById(own.id);
        var key = current ? current.getAttribute("data-own-key") : null;
        if (own.getAttribute("data-own-key") !== key) stale.push(own.id);
        if (current) own.replaceWith(current.cloneNode(true));
      });
    }
    return template.content.children.length ? template.innerHTML : "";
  }

  // Which of two of a player's own parts is older: by hand, then by its actions.
  function older(part, current) {
    var a = (part.getAttribute("data-own-at") || "0 0").split(" ").map(Number);
    var b = (current.getAttribute("data-own-at") || "0 0").split(" ").map(Number);
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  }

  function refresh(id) {
    var element = document.getElementById(id);
    if (!element) return;
    var url = element.getAttribute("data-refresh-url") || element.getAttribute("data-view");
    if (url) window.htmx.ajax("GET", url, { target: element, swap: "outerHTML" });
    else reload();
  }

  // A part fetched again that shows what it shows already (the same
  // data-refresh-key) stays: the player may be choosing an amount in it.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var key = target && target.getAttribute ? target.getAttribute("data-refresh-key") : null;
    if (!key || event.detail.requestConfig.verb !== "get") return;
    var template = document.createElement("template");
    template.innerHTML = event.detail.serverResponse;
    var fresh = template.content.firstElementChild;
    if (fresh && fresh.getAttribute("data-refresh-key") === key) event.detail.shouldSwap = false;
  });

  // The page's content as it is now: the lobby's list (keeping the filters being
  // typed), or the whole of any other page's main part.
  function reload() {
    if (document.getElementById("results")) {
      window.htmx.ajax("GET", location.href, { target: "#results", swap: "innerHTML" });
      return;
    }
    fetch(location.href, { credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        var current = document.querySelector("main");
        if (!fresh || !current) return;
        current.replaceWith(fresh);
        window.htmx.process(fresh);
        document.dispatchEvent(new CustomEvent("live:reloaded"));
      });
  }

  document.addEventListener("DOMContentLoaded", connect);
})();

// The table's bet slider, number box and presets fill in the amount the Raise
// button sends, and stay in step: each shows the amount the last one chose.
(function () {
  "use strict";
  function sliderFor(amount) {
    return document.querySelector('[data-amount-slider="' + amount.id + '"]');
  }
  document.addEventListener("input", function (event) {
    var target = event.target;
    if (!target.hasAttribute) return;
    if (target.hasAttribute("data-amount-slider")) {
      var amount = document.getElementById(target.getAttribute("data-amount-slider"));
      if (amount) amount.value = target.value;
    } else if (target.id) {
      var slider = sliderFor(target);
      // A range input clamps a value outside it to its ends, as the box's own limits say.
      if (slider && target.value !== "") slider.value = target.value;
    }
  });
  document.addEventListener("click", function (event) {
    var preset = event.target.closest ? event.target.closest("[data-amount-preset]") : null;
    if (!preset) return;
    var amount = document.getElementById(preset.getAttribute("data-amount-for"));
    if (!amount) return;
    amount.value = preset.getAttribute("data-amount-preset");
    var slider = sliderFor(amount);
    if (slider) slider.value = amount.value;
  });
})();

// The table's keys, on the player's turn (the page lists them): F folds, C checks or
// calls, R puts the focus in the bet or raise amount (Enter there sends it). Never
// while he types in a box, and never with Ctrl, Alt or Meta (the browser's own keys).
(function () {
  "use strict";
  var typing = /^(INPUT|TEXTAREA|SELECT)$/;
  document.addEventListener("keydown", function (event) {
    // Enter in the amount bets or raises it: the form's first button, the one a browser
    // would press, is Fold.
    if (event.key === "Enter" && event.target.name === "amount" && event.target.form) {
      var raise = event.target.form.querySelector('button[value="cbr"]');
      if (raise) { event.preventDefault(); raise.click(); }
      return;
    }
    if (event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
    if (typing.test(event.target.tagName) || event.target.isContentEditable) return;
    // On My tables: the table he is in (focus), else the first waiting for him.
    var around = event.target.closest ? event.target.closest(".my-table") : null;
    var form = (around && around.querySelector(".own-seat form.actions")) || document.querySelector(".own-seat form.actions");
    if (!form) return;
    var key = event.key.toLowerCase();
    var target = null;
    if (key === "f") target = form.querySelector('button[value="f"]');
    else if (key === "c") target = form.querySelector('button[value="cc"]');
    else if (key === "r") target = form.querySelector('input[name="amount"]');
    if (!target) return;
    event.preventDefault();
    if (key === "r") { target.focus(); target.select(); }
    else target.click();
  });
})();

// A fold when the player could check is asked once more ("Fold when you can check?"):
// the click, or the F key, folds only if he says yes.
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest("button[data-confirm]") : null;
  if (button && !window.confirm(button.getAttribute("data-confirm"))) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);

// The seats around the felt (wide screens; the stylesheet places them): each seat's
// step clockwise from the viewer's own at the bottom (a spectator's view has seat 1
// there), for the stylesheet's angle. Set again whenever a seat is swapped in.
(function () {
  "use strict";
  function arrange() {
    document.querySelectorAll("ol.seats-ring[data-size]").forEach(function (ring) {
      // His own seat at this table (My tables shows several).
      var own = (ring.closest(".my-table") || document).querySelector("[data-own-seat]");
      var bottom = own ? Number(own.getAttribute("data-own-seat")) : 1;
      var size = Number(ring.getAttribute("data-size"));
      ring.querySelectorAll(":scope > li[data-seat]").forEach(function (seat) {
        var step = (Number(seat.getAttribute("data-seat")) - bottom + size) % size;
        seat.setAttribute("data-step", step); // the stylesheet's angle for it (no inline style: CSP)
      });
      ring.classList.add("around");
    });
  }
  document.addEventListener("DOMContentLoaded", arrange);
  ["htmx:afterSettle", "htmx:oobAfterSwap", "live:reloaded"].forEach(function (name) {
    document.addEventListener(name, arrange);
  });
})();

// Pre-actions: what the player chose, while waiting, to do when his turn comes
// (Check/Fold, Check, Call <amount>, Call any), by hand (My tables shows several),
// kept across the refreshes of his own part and played the moment it shows his
// turn; a call of an amount that has changed since is dropped, as is a check when
// there is a bet to call.
(function () {
  "use strict";
  var chosen = {}; // by hand id: {kind, call}
  function boxOf(hand) { return document.querySelector('[data-pre-actions][data-hand="' + hand + '"]'); }
  function unchoose(hand) {
    delete chosen[hand];
    var box = boxOf(hand);
    if (box) box.querySelectorAll("input[type=radio]").forEach(function (radio) { radio.checked = false; });
  }
  document.addEventListener("change", function (event) {
    var box = event.target.closest ? event.target.closest("[data-pre-actions]") : null;
    if (!box || event.target.type !== "radio") return;
    chosen[box.getAttribute("data-hand")] = { kind: event.target.value, call: box.getAttribute("data-call") };
  });
  document.addEventListener("click", function (event) {
    var clear = event.target.closest ? event.target.closest("[data-pre-clear]") : null;
    if (clear) unchoose(clear.closest("[data-pre-actions]").getAttribute("data-hand"));
  });
  function apply() {
    Object.keys(chosen).forEach(function (hand) {
      var pre = chosen[hand];
      var form = document.querySelector('.own-seat form.actions[data-hand="' + hand + '"]');
      if (form) {
        delete chosen[hand];
        var fold = form.querySelector('button[value="f"]');
        var call = form.querySelector('button[value="cc"]');
        var toCall = form.getAttribute("data-call");
        if (pre.kind === "check_fold") (toCall === "0" ? call : fold).click();
        else if (pre.kind === "check" && toCall === "0") call.click();
        else if (pre.kind === "call" && toCall === pre.call) call.click();
        else if (pre.kind === "call_any") call.click();
        return;
      }
      var box = boxOf(hand);
      if (!box) { delete chosen[hand]; return; } // the hand is over, or he is out of it
      var toPay = box.getAttribute("data-call");
      if ((pre.kind === "call" && toPay !== pre.call) || (pre.kind === "check" && toPay !== "0")) {
        unchoose(hand);
        return;
      }
      var mine = box.querySelector('input[type=radio][value="' + pre.kind + '"]');
      if (mine) mine.checked = true;
    });
  }
  // Once settled, out of band too: htmx has wired the form swapped in (before, a
  // click would send it without htmx, and without its CSRF header).
  document.addEventListener("htmx:afterSettle", apply);
})();

// My tables: the page's title says when a table waits for the player, and a sound
// (if he asked for one) when one starts to.
(function () {
  "use strict";
  var title = null, waiting = false;
  function watch() {
    var page = document.querySelector("[data-my-tables]");
    if (!page) return;
    if (title === null) title = document.title;
    var now = page.querySelector(".own-seat form.actions") !== null;
    document.title = now ? "\u25CF " + title : title;
    var sound = document.querySelector("[data-turn-sound]");
    if (now && !waiting && sound && sound.checked && window.AudioContext) {
      var context = new AudioContext(), tone = context.createOscillator();
      tone.connect(context.destination);
      tone.start();
      tone.stop(context.currentTime + 0.15);
    }
    waiting = now;
  }
  document.addEventListener("DOMContentLoaded", watch);
  ["htmx:afterSettle", "htmx:oobAfterSwap", "live:reloaded"].forEach(function (name) { document.addEventListener(name, watch); });
})();
