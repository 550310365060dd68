"""Hand histories and provably fair dealing: a finished hand's page shows how it was
played, and the proof of the deck whose commitment the table showed before the cards
were dealt (every card's hash, each card the viewer may see with its salt);
histories download in PHH (the open hand-history format). Nobody sees a hole card
that was not shown down, except his own."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from tournaments.models import Entry, Hand, HandStatus, Table, Tournament
from tournaments.rules.hands import deck_commitment, deck_proof
from tournaments.services.hands import replay

FINISHED = [HandStatus.FINISHED, HandStatus.REPORTED]


@require_GET
def hand_view(request: HttpRequest, pk: int, hand_id: int) -> HttpResponse:
    """A hand's history and its deck's proof; `?format=phh` downloads it."""
    hand = get_object_or_404(Hand.objects.select_related("table", "tournament"), pk=hand_id, tournament_id=pk)
    viewer = _own_seat(request, hand)
    if request.GET.get("format") == "phh":
        return _phh([hand], viewer_entries=_own_entries(request, hand.tournament), name=f"hand-{hand.pk}.phh")
    over = hand.status in FINISHED
    played = replay(hand)
    names = _names([hand])
    deck = [hand.deck[i : i + 2] for i in range(0, len(hand.deck), 2)]
    shown = (hand.result or {}).get("shown", {})
    hidden = {
        position
        for seat in hand.seats
        if int(seat) != viewer and seat not in shown
        for position in played.hole_positions(int(seat))
    }
    proof = deck_proof(deck, hand.salt, hidden) if over else []
    context = {
        "tournament": hand.tournament,
        "hand": hand,
        "over": over,
        "board": played.board,
        "players": [
            {
                "seat": int(seat),
                "name": names.get(int(entry), ""),
                "start": hand.setup["stacks"][seat],
                "cards": played.hole_cards(int(seat)) if int(seat) == viewer or seat in shown else (),
                "end": (hand.result or {}).get("stacks", {}).get(seat),
            }
            for seat, entry in sorted(hand.seats.items(), key=lambda item: int(item[0]))
        ],
        "actions": [(names.get(int(hand.seats[str(action.seat)]), ""), action) for action in played.actions],
        "proof": proof,
        "hashes": "".join(card.hash for card in proof),
        "example": next((card for card in proof if card.card), None),
        "verified": over and deck_commitment(deck, hand.salt) == hand.commitment,
    }
    return render(request, "lobby/hand.html", context)


@require_GET
def table_history(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Every finished hand of a table, in PHH, as anyone may see them."""
    table = get_object_or_404(Table, tournament_id=pk, number=number)
    hands = list(
        Hand.objects.filter(table=table, status__in=FINISHED).select_related("table", "tournament").order_by("pk")
    )
    tournament = Tournament.objects.get(pk=pk)
    return _phh(hands, viewer_entries=_own_entries(request, tournament), name=f"table-{pk}-{number}.phh")


@require_GET
@login_required
def own_history(request: HttpRequest, pk: int) -> HttpResponse:
    """Every finished hand the player played in this tournament, with his own cards."""
    tournament = get_object_or_404(Tournament, pk=pk)
    own = _own_entries(request, tournament)
    if not own:
        raise Http404("You have not played in this tournament.")
    hands = [
        hand
        for hand in Hand.objects.filter(tournament=tournament, status__in=FINISHED)
        .select_related("table", "tournament")
        .order_by("started_at", "pk")
        if any(int(entry) in own for entry in hand.seats.values())
    ]
    return _phh(hands, viewer_entries=own, name=f"my-hands-{pk}.phh")


def _own_entries(request: HttpRequest, tournament: Tournament) -> set[int]:
    if not request.user.is_authenticated:
        return set()
    return set(Entry.objects.filter(tournament=tournament, player=request.user).values_list("pk", flat=True))


def _own_seat(request: HttpRequest, hand: Hand) -> int | None:
    own = _own_entries(request, hand.tournament)
    return next((int(seat) for seat, entry in hand.seats.items() if int(entry) in own), None)


def _names(hands: list[Hand]) -> dict[int, str]:
    ids = {int(entry) for hand in hands for entry in hand.seats.values()}
    return dict(Entry.objects.filter(pk__in=ids).values_list("pk", "player__screen_name"))


def _phh(hands: list[Hand], *, viewer_entries: set[int], name: str) -> HttpResponse:
    names = _names(hands)
    texts = []
    for hand in hands:
        seat_names = {int(seat): names.get(int(entry), "") for seat, entry in hand.seats.items()}
        viewer = next((int(seat) for seat, entry in hand.seats.items() if int(entry) in viewer_entries), None)
        texts.append(
            replay(hand).phh_for(
                viewer,
                names=seat_names,
                event=hand.tournament.name,
                hand=hand.pk,
                table=hand.table.number,
            )
        )
    response = HttpResponse("\n\n".join(texts), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
