"""One hand of poker at a table (rules 6, 14, 15, 18, 25): dealing from our own deck,
betting, the showdown and every pot's award. Pure: the services store a hand as its
setup, its deck and its actions, and rebuild it with `PlayedHand.play` on every call, so a
hand is a deterministic function of those three.

PokerKit runs the betting (action order, minimum raises, all-ins for less that do
not reopen the betting, pot and fixed limits); this module decides the rest itself:

- Seats map to PokerKit's player indices clockwise from the button: index 0 is the
  first seat after the button, the last index the button (or, with a dead button on
  an empty seat, the last player before it). Heads-up the button posts the small
  blind, acts first before the flop and last after it (rule 15).
- Dealing is explicit, from `deck`, like a dealer: hole cards one at a time round
  the table from index 0, then for each of flop, turn and river one burnt card and
  the board cards, in deck order. The library's own random dealing is never used.
- Fixed Limit allows one bet and three raises a round (rule 6); before the flop the
  big blind counts as the bet, so the raises go to 2, 3 and 4 big blinds.
- House rule, the short big blind: a big blind with fewer chips than the big blind
  (antes included) is all in, and the others still call the full big blind. The
  excess over his chips forms a side pot he is not eligible for. PokerKit is given
  the big blind's stack raised to ante + big blind so that it asks for the full
  call; the pots are built here from what each player really put in (at most his
  chips), so the missing chips never reach a pot. A short small blind or ante is
  posted as far as the stack goes.
- The big-blind ante (`HandSetup.big_blind_ante`): the big blind posts the whole
  table's ante, before his blind (short of both, the ante first). The ante is dead
  money: it goes to the main pot, for every player still in, and does not count
  towards his bet, his all-in or the side pots, as the big rooms play it.
- Every main and side pot is awarded here, not by PokerKit's chip pushing: hands are
  ranked with PokerKit's lookups; a split pot's odd chips go one at a time to the
  winners in the earliest positions after the button; hi/lo pots split high and low
  with the odd chip to the high half, and a pot with no qualifying low among its
  eligible players goes whole to the high hand (rule 25).
- At a showdown every player still in shows (tournament play); a player who folded,
  or a lone winner, shows nothing. When no more betting is possible the board is run
  out at once.
"""

import hashlib
import hmac
import secrets
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations
from math import prod
from random import Random
from typing import Any, ClassVar, NamedTuple

from pokerkit import (
    Automation,
    BettingStructure,
    Deck,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    Opening,
    StandardHighHand,
    State,
    Street,
)
from pokerkit import Card as PokerKitCard
from pokerkit import Hand as PokerKitHand
from pokerkit.lookups import Lookup

type Card = str  # "As", "Td", "2c": rank then suit, as PokerKit writes them

RANKS = "23456789TJQKA"
SUITS = "cdhs"
FULL_DECK: frozenset[str] = frozenset(rank + suit for rank in RANKS for suit in SUITS)
STREETS = ("preflop", "flop", "turn", "river")
_CARDS: Mapping[str, PokerKitCard] = {repr(card): card for card in Deck.STANDARD}


def new_deck(rng: Random | None = None) -> tuple[Card, ...]:
    """52 cards in a fresh random order; tests pass a seeded `rng`."""
    cards = sorted(FULL_DECK)
    (rng or secrets.SystemRandom()).shuffle(cards)
    return tuple(cards)


def new_salt() -> str:
    return secrets.token_hex(16)


def card_salt(salt: str, position: int) -> str:
    """The salt of the card at `position` (1 to 52), derived from the hand's secret
    salt: showing one card's salt tells nothing of another card."""
    return hmac.new(salt.encode(), str(position).encode(), hashlib.sha256).hexdigest()[:32]


def card_hash(card: Card, salt: str) -> str:
    return hashlib.sha256(f"{card}:{salt}".encode()).hexdigest()


def deck_commitment(deck: Sequence[Card], salt: str) -> str:
    """The hash published before a hand, which proves afterwards that the deck was
    fixed in advance: the SHA-256 of its 52 cards' hashes joined in the order dealt,
    each card hashed with its own salt. After the hand every card's hash is shown,
    and each card a player may see with its salt, so the deck is proved without
    showing the hole cards nobody showed down. Two checks anyone can run:
    `printf '%s' '<the 52 hashes>' | sha256sum` gives the commitment, and
    `printf '%s' 'As:<its salt>' | sha256sum` gives that card's hash."""
    hashes = (card_hash(card, card_salt(salt, position)) for position, card in enumerate(deck, start=1))
    return hashlib.sha256("".join(hashes).encode()).hexdigest()


@dataclass(frozen=True)
class ProvedCard:
    """One card of a finished hand's deck proof; `card` and `salt` are None for a
    card its viewer did not see."""

    position: int
    hash: str
    card: Card | None
    salt: str | None


def deck_proof(deck: Sequence[Card], salt: str, seen: Collection[int]) -> list[ProvedCard]:
    """The deck's proof as a viewer sees it: every card's hash, and the card with its
    salt only where its position (1 to 52) is `seen`. Naming any other card (a burnt
    or undealt one) would narrow down the hole cards nobody showed: they are the rest."""
    proof = []
    for position, card in enumerate(deck, start=1):
        own = card_salt(salt, position)
        shown = position in seen
        proof.append(ProvedCard(position, card_hash(card, own), card if shown else None, own if shown else None))
    return proof


class HandError(ValueError):
    """An action the rules refuse. `code` names the refusal, for the services to say
    in the player's language, with the chip amounts it names (`chips`); str() is
    the sentence in English."""

    def __init__(self, code: str, message: str, **chips: int) -> None:
        super().__init__(message)
        self.code = code
        self.chips = chips


class ActionKind(StrEnum):
    # PHH's codes: fold, check or call, complete/bet/raise to.
    FOLD = "f"
    CHECK_CALL = "cc"
    BET_RAISE = "cbr"


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    kind: ActionKind
    amount: int | None = None  # BET_RAISE: the total his bet comes to on this street

    def to_json(self) -> list[Any]:
        return [self.seat, self.kind.value, self.amount]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "Action":
        seat, kind, amount = data
        return cls(int(seat), ActionKind(kind), None if amount is None else int(amount))


GAMES: Mapping[str, tuple[int, tuple[type[PokerKitHand], ...]]] = {
    # game: (hole cards, hand types: high, then low for hi/lo)
    "holdem": (2, (StandardHighHand,)),
    "omaha": (4, (OmahaHoldemHand,)),
    "omaha_hilo": (4, (OmahaHoldemHand, OmahaEightOrBetterLowHand)),
}
BETTINGS: Mapping[str, BettingStructure] = {
    "nl": BettingStructure.NO_LIMIT,
    "pl": BettingStructure.POT_LIMIT,
    "fl": BettingStructure.FIXED_LIMIT,
}


@dataclass(frozen=True, slots=True)
class HandSetup:
    game: str  # "holdem" | "omaha" | "omaha_hilo"
    betting: str  # "nl" | "pl" | "fl"
    stacks: Mapping[int, int]  # seat -> chips at the start; everyone listed is dealt in
    button: int  # with the dead button it may be an empty seat
    small_blind_seat: int | None  # None: nobody posts the small blind (dead button)
    big_blind_seat: int
    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False  # the big blind posts `ante` for the table; else each player posts it

    def __post_init__(self) -> None:
        # A bad setup is the caller's bug, never a player's: plain ValueError.
        if self.game not in GAMES or self.betting not in BETTINGS:
            raise ValueError(f"Unknown game {self.game!r} or betting {self.betting!r}.")
        if len(self.stacks) < 2 or min(self.stacks.values()) <= 0:
            raise ValueError("A hand needs two or more players, each with chips.")
        if self.big_blind_seat not in self.stacks or self.small_blind_seat in (self.big_blind_seat,):
            raise ValueError("The big blind must be a player, other than the small blind.")
        if self.small_blind_seat is not None and self.small_blind_seat not in self.stacks:
            raise ValueError("The small blind must be a player (or None).")
        if not 0 < self.small_blind <= self.big_blind or self.ante < 0:
            raise ValueError("Blinds must be positive, the small at most the big; antes not negative.")

    @property
    def seats(self) -> tuple[int, ...]:
        """The players' seats in the order of action: first the seat after the button,
        last the button."""
        ordered = sorted(self.stacks)
        return tuple(seat for seat in ordered if seat > self.button) + tuple(
            seat for seat in ordered if seat <= self.button
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "betting": self.betting,
            "stacks": {str(seat): chips for seat, chips in sorted(self.stacks.items())},
            "button": self.button,
            "small_blind_seat": self.small_blind_seat,
            "big_blind_seat": self.big_blind_seat,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "ante": self.ante,
            "big_blind_ante": self.big_blind_ante,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "HandSetup":
        small = data["small_blind_seat"]
        return cls(
            game=data["game"],
            betting=data["betting"],
            stacks={int(seat): int(chips) for seat, chips in data["stacks"].items()},
            button=int(data["button"]),
            small_blind_seat=None if small is None else int(small),
            big_blind_seat=int(data["big_blind_seat"]),
            small_blind=int(data["small_blind"]),
            big_blind=int(data["big_blind"]),
            ante=int(data["ante"]),
            big_blind_ante=bool(data.get("big_blind_ante", False)),  # hands stored before it: each posts
        )


@dataclass(frozen=True, slots=True)
class Legal:
    """What the player to act may do; folding is always allowed on his turn."""

    seat: int
    can_check: bool
    call: int  # chips to add to call (0 when he can check)
    min_to: int | None  # smallest total bet or raise on this street; None: he cannot
    max_to: int | None  # largest: all in, the pot limit, or the fixed amount


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # seats
    winners: Mapping[int, int]  # seat -> chips won from this pot, high and low together
    high_winners: tuple[int, ...]
    low_winners: tuple[int, ...]  # empty unless hi/lo with a qualifying low


@dataclass(frozen=True, slots=True)
class HandResult:
    stacks: Mapping[int, int]  # every seat's chips at the end
    pots: tuple[Pot, ...]  # main pot first, then side pots
    shown: Mapping[int, tuple[Card, ...]]  # hole cards shown down
    board: tuple[Card, ...]
    # The high hand each seat shown down made: "one_pair", "full_house" (PokerKit's labels).
    made: Mapping[int, str] = field(default_factory=dict)


class _State(State):
    """PokerKit's state, except that a player may fold when he could check: the
    library refuses that in tournament mode, our tables allow it."""

    def verify_folding(self) -> None:
        if not self.actor_indices:
            raise ValueError("There is no player to act.")


_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
)
_FL_CAP = 4  # one bet and three raises (rule 6)


def _streets(setup: HandSetup) -> tuple[Street, ...]:
    hole_cards = GAMES[setup.game][0]
    fixed = setup.betting == "fl"
    # Before the flop the big blind is the round's first bet.
    caps = (_FL_CAP - 1, _FL_CAP, _FL_CAP, _FL_CAP) if fixed else (None,) * 4
    big_bet = 2 * setup.big_blind if fixed else setup.big_blind
    bets = (setup.big_blind, setup.big_blind, big_bet, big_bet)
    cards = (0, 3, 1, 1)
    return tuple(
        Street(index > 0, (False,) * hole_cards if index == 0 else (), cards[index], False, Opening.POSITION, bet, cap)
        for index, (bet, cap) in enumerate(zip(bets, caps, strict=True))
    )


class _Ranker:
    """PokerKit's hand ranking, memoised on what decides it (the ranks' multiset and
    whether all five cards share a suit): PokerKit's own `from_game` tries every
    combination through several layers of parsing, too slow to run on every replay."""

    _PRIMES: ClassVar[Mapping[str, int]] = dict(
        zip(RANKS, (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41), strict=True)
    )

    def __init__(self, hand_type: type[PokerKitHand]):
        self.lookup: Lookup = hand_type.lookup
        self.low = hand_type.low
        self.omaha = hand_type in (OmahaHoldemHand, OmahaEightOrBetterLowHand)
        self.memo: dict[tuple[int, bool], int | None] = {}

    def _five(self, cards: tuple[str, ...]) -> int | None:
        key = (prod(self._PRIMES[card[0]] for card in cards), len({card[1] for card in cards}) == 1)
        if key not in self.memo:
            entry = self.lookup.get_entry_or_none("".join(cards))
            # Stronger is larger; a low hand's lookup index grows as the hand weakens.
            self.memo[key] = None if entry is None else (-entry.index if self.low else entry.index)
        return self.memo[key]

    def strength(self, hole: Sequence[str], board: Sequence[str]) -> int | None:
        """The best five-card hand's strength (larger wins), None if none qualifies."""
        if self.omaha:
            fives: Iterable[tuple[str, ...]] = (
                two + three for two in combinations(hole, 2) for three in combinations(board, 3)
            )
        else:
            fives = combinations((*hole, *board), 5)
        strengths = [strength for five in fives if (strength := self._five(five)) is not None]
        return max(strengths, default=None)


_RANKERS: dict[type[PokerKitHand], _Ranker] = {
    hand_type: _Ranker(hand_type) for hand_type in (StandardHighHand, OmahaHoldemHand, OmahaEightOrBetterLowHand)
}


def split(amount: int, winners: Sequence[int]) -> dict[int, int]:
    """`amount` shared by `winners` (in position order from the button): the odd
    chips one at a time to the earliest."""
    share, odd = divmod(amount, len(winners))
    return {winner: share + (1 if place < odd else 0) for place, winner in enumerate(winners)}


@dataclass(slots=True)
class _Band:
    amount: int
    eligible: tuple[int, ...]  # player indices still in the hand, in position order
    refunds: dict[int, int] = field(default_factory=dict)  # nobody still in covered it


def _bands(contributions: Sequence[int], live: Sequence[bool], dead: Sequence[int] = ()) -> list[_Band]:
    """Main and side pots from what each player put in: each level of contribution
    is a pot for the players still in who put in at least that much. Chips nobody
    still in matched (a short big blind's uncalled part) go back to whoever put them in.
    `dead`: what of each player's is dead money (a big-blind ante), in the main pot
    for every player still in and no part of his level."""
    betting = [put - (dead[i] if dead else 0) for i, put in enumerate(contributions)]
    bands: list[_Band] = []
    below = 0
    for level in sorted(set(betting) - {0}):
        slices = {i: min(put, level) - min(put, below) for i, put in enumerate(betting)}
        amount = sum(slices.values())
        eligible = tuple(i for i, put in enumerate(betting) if live[i] and put >= level)
        if not eligible:
            bands.append(_Band(amount, (), {i: chips for i, chips in slices.items() if chips}))
        elif bands and bands[-1].eligible == eligible:
            bands[-1].amount += amount
        else:
            bands.append(_Band(amount, eligible))
        below = level
    if money := sum(dead):
        in_hand = tuple(i for i, still in enumerate(live) if still)
        if bands and bands[0].eligible == in_hand:
            bands[0].amount += money
        else:
            bands.insert(0, _Band(money, in_hand))
    return bands


def hole_positions(setup: HandSetup, seat: int) -> tuple[int, ...]:
    """Where the seat's hole cards lie in the deck (1 to 52): dealt one at a time
    round the table, from the first seat after the button. No need to play the hand."""
    index, count = setup.seats.index(seat), len(setup.stacks)
    return tuple(round_ * count + index + 1 for round_ in range(GAMES[setup.game][0]))


def pots_of(contributions: Sequence[int], live: Sequence[bool], dead: Sequence[int] = ()) -> tuple[int, ...]:
    """The main pot, then the side pots, that the chips each player (by index) has put
    in make, `live` those still in, `dead` the dead money among them (_bands); chips
    nobody still in matched are no pot."""
    return tuple(band.amount for band in _bands(contributions, live, dead) if band.eligible)


class LogLine(NamedTuple):
    """One line of the hand's story as the table tells it: an action ("fold",
    "check", "call" with the chips it paid, "bet" or "raise" with the amount bet or
    raised to) by `seat`, or a street dealt ("flop", "turn", "river", with its cards)."""

    kind: str
    seat: int | None = None
    chips: int | None = None
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class ShownHand:
    """A hand as the pages show it, read once from its state (PlayedHand.shown): plain
    values, which any thread may read while the hand itself plays on."""

    to_act: int | None
    board: tuple[Card, ...]
    pot_total: int
    stacks: Mapping[int, int]
    bets: Mapping[int, int]
    folds: frozenset[int]
    all_ins: frozenset[int]
    holes: Mapping[int, tuple[Card, ...]]
    choices: Legal | None
    # Each seat's last action on this street (PlayedHand.said), and the hand's story.
    said: Mapping[int, tuple[str, int | None]] = field(default_factory=dict)
    log: tuple[LogLine, ...] = ()

    def stack(self, seat: int) -> int:
        return self.stacks[seat]

    def bet(self, seat: int) -> int:
        return self.bets[seat]

    def folded(self, seat: int) -> bool:
        return seat in self.folds

    def all_in(self, seat: int) -> bool:
        return seat in self.all_ins

    def hole_cards(self, seat: int) -> tuple[Card, ...]:
        return self.holes[seat]

    def legal(self) -> Legal | None:
        return self.choices


class PlayedHand:
    """One hand: `PlayedHand.play(setup, deck, actions)` rebuilds it; `act` moves it on."""

    def __init__(self, setup: HandSetup, deck: Sequence[Card]):
        if len(deck) != 52 or set(deck) != FULL_DECK:
            raise ValueError("The deck must hold each of the 52 cards once.")
        self.setup = setup
        self.deck: tuple[Card, ...] = tuple(deck)
        self.actions: list[Action] = []
        self.seats = setup.seats
        self._index = {seat: index for index, seat in enumerate(self.seats)}
        count = len(self.seats)
        self.chips = tuple(setup.stacks[seat] for seat in self.seats)  # real, by index
        blinds = [0] * count
        if setup.small_blind_seat is not None:
            blinds[self._index[setup.small_blind_seat]] = setup.small_blind
        big = self._index[setup.big_blind_seat]
        blinds[big] = setup.big_blind
        starting = list(self.chips)
        # The short big blind (module docstring): PokerKit sees him post it all.
        starting[big] = max(starting[big], setup.ante + setup.big_blind)
        self.starting = tuple(starting)  # as PokerKit plays them
        # Heads-up PokerKit reads each player's blind and ante from the other index.
        self.raw_blinds = blinds[::-1] if count == 2 else blinds
        antes = [setup.ante] * count
        # Dead money by index: a big-blind ante, as far as his chips go (the ante first).
        self.dead = tuple(0 for _ in range(count))
        if setup.big_blind_ante:
            antes = [0] * count
            antes[big] = setup.ante
            self.dead = tuple(min(setup.ante, self.chips[big]) if index == big else 0 for index in range(count))
        self.raw_antes = antes[::-1] if count == 2 else antes
        self.hand_types = GAMES[setup.game][1]
        self.state = _State(
            _AUTOMATIONS,
            Deck.STANDARD,
            self.hand_types,
            _streets(setup),
            BETTINGS[setup.betting],
            False,
            self.raw_antes,
            self.raw_blinds,
            0,
            self.starting,
            count,
        )
        self._dealt = 0  # deck cards used so far
        self._board: list[Card] = []
        self._board_positions: list[int] = []  # where the board's cards lie in the deck
        self.showdown_order: tuple[int, ...] = ()  # indices, in PokerKit's order of showing
        self._over = False
        # Each seat's last action on the street being played, as the table shows it until
        # the street ends: "fold", "check", "call", "bet" or "raise" (with the amount
        # bet or raised to), or "all_in".
        self.said: dict[int, tuple[str, int | None]] = {}
        self.log: list[LogLine] = []  # every action and street dealt, in order
        self._result: HandResult | None = None
        self._run()

    @classmethod
    def play(cls, setup: HandSetup, deck: Sequence[Card], actions: Iterable[Action] = ()) -> "PlayedHand":
        """The hand as `actions` left it; HandError if one of them is illegal."""
        hand = cls(setup, deck)
        for action in actions:
            hand.act(action.seat, action.kind, action.amount)
        return hand

    # Dealing and the end of the hand

    def _take(self, count: int) -> tuple[Card, ...]:
        cards = self.deck[self._dealt : self._dealt + count]
        self._dealt += count
        return cards

    def _take_board(self, count: int) -> tuple[Card, ...]:
        self._board_positions.extend(range(self._dealt + 1, self._dealt + count + 1))
        cards = self._take(count)
        self._board.extend(cards)
        return cards

    def _deal(self, count: int) -> tuple[PokerKitCard, ...]:
        return tuple(_CARDS[card] for card in self._take(count))

    def _run(self) -> None:
        """Deal until someone must act or no more betting is possible."""
        state = self.state
        while True:
            if state.card_burning_status:
                state.burn_card(self._deal(1))
            elif any(state.hole_dealing_statuses):
                state.deal_hole(self._deal(1))
            elif any(state.board_dealing_counts):
                state.deal_board(tuple(_CARDS[card] for card in self._take_board(state.board_dealing_counts[0])))
            else:
                break
        if state.actor_indices:
            return
        self._over = True
        if sum(state.statuses) > 1:
            # A showdown: PokerKit would show and kill hands at great cost; the
            # board is run out and the pots awarded here instead.
            self.showdown_order = tuple(state.showdown_indices)
            assert state.street_index is not None
            for street in state.streets[state.street_index + 1 :]:
                self._take(1)
                self._take_board(street.board_dealing_count)

    # What the table shows

    @property
    def over(self) -> bool:
        return self._over

    @property
    def to_act(self) -> int | None:
        index = self.state.actor_index
        return None if index is None or self._over else self.seats[index]

    @property
    def board(self) -> tuple[Card, ...]:
        return tuple(self._board)

    @property
    def board_positions(self) -> tuple[int, ...]:
        """Where the board's cards lie in the deck (1 to 52), in the order dealt."""
        return tuple(self._board_positions)

    @property
    def street(self) -> str:
        """The betting round; "showdown" once the hand has gone to a showdown."""
        if self._over and self.showdown_order:
            return "showdown"
        return STREETS[{0: 0, 3: 1, 4: 2, 5: 3}[len(self.board)]]

    def _i(self, seat: int) -> int:
        try:
            return self._index[seat]
        except KeyError:
            raise HandError("seat_not_in_hand", "That seat is not in this hand.") from None

    def hole_cards(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.deck[position - 1] for position in self.hole_positions(seat))

    def hole_positions(self, seat: int) -> tuple[int, ...]:
        self._i(seat)
        return hole_positions(self.setup, seat)

    def seen_positions(self, viewer: int | None, shown: Collection[int]) -> frozenset[int]:
        """The deck positions whose cards `viewer` (a seat; None: a spectator) saw:
        the board, the hands of the `shown` seats, and his own."""
        seats = {*shown, viewer} - {None}
        return frozenset(self.board_positions).union(
            *(self.hole_positions(seat) for seat in seats if seat in self._index)
        )

    def contributions(self) -> tuple[int, ...]:
        """What each player (by index) has really put in: never more than his chips."""
        return tuple(
            min(start - stack, chips)
            for start, stack, chips in zip(self.starting, self.state.stacks, self.chips, strict=True)
        )

    def _phantom(self) -> int:
        return sum(self.starting) - sum(self.state.stacks) - sum(self.contributions())

    def stack(self, seat: int) -> int:
        if self._over:
            return self.result().stacks[seat]
        index = self._i(seat)
        return self.chips[index] - self.contributions()[index]

    def bet(self, seat: int) -> int:
        """His bet on this street, chips he has not got left out; none once the hand
        is over (every chip is in the pots)."""
        if self._over:
            return 0
        index = self._i(seat)
        phantom = self.starting[index] - self.state.stacks[index] - self.contributions()[index]
        return max(0, self.state.bets[index] - phantom)

    def folded(self, seat: int) -> bool:
        return not self.state.statuses[self._i(seat)]

    def all_in(self, seat: int) -> bool:
        index = self._i(seat)
        return self.state.statuses[index] and self.contributions()[index] == self.chips[index]

    @property
    def pot_total(self) -> int:
        """Every chip put in so far, bets included."""
        return sum(self.contributions())

    def shown(self) -> ShownHand:
        """What the pages show of the hand as it stands."""
        return ShownHand(
            to_act=self.to_act,
            board=self.board,
            pot_total=self.pot_total,
            stacks={seat: self.stack(seat) for seat in self.seats},
            bets={seat: self.bet(seat) for seat in self.seats},
            folds=frozenset(seat for seat in self.seats if self.folded(seat)),
            all_ins=frozenset(seat for seat in self.seats if self.all_in(seat)),
            holes={seat: self.hole_cards(seat) for seat in self.seats},
            choices=self.legal(),
            said=dict(self.said),
            log=tuple(self.log),
        )

    # Acting

    def legal(self) -> Legal | None:
        state = self.state
        index = state.actor_index
        if index is None or self._over:
            return None
        call = state.checking_or_calling_amount
        assert call is not None
        min_to = state.min_completion_betting_or_raising_to_amount
        max_to = state.max_completion_betting_or_raising_to_amount
        if min_to is not None and max_to is not None and self.setup.betting == "pl":
            # PokerKit's pot counts a short big blind's missing chips; the limit is
            # the real pot after the call.
            pot = sum(self.starting) - sum(state.stacks) - self._phantom()
            limit = 2 * max(state.bets) - state.bets[index] + pot
            max_to = min(state.stacks[index] + state.bets[index], max(min_to, limit))
        return Legal(self.seats[index], call == 0, call, min_to, max_to)

    def _cannot_raise(self) -> HandError:
        state = self.state
        index = state.actor_index
        assert index is not None
        assert state.street is not None
        if state.completion_betting_or_raising_count == state.street.max_completion_betting_or_raising_count:
            return HandError("raises_capped", "Fixed Limit allows one bet and three raises a round.")
        if state.stacks[index] <= max(state.bets) - state.bets[index]:
            return HandError("only_call", "You have only enough chips to call.")
        if not any(
            i != index and state.statuses[i] and state.stacks[i] + state.bets[i] > max(state.bets)
            for i in range(len(self.seats))
        ):
            return HandError("others_all_in", "Everyone else is all in: you can call or fold.")
        return HandError(
            "not_reopened", "An all-in for less than a full raise does not reopen the betting: you can call or fold."
        )

    def act(self, seat: int, kind: ActionKind, amount: int | None = None) -> Action:
        """Apply the action of the player to act and run the hand on to the next
        decision or its end. HandError, and nothing changes, if the rules refuse it."""
        if self._over:
            raise HandError("hand_over", "This hand is over.")
        legal = self.legal()
        assert legal is not None
        if seat != legal.seat:
            raise HandError("not_your_turn", "It is not your turn.")
        kind = ActionKind(kind)
        street = len(self._board)
        index = self._i(seat)
        put_in = self.contributions()[index]
        if kind is ActionKind.BET_RAISE:
            amount = self._check_amount(legal, amount)
            word = "bet" if max(self.state.bets) == 0 else "raise"
            self.state.complete_bet_or_raise_to(amount)
        elif kind is ActionKind.CHECK_CALL:
            amount = None
            word = "check" if legal.can_check else "call"
            self.state.check_or_call()
        else:
            amount = None
            word = "fold"
            self.state.fold()
        action = Action(seat, kind, amount)
        self.actions.append(action)
        self._run()
        paid = self.contributions()[index] - put_in
        self.log.append(LogLine(word, seat, paid if word == "call" else amount))
        for name, first, size in (("flop", 0, 3), ("turn", 3, 4), ("river", 4, 5)):
            if street < size <= len(self._board):
                self.log.append(LogLine(name, cards=tuple(self._board[first:size])))
        if len(self._board) > street:
            self.said = {}  # the street is over: its actions are no longer shown
        else:
            all_in = kind is not ActionKind.FOLD and put_in + paid == self.chips[index]
            self.said[seat] = ("all_in", None) if all_in else (word, amount)
        return action

    def _check_amount(self, legal: Legal, amount: int | None) -> int:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise HandError("amount_missing", "Say the total you bet or raise to, in chips.")
        if legal.min_to is None or legal.max_to is None:
            raise self._cannot_raise()
        word = "bet" if max(self.state.bets) == 0 else "raise"
        low, high = legal.min_to, legal.max_to
        all_in_to = self.stack(legal.seat) + self.bet(legal.seat)
        # The codes name the word ("bet_smallest", "raise_smallest"): a language may say each its own way.
        if low == high and amount != low:
            if low == all_in_to:
                raise HandError(f"{word}_only_all_in", f"The only {word} you can make is all in, to {low}.", to=low)
            raise HandError(f"{word}_fixed", f"In Fixed Limit the {word} is to {low}.", to=low)
        if amount < low:
            if word == "bet":
                raise HandError("bet_smallest", f"The smallest bet is {low}.", to=low)
            raise HandError("raise_smallest", f"The smallest raise is to {low}.", to=low)
        if amount > high:
            if high < all_in_to:
                raise HandError(f"{word}_pot_limit", f"Pot Limit allows at most a {word} to {high}.", to=high)
            raise HandError(f"{word}_all_in_most", f"You can {word} to at most {high}, all in.", to=high)
        return amount

    def timeout_action(self) -> Action:
        """Rule 18.3 for the player to act: a check if he can, else a fold (not applied)."""
        legal = self.legal()
        if legal is None:
            raise HandError("hand_over", "This hand is over.")
        return Action(legal.seat, ActionKind.CHECK_CALL if legal.can_check else ActionKind.FOLD)

    # The result

    def _strength(self, index: int, hand_type: type[PokerKitHand]) -> int | None:
        return _RANKERS[hand_type].strength(self.hole_cards(self.seats[index]), self.board)

    def result(self) -> HandResult:
        if not self._over:
            raise HandError("hand_not_over", "This hand is not over yet.")
        if self._result is None:
            self._result = self._award()
        return self._result

    def _award(self) -> HandResult:
        contributions = self.contributions()
        live = list(self.state.statuses)
        hilo = len(self.hand_types) == 2
        strengths: dict[tuple[int, int], int | None] = {}

        def best(eligible: Sequence[int], kind: int) -> tuple[int, ...]:
            for index in eligible:
                if (index, kind) not in strengths:
                    strengths[index, kind] = self._strength(index, self.hand_types[kind])
            top = max((s for i in eligible if (s := strengths[i, kind]) is not None), default=None)
            return () if top is None else tuple(i for i in eligible if strengths[i, kind] == top)

        won = [0] * len(self.seats)
        pots: list[Pot] = []
        for band in _bands(contributions, live, self.dead):
            if not band.eligible:
                winners = band.refunds
                high: tuple[int, ...] = tuple(band.refunds)
                low: tuple[int, ...] = ()
            elif len(band.eligible) == 1:
                high, low, winners = band.eligible, (), {band.eligible[0]: band.amount}
            else:
                high = best(band.eligible, 0)
                low = best(band.eligible, 1) if hilo else ()
                low_half = band.amount // 2 if low else 0  # the odd chip goes high
                winners = split(band.amount - low_half, high)
                for index, chips in (split(low_half, low) if low else {}).items():
                    winners[index] = winners.get(index, 0) + chips
            for index, chips in winners.items():
                won[index] += chips
            pots.append(
                Pot(
                    band.amount,
                    tuple(self.seats[i] for i in (band.eligible or tuple(band.refunds))),
                    {self.seats[i]: chips for i, chips in winners.items()},
                    tuple(self.seats[i] for i in high),
                    tuple(self.seats[i] for i in low),
                )
            )
        stacks = {self.seats[i]: self.chips[i] - contributions[i] + won[i] for i in range(len(self.seats))}
        assert sum(stacks.values()) == sum(self.chips), "chips must be conserved"
        shown = {self.seats[i]: self.hole_cards(self.seats[i]) for i in self.showdown_order}
        return HandResult(stacks, tuple(pots), shown, self.board, self._made(shown))

    def _made(self, shown: Mapping[int, tuple[Card, ...]]) -> dict[int, str]:
        """The high hand each seat shown down made, by PokerKit's evaluation (once a
        hand: the ranking above uses the faster lookups, which carry no name)."""
        if len(self.board) < 5:
            return {}
        board = "".join(self.board)
        return {
            seat: self.hand_types[0].from_game("".join(cards), board).entry.label.name.lower()
            for seat, cards in shown.items()
        }
