"""A player's hand history (issue 15): the hands he was dealt in, in every
tournament, as he may see them: his own hole cards, the board, what he won or lost.
Never another player's hole cards."""

from dataclasses import dataclass

from django.db.models import QuerySet

from tournaments.models import Hand, HandSeat, HandStatus
from tournaments.rules.hands import Card, HandSetup, hole_positions
from tournaments.selectors.replays import replay

HISTORY = [HandStatus.FINISHED, HandStatus.REPORTED, HandStatus.VOIDED]


def hand_list_for_player(player_id: int) -> QuerySet[Hand]:
    """The hands over or rolled back that the player was dealt in, newest first."""
    return (
        Hand.objects.filter(dealt__player_id=player_id, status__in=HISTORY)
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
    seat_in = dict(HandSeat.objects.filter(hand__in=hands, player_id=player_id).values_list("hand_id", "seat"))
    lines = []
    for hand in hands:
        seat = seat_in[hand.pk]
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
