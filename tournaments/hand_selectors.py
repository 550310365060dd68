"""A player's hand history (issue 15): the hands he was dealt in, in every
tournament, as he may see them: his own hole cards, the board, what he won or lost.
Never another player's hole cards."""

from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db.models import Q, QuerySet

from tournaments.models import Entry, Hand, HandStatus
from tournaments.rules.hands import Card, HandSetup, hole_positions
from tournaments.services.hands import replay

HISTORY = [HandStatus.FINISHED, HandStatus.REPORTED, HandStatus.VOIDED]
MOST_SEATS = 10  # a table's size is at most 10 (Tournament's table_size constraint)


def hand_list_for_player(player_id: int) -> QuerySet[Hand]:
    """The hands over or rolled back that the player was dealt in, newest first.

    A hand names its players as {seat: entry id}, and a JSON lookup by key would read
    a seat's digits as an array index: the hand is found by containment instead, one
    {seat: entry} pair for each seat a table may have and each of his entries, among
    the tournaments he entered (their hands by the tournament's index)."""
    entries = list(Entry.objects.filter(player_id=player_id).values_list("pk", "tournament_id"))
    if not entries:
        return Hand.objects.none()
    dealt_in = reduce(
        or_,
        (
            Q(tournament_id=tournament, seats__contains={str(seat): entry})
            for entry, tournament in entries
            for seat in range(1, MOST_SEATS + 1)
        ),
    )
    return (
        Hand.objects.filter(dealt_in, status__in=HISTORY)
        .select_related("tournament", "table")
        .order_by("-started_at", "-pk")
    )


@dataclass(frozen=True)
class HandLine:
    """One hand of a player's history; `net` None for a hand rolled back (nobody
    won or lost a chip)."""

    hand: Hand
    seat: int
    cards: tuple[Card, ...]
    board: tuple[Card, ...]
    net: int | None

    @property
    def lost(self) -> int:
        return max(0, -(self.net or 0))

    @property
    def voided(self) -> bool:
        return self.hand.status == HandStatus.VOIDED


def hand_lines(hands: list[Hand], player_id: int) -> list[HandLine]:
    """`hands` (from hand_list_for_player) as the player's history shows them."""
    own = set(Entry.objects.filter(player_id=player_id).values_list("pk", flat=True))
    lines = []
    for hand in hands:
        seat = next(int(seat) for seat, entry in hand.seats.items() if int(entry) in own)
        setup = HandSetup.from_json(hand.setup)
        cards = tuple(hand.deck[2 * (position - 1) : 2 * position] for position in hole_positions(setup, seat))
        if hand.status == HandStatus.VOIDED or hand.result is None:
            # Rare: the board as far as it was dealt is only in the hand played again.
            board, net = replay(hand).board, None
        else:
            board = tuple(hand.result["board"])
            net = hand.result["stacks"][str(seat)] - setup.stacks[seat]
        lines.append(HandLine(hand, seat, cards, board, net))
    return lines
