"""Hand histories and provably fair dealing: a finished hand's page shows how it was
played, and the proof of the deck whose commitment the table showed before the cards
were dealt (every card's hash, each card the viewer may see with its salt);
histories download in PHH (the open hand-history format). A finished hand's page
carries its replayer's steps (tournaments.rules.replayer), and a player has his
history of every hand he played. Nobody sees a hole card that was not shown down,
except his own."""

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from lobby.templatetags.poker import action_text, card, card_colour, card_name
from tournaments.models import Hand, HandSeat, HandStatus, Table, Tournament
from tournaments.rules.hand_history import phh_for
from tournaments.rules.hands import Action, ActionKind, HandSetup, deck_commitment, deck_proof
from tournaments.rules.replayer import SeatStep, Step, action_steps, hand_steps
from tournaments.selectors.hands import hand_lines, hand_list_for_player
from tournaments.selectors.replays import replay
from tournaments.templatetags.chips import chips

FINISHED = [HandStatus.FINISHED, HandStatus.REPORTED]
HISTORY_PAGE_SIZE = 50


@never_cache  # as its viewer sees it: his own cards
@require_GET
def hand_view(request: HttpRequest, pk: int, hand_id: int) -> HttpResponse:
    """A hand's history and its deck's proof; `?format=phh` downloads it."""
    hand = get_object_or_404(Hand.objects.select_related("table", "tournament"), pk=hand_id, tournament_id=pk)
    viewer = _own_seats(request, [hand]).get(hand.pk)
    if request.GET.get("format") == "phh":
        return _phh(request, [hand], name=f"hand-{hand.pk}.phh")
    over = hand.status in FINISHED
    played = replay(hand)
    names = _names([hand])[hand.pk]
    deck = [hand.deck[i : i + 2] for i in range(0, len(hand.deck), 2)]
    shown = (hand.result or {}).get("shown", {})
    proof = deck_proof(deck, hand.salt, played.seen_positions(viewer, {int(seat) for seat in shown})) if over else []
    players = [
        {
            "seat": int(seat),
            "name": names.get(int(seat), ""),
            "start": hand.setup["stacks"][seat],
            "cards": played.hole_cards(int(seat)) if int(seat) == viewer or seat in shown else (),
            "end": (hand.result or {}).get("stacks", {}).get(seat),
        }
        for seat, entry in sorted(hand.seats.items(), key=lambda item: int(item[0]))
    ]
    context = {
        "tournament": hand.tournament,
        "hand": hand,
        "over": over,
        "board": played.board,
        "players": players,
        "replayer": _replayer(hand, players) if over else None,
        "streets": _action_list(hand, names),
        "proof": proof,
        "hashes": "".join(card.hash for card in proof),
        "example": next((card for card in proof if card.card), None),
        "verified": over and deck_commitment(deck, hand.salt) == hand.commitment,
    }
    return render(request, "lobby/hand.html", context)


@never_cache  # someone's own cards: no shared or back-button copies
@require_GET
@login_required
def my_hands(request: HttpRequest) -> HttpResponse:
    """The signed-in player's hands in every tournament, newest first (it takes no id:
    never anyone else's), each with his own cards only."""
    player_id = request.user.pk
    assert player_id is not None  # login_required
    page = Paginator(hand_list_for_player(player_id), HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "lobby/my_hands.html", {"page": page, "lines": hand_lines(list(page), player_id)})


@never_cache  # as its viewer sees it: his own cards
@require_GET
def table_history(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Every finished hand of a table, in PHH, as anyone may see them."""
    table = get_object_or_404(Table, tournament_id=pk, number=number)
    hands = list(
        Hand.objects.filter(table=table, status__in=FINISHED).select_related("table", "tournament").order_by("pk")
    )
    return _phh(request, hands, name=f"table-{pk}-{number}.phh")


@never_cache  # as its viewer sees it: his own cards
@require_GET
@login_required
def own_history(request: HttpRequest, pk: int) -> HttpResponse:
    """Every finished hand the player played in this tournament, with his own cards:
    the hands his account was dealt in (a seat transferred to him, rule 21, is his
    from then on, not before)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    hands = list(
        Hand.objects.filter(tournament=tournament, status__in=FINISHED, dealt__player_id=request.user.pk)
        .select_related("table", "tournament")
        .order_by("started_at", "pk")
    )
    if not hands:
        raise Http404("You have not played in this tournament.")
    return _phh(request, hands, name=f"my-hands-{pk}.phh")


def _own_seats(request: HttpRequest, hands: list[Hand]) -> dict[int, int]:
    """The viewer's seat in each of `hands` he was dealt in (hand id: seat), as his
    account was then: a seat transferred (rule 21) is the new account's from then on."""
    if not request.user.is_authenticated:
        return {}
    dealt = HandSeat.objects.filter(hand__in=hands, player_id=request.user.pk)
    return dict(dealt.values_list("hand_id", "seat"))


def _names(hands: list[Hand]) -> dict[int, dict[int, str]]:
    """Each hand's players by seat (hand id: seat: screen name), as they were when it
    was dealt: a seat transferred later (rule 21) keeps its earlier hands' name."""
    names: dict[int, dict[int, str]] = {hand.pk: {} for hand in hands}
    dealt = HandSeat.objects.filter(hand__in=hands).values_list("hand_id", "seat", "player__screen_name")
    for hand_id, seat, name in dealt:
        names[hand_id][seat] = name
    return names


def _phh(request: HttpRequest, hands: list[Hand], *, name: str) -> HttpResponse:
    names = _names(hands)
    viewers = _own_seats(request, hands)
    texts = []
    for hand in hands:
        texts.append(
            phh_for(
                replay(hand),
                viewers.get(hand.pk),
                names=names[hand.pk],
                event=hand.tournament.name,
                hand=hand.pk,
                table=hand.table.number,
            )
        )
    response = HttpResponse("\n\n".join(texts), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _action_list(hand: Hand, names: Mapping[int, str]) -> list[dict[str, Any]]:
    """The hand page's list of what happened, a street at a time under its heading
    (with the cards it dealt), in the replayer's words (_said): a finished hand's to
    its award, another's (in play, rolled back) as far as it went."""
    deck = [hand.deck[i : i + 2] for i in range(0, len(hand.deck), 2)]
    setup, actions = HandSetup.from_json(hand.setup), [Action.from_json(data) for data in hand.actions]
    steps = hand_steps(setup, deck, actions) if hand.status in FINISHED else action_steps(setup, deck, actions)[1]
    streets: list[dict[str, Any]] = [{"name": _street_label("preflop"), "cards": [], "said": []}]
    for before, step in itertools.pairwise(steps):
        if step.action is None and not step.winners:  # a street dealt
            cards = [_card(code) for code in step.board[len(before.board) :]]
            streets.append({"name": _street_label(step.street), "cards": cards, "said": []})
            continue
        if step.winners and step.street == "showdown":
            streets.append({"name": _street_label(step.street), "cards": [], "said": []})
        streets[-1]["said"].append(_said(step, before, names))
    return streets


def _replayer(hand: Hand, players: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The replayer's data for a finished hand: its steps built from its record
    (setup, deck, actions: what its PHH is written from, see tournaments.rules.replayer)
    and each seat with the cards `players` (as this page's viewer may see them)
    show. No step holds a hole card; no other hole card is in here."""
    deck = [hand.deck[i : i + 2] for i in range(0, len(hand.deck), 2)]
    steps = hand_steps(HandSetup.from_json(hand.setup), deck, [Action.from_json(data) for data in hand.actions])
    names = {player["seat"]: player["name"] for player in players}
    return {
        "seats": [
            {"seat": player["seat"], "name": player["name"], "cards": [_card(code) for code in player["cards"]]}
            for player in players
        ],
        "steps": [_step(step, before, names) for before, step in zip([None, *steps], steps, strict=False)],
    }


def _step(step: Step, before: Step | None, names: Mapping[int, str]) -> dict[str, Any]:
    """One step as the replayer shows it: chips and cards written out, in words."""
    return {
        "street": _street_label(step.street),
        "board": [_card(code) for code in step.board],
        "pot": _pot_text(step),
        "seats": [
            {
                "seat": seat.seat,
                "stack": chips(seat.stack),
                "bet": chips(seat.bet) if seat.bet else "",
                "note": _seat_note(seat),
                "folded": seat.folded,
            }
            for seat in step.seats
        ],
        "said": _said(step, before, names),
        "to_act": names.get(step.to_act, "") if step.to_act is not None else "",
    }


def _pot_text(step: Step) -> str:
    """What is in the pots, and apart from it what the players have bet on this
    street (in front of them, not yet gathered in)."""
    bets = sum(seat.bet for seat in step.seats)
    if len(step.pots) > 1:
        pots = [gettext("main %(chips)s") % {"chips": chips(step.pots[0])}]
        pots += [gettext("side %(chips)s") % {"chips": chips(pot)} for pot in step.pots[1:]]
        text = gettext("Pots: %(pots)s") % {"pots": ", ".join(pots)}
    elif sum(step.pots) or not bets:
        text = gettext("Pot: %(chips)s") % {"chips": chips(sum(step.pots))}
    else:
        return gettext("Bets in front of the players: %(chips)s") % {"chips": chips(bets)}
    if bets:
        return gettext("%(pots)s; bets in front of the players: %(chips)s") % {"pots": text, "chips": chips(bets)}
    return text


def _seat_note(seat: SeatStep) -> str:
    if seat.won:
        return gettext("wins %(chips)s") % {"chips": chips(seat.won)}
    if seat.folded:
        return gettext("folded")
    return gettext("all in") if seat.all_in else ""


def _card(code: str) -> dict[str, str]:
    return {"text": card(code), "colour": card_colour(code), "name": card_name(code)}


def _street_label(street: str) -> str:
    return {
        "preflop": pgettext("betting round", "Before the flop"),
        "flop": pgettext("betting round", "Flop"),
        "turn": pgettext("betting round", "Turn"),
        "river": pgettext("betting round", "River"),
        "showdown": pgettext("betting round", "Showdown"),
    }[street]


def _said(step: Step, before: Step | None, names: Mapping[int, str]) -> str:
    """What happened at `step`, in words: the action, a street dealt, the award."""
    if step.winners:
        return "; ".join(
            gettext("%(name)s wins %(chips)s") % {"name": names.get(seat, ""), "chips": chips(won)}
            for seat, won in sorted(step.winners.items())
        )
    action = step.action
    if action is None:
        return _dealt(step, first=before is None)
    assert before is not None  # every action follows the deal's step
    name = names.get(action.seat, "")
    if action.kind is ActionKind.FOLD:
        return action_text("fold", name, None)
    if action.kind is ActionKind.BET_RAISE:
        raised = any(seat.bet for seat in before.seats)
        return action_text("raise" if raised else "bet", name, action.amount)
    paid = _stack(before, action.seat) - _stack(step, action.seat)
    return action_text("call" if paid else "check", name, paid)


def _dealt(step: Step, *, first: bool) -> str:
    """A step that deals: the hole cards (`first`), a street while the betting goes
    on, or the board run out once nobody can bet."""
    if first:
        return gettext("The cards are dealt.")
    if step.to_act is None:
        return gettext("Everyone is all in: the board is dealt.")
    return {
        "flop": gettext("The flop is dealt."),
        "turn": gettext("The turn is dealt."),
        "river": gettext("The river is dealt."),
    }[step.street]


def _stack(step: Step, seat: int) -> int:
    return next(each.stack for each in step.seats if each.seat == seat)
