"""Rule 20: poker is individual. Simple heuristics that point staff at play worth a
look in the stored hand histories; a signal is a reason to review, never a verdict.

A finished hand gives signals, each naming the player who gains (`player`) and the
one who gives (`other`):

- CHIP_TRANSFER (chip dumping): a player loses a large share of his chips in one
  hand, at least LARGE_TRANSFER_BIG_BLINDS big blinds or his whole stack (a
  knockout), and they go to the hand's biggest winner. Hands dealt to two players
  only are left out: heads-up the same two must trade every pot.
- STRONG_FOLD (soft play): a player folds a strong hand facing a bet or raise: in
  Hold'em a pair of STRONG_PREFLOP_RANKS before the flop, or after it a made hand
  of STRONG_MADE_HAND or better that his hole cards improve (the board alone is
  less). In Omaha (and Omaha Hi/Lo's high hand), where a hand is exactly two hole
  cards and three of the board and hands run closer: a pair of
  OMAHA_STRONG_PREFLOP_RANKS in his four cards, or OMAHA_STRONG_MADE_HAND or better.
  The opponent is the last player who bet or raised on that street.

- SIT_OUT_TOGETHER (rule 18.4, players may not agree to sit out together): two
  players of one tournament start sitting out within SIT_OUT_TOGETHER_SECONDS of
  each other. The pair is unordered: `player` is the lower id.

The same ordered pair (same kind, same gainer, same giver) is flagged once its
signals not yet reviewed number REPEATS[kind] or more, in one tournament or across
tournaments: the count is over every stored hand (or sit-out), by player, not by
entry.

Players are whatever the caller names them by (the services use user ids).
"""

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from itertools import combinations

from tournaments.rules.hands import RANKS, Action, ActionKind, HandSetup, PlayedHand

# A loss this large (in big blinds of the hand) in one hand counts as a transfer.
LARGE_TRANSFER_BIG_BLINDS = 20
# Pocket pairs that are never folded facing a bet before the flop.
STRONG_PREFLOP_RANKS = frozenset("AK")


class Category(IntEnum):
    """A poker hand's category, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8


# After the flop, a hand of this category or better is strong.
STRONG_MADE_HAND = Category.TWO_PAIR
# Omaha's: only aces before the flop; after it, two pair and straights are often beaten.
OMAHA_STRONG_PREFLOP_RANKS = frozenset("A")
OMAHA_STRONG_MADE_HAND = Category.FLUSH


# Two sit-outs this close (in seconds) are taken for one agreed between the players.
SIT_OUT_TOGETHER_SECONDS = 60


class SignalKind(StrEnum):
    CHIP_TRANSFER = "chip_transfer"
    STRONG_FOLD = "strong_fold"
    SIT_OUT_TOGETHER = "sit_out_together"


# Signals between the same ordered pair that make a flag.
REPEATS: Mapping[SignalKind, int] = {
    SignalKind.CHIP_TRANSFER: 3,
    SignalKind.STRONG_FOLD: 2,
    SignalKind.SIT_OUT_TOGETHER: 3,
}


@dataclass(frozen=True)
class Signal[P: Hashable]:
    kind: SignalKind
    hand: int | None  # the hand's id; None for a sit-out
    player: P  # who gained: the winner, or the bettor a strong hand was folded to
    other: P  # who gave: the loser, or the player who folded
    detail: str  # for staff: "knockout", "25 big blinds", "KK preflop", "two pair on the river"
    ref: str = ""  # what it was seen in, without a hand: "sit_out:12:13" (the sit-outs' record ids)

    @property
    def key(self) -> str:
        """What the signal was seen in: a hand, or the caller's records."""
        return self.ref or f"hand:{self.hand}"


@dataclass(frozen=True)
class Suspicion[P: Hashable]:
    """A pair to flag: its kind, the gainer, the giver, and what the signals were
    seen in (hand:<id> or their refs), sorted."""

    kind: SignalKind
    player: P
    other: P
    seen: tuple[str, ...]


def category(cards: Sequence[str]) -> Category:
    """The best five-card category among `cards` (five to seven cards like "As")."""
    ranks = Counter(card[0] for card in cards)
    suits = Counter(card[1] for card in cards)
    counts = sorted(ranks.values(), reverse=True)
    flush_suit = next((suit for suit, count in suits.items() if count >= 5), None)
    top, second = counts[0], counts[1] if len(counts) > 1 else 0
    # Strongest first: the first that holds is the hand.
    made = (
        (
            flush_suit is not None and _straight({card[0] for card in cards if card[1] == flush_suit}),
            Category.STRAIGHT_FLUSH,
        ),
        (top >= 4, Category.QUADS),
        (top == 3 and second >= 2, Category.FULL_HOUSE),
        (flush_suit is not None, Category.FLUSH),
        (_straight(set(ranks)), Category.STRAIGHT),
        (top == 3, Category.TRIPS),
        (top == 2 and second == 2, Category.TWO_PAIR),
        (top == 2, Category.PAIR),
    )
    return next((found for holds, found in made if holds), Category.HIGH_CARD)


def _straight(ranks: set[str]) -> bool:
    values = {RANKS.index(rank) for rank in ranks}
    if RANKS.index("A") in values:
        values.add(-1)  # the wheel: A-2-3-4-5
    return any(all(start + step in values for step in range(5)) for start in range(-1, 9))


def omaha_category(hole: Sequence[str], board: Sequence[str]) -> Category:
    """The best Omaha hand's category: exactly two hole cards and three of the board."""
    return max(category([*two, *three]) for two in combinations(hole, 2) for three in combinations(board, 3))


def strong(hole: Sequence[str], board: Sequence[str], game: str = "holdem") -> str | None:
    """Why a hand of `game` is strong at this point ("KK", "two pair"), or None."""
    omaha = game != "holdem"
    if not board:
        ranks = Counter(card[0] for card in hole)
        pairs = OMAHA_STRONG_PREFLOP_RANKS if omaha else STRONG_PREFLOP_RANKS
        pair = next((rank for rank in RANKS[::-1] if rank in pairs and ranks[rank] >= 2), None)
        return pair * 2 if pair else None
    made = omaha_category(hole, board) if omaha else category([*hole, *board])
    if made >= (OMAHA_STRONG_MADE_HAND if omaha else STRONG_MADE_HAND) and made > category(board):
        return made.name.lower().replace("_", " ")
    return None


STREET_NAMES = {0: "preflop", 3: "on the flop", 4: "on the turn", 5: "on the river"}


def hand_signals[P: Hashable](
    *,
    hand_id: int,
    setup: HandSetup,
    deck: Sequence[str],
    actions: Iterable[Action],
    players: Mapping[int, P],
    final_stacks: Mapping[int, int],
) -> list[Signal[P]]:
    """The signals of one finished hand, replayed from its record; `players` names
    each seat's player, `final_stacks` its chips at the end."""
    actions = list(actions)
    # Replayed only if someone folded after another's bet or raise: most hands are not.
    raised = next((i for i, action in enumerate(actions) if action.kind is ActionKind.BET_RAISE), None)
    folded_to_bet = raised is not None and any(action.kind is ActionKind.FOLD for action in actions[raised + 1 :])
    signals = _strong_folds(hand_id, setup, deck, actions, players) if folded_to_bet else []
    if len(setup.stacks) > 2:
        signals += _transfers(hand_id, setup, players, final_stacks)
    return signals


def _strong_folds[P: Hashable](
    hand_id: int, setup: HandSetup, deck: Sequence[str], actions: Iterable[Action], players: Mapping[int, P]
) -> list[Signal[P]]:
    hand = PlayedHand(setup, deck)
    signals: list[Signal[P]] = []
    bettor, street = None, 0
    for action in actions:
        if len(hand.board) != street:
            bettor, street = None, len(hand.board)
        if action.kind is ActionKind.FOLD and bettor is not None and bettor != action.seat:
            legal = hand.legal()
            why = strong(hand.hole_cards(action.seat), hand.board, setup.game)
            if why is not None and legal is not None and legal.call > 0:
                detail = f"{why} {STREET_NAMES[street]}"
                signals.append(Signal(SignalKind.STRONG_FOLD, hand_id, players[bettor], players[action.seat], detail))
        if action.kind is ActionKind.BET_RAISE:
            bettor = action.seat
        hand.act(action.seat, action.kind, action.amount)
    return signals


def _transfers[P: Hashable](
    hand_id: int, setup: HandSetup, players: Mapping[int, P], final_stacks: Mapping[int, int]
) -> list[Signal[P]]:
    net = {seat: final_stacks[seat] - chips for seat, chips in setup.stacks.items()}
    winner = max(sorted(net), key=lambda seat: net[seat])
    if net[winner] <= 0:
        return []
    signals = []
    for seat, change in sorted(net.items()):
        lost = -change
        if seat == winner or lost <= 0:
            continue
        if final_stacks[seat] == 0:
            detail = "knockout"
        elif lost >= LARGE_TRANSFER_BIG_BLINDS * setup.big_blind:
            detail = f"{lost // setup.big_blind} big blinds"
        else:
            continue
        signals.append(Signal(SignalKind.CHIP_TRANSFER, hand_id, players[winner], players[seat], detail))
    return signals


def suspicions[P: Hashable](signals: Iterable[Signal[P]]) -> list[Suspicion[P]]:
    """The pairs whose signals (those not yet reviewed) reach REPEATS for their kind."""
    seen: dict[tuple[SignalKind, P, P], set[str]] = defaultdict(set)
    for signal in signals:
        seen[signal.kind, signal.player, signal.other].add(signal.key)
    return [
        Suspicion(kind, player, other, tuple(sorted(found)))
        for (kind, player, other), found in seen.items()
        if len(found) >= REPEATS[kind]
    ]


@dataclass(frozen=True)
class SitOut:
    """A player starting to sit out (rule 18.4) in a tournament, `at` in seconds;
    `ref` the record it was read from."""

    player: int
    tournament: int
    at: float
    ref: int


def sit_outs_together(sit_outs: Iterable[SitOut]) -> list[Signal[int]]:
    """A signal for each two players of one tournament who started sitting out
    within SIT_OUT_TOGETHER_SECONDS of each other."""
    ordered = sorted(sit_outs, key=lambda sit_out: (sit_out.tournament, sit_out.at, sit_out.ref))
    signals = []
    for index, first in enumerate(ordered):
        for second in ordered[index + 1 :]:
            if second.tournament != first.tournament or second.at - first.at > SIT_OUT_TOGETHER_SECONDS:
                break
            if second.player == first.player:
                continue
            low, high = sorted((first, second), key=lambda sit_out: sit_out.player)
            signals.append(
                Signal(
                    SignalKind.SIT_OUT_TOGETHER,
                    None,
                    low.player,
                    high.player,
                    f"sat out {round(second.at - first.at)} s apart",
                    ref=f"sit_out:{min(first.ref, second.ref)}:{max(first.ref, second.ref)}",
                )
            )
    return signals
