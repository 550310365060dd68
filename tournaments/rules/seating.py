"""Who sits where (rules 4, 5, 14, 15, 16; ALGORITHMS C1, C2, C6): the seat draw,
the button and blinds, balancing and breaking tables. Pure: the floor engine's
services store what these decide.

A layout maps each table's number to its seats, {seat number: player}; seats are
numbered 1..table_size clockwise. Randomness comes from the `rng` given (the
services pass `secrets.SystemRandom()`, rule 4; tests pass a seeded one).
"""

import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

type Player = Hashable  # whatever names a player: the services use entry ids
type Layout = Mapping[int, Mapping[int, Player]]


@dataclass(frozen=True, slots=True)
class Seat:
    table: int
    seat: int


@dataclass(frozen=True, slots=True)
class Move[P: Hashable]:
    player: P
    source: Seat
    target: Seat


def draw_seats[P: Hashable](players: Sequence[P], *, table_size: int, rng: random.Random) -> dict[P, Seat]:
    """The seat draw at the start (rule 4): as few tables as hold everyone, filled as
    evenly as can be (never one short table when even ones are possible), random
    players at random seats. Tables are numbered from 1."""
    if not players:
        return {}
    tables = math.ceil(len(players) / table_size)
    shuffled = list(players)
    rng.shuffle(shuffled)
    seats: dict[P, Seat] = {}
    start = 0
    for table in range(1, tables + 1):
        # The first len % tables tables take one player more.
        count = len(players) // tables + (1 if table <= len(players) % tables else 0)
        chosen = rng.sample(range(1, table_size + 1), count)
        for player, seat in zip(shuffled[start : start + count], chosen, strict=True):
            seats[player] = Seat(table, seat)
        start += count
    return seats


def late_seat(layout: Layout, *, table_size: int, rng: random.Random) -> Seat:
    """A late entrant's seat (rule 9): a random empty seat at the table with the
    fewest players (ties at random)."""
    table = _smallest(layout, rng)
    return Seat(table, rng.choice(_empty_seats(layout[table], table_size)))


def next_button(occupied: Sequence[int], button: int | None) -> int:
    """Where the button goes for the next hand (rules 5, 15): a new table's first
    button is the first occupied seat from seat 1; then it moves clockwise to the
    next seated player (forward-moving: never twice in a row on one player while
    another is seated)."""
    ordered = sorted(occupied)
    if button is None:
        return ordered[0]
    return next((seat for seat in ordered if seat > button), ordered[0])


def blinds(occupied: Sequence[int], button: int) -> tuple[int, int]:
    """(small blind, big blind) seats with the button at `button`: the next seated
    players clockwise; heads-up the button posts the small blind (rule 14)."""
    ordered = sorted(occupied)
    if len(ordered) == 2:
        return button, _after(ordered, button)
    small = _after(ordered, button)
    return small, _after(ordered, small)


@dataclass(frozen=True, slots=True)
class Blinds:
    """A hand's button and blinds, by seat. With the dead button the button and the
    small blind may be empty seats."""

    button: int
    small_blind: int
    big_blind: int


def next_blinds(occupied: Sequence[int], last: Blinds | None, *, dead_button: bool = False) -> Blinds:
    """The next hand's button and blinds at a table seating `occupied`, after the hand
    `last` (None: a new table, whose first button is its first occupied seat from
    seat 1, rule 5). The button moves forward (rules 14, 15); with the dead button the
    big blind moves on to the next player due, and the button and the small blind
    take the seats the blinds had, empty or not (TDA's dead button)."""
    ordered = sorted(occupied)
    if last is None:
        button = ordered[0]
    elif dead_button and len(ordered) > 2:
        return Blinds(last.small_blind, last.big_blind, _after(ordered, last.big_blind))
    else:
        button = next_button(ordered, last.button)
    small, big = blinds(ordered, button)
    return Blinds(button, small, big)


@dataclass(frozen=True, slots=True)
class BlindPosition:
    """Where a player sits in the round of the blinds: `hands` dealt before the one in
    which he posts the big blind, at a table of `players`, nobody leaving. He posts
    the small blind the hand after the big blind; due the small blind next, he posts
    the big blind last of all."""

    hands: int
    players: int

    @property
    def first_blind(self) -> int:
        """The hand (0: the next) in which he posts his first blind."""
        return 0 if self.hands == self.players - 1 else self.hands

    @property
    def both_blinds(self) -> int:
        """The hand by which he has posted both blinds."""
        return self.players - 1 if self.hands == self.players - 1 else self.hands + 1

    def free_pass_from(self, before: "BlindPosition") -> bool:
        """Whether a move from `before` to here passes him through both blinds free: no
        blind until after the hand by which he would have posted both."""
        return self.first_blind > before.both_blinds


@dataclass(frozen=True, slots=True)
class SeatedTable[P: Hashable]:
    """A table as balancing sees it: its seats, and the button and blinds of the hand
    in play or last played (None before its first hand)."""

    number: int
    seats: Mapping[int, P]
    last: Blinds | None


def blind_positions(table: SeatedTable[Player], *, dead_button: bool = False) -> dict[int, BlindPosition]:
    """Each seated player's position for the table's next hand: the big blind moves on
    one seated player a hand, with a forward-moving or a dead button alike."""
    occupied = sorted(table.seats)
    big_blind = next_blinds(occupied, table.last, dead_button=dead_button).big_blind
    first = occupied.index(big_blind)
    return {seat: BlindPosition((index - first) % len(occupied), len(occupied)) for index, seat in enumerate(occupied)}


def balancing_move[P: Hashable](
    source: SeatedTable[P],
    target: SeatedTable[P],
    *,
    table_size: int,
    dead_button: bool = False,
    times_moved: Callable[[P], int] = lambda player: 0,
    sitting_out: Callable[[P], bool] = lambda player: False,
) -> Move[P]:
    """The player `source` gives `target` to balance the tables (rule 16), and his seat
    there: the equivalent position relative to the blinds, judged with him seated
    (the button may then land on him), by the hands until he posts the big blind, as
    close as the empty seats allow to what it was at `source`; ties: the sooner, then
    the later seat. Never a free pass through both blinds.

    Who: a sitting-out player first, then who has moved fewest times, then who is due
    the big blind soonest; but a player whom every empty seat would pass through
    both blinds only when nobody else can go (somebody always can: the player due
    the small blind next, for one, loses no blind at a smaller table).
    """
    offered = {
        seat: blind_positions(_with(target, seat), dead_button=dead_button)[seat]
        for seat in _empty_seats(target.seats, table_size)
    }

    def nearest(before: BlindPosition) -> int:
        return min(
            offered,
            key=lambda seat: (
                offered[seat].free_pass_from(before),
                abs(offered[seat].hands - before.hands),
                offered[seat].hands,
                -seat,
            ),
        )

    positions = blind_positions(source, dead_button=dead_button)
    taken = {seat: nearest(before) for seat, before in positions.items()}

    def preference(seat: int) -> tuple[bool, bool, int, int]:
        player = source.seats[seat]
        free_pass = offered[taken[seat]].free_pass_from(positions[seat])
        return free_pass, not sitting_out(player), times_moved(player), positions[seat].hands

    seat = min(positions, key=preference)
    return Move(source.seats[seat], Seat(source.number, seat), Seat(target.number, taken[seat]))


def table_to_break(layout: Layout, *, table_size: int, rng: random.Random) -> int | None:
    """The table to break (ALGORITHMS C2): once the players left fit at one table
    fewer, the one with the fewest players (ties at random); None otherwise, or when
    one table is left."""
    if len(layout) < 2:
        return None
    players = sum(len(seats) for seats in layout.values())
    if players > (len(layout) - 1) * table_size:
        return None
    return _smallest(layout, rng)


def break_table[P: Hashable](
    table: int, layout: Mapping[int, Mapping[int, P]], *, table_size: int, rng: random.Random
) -> list[Move[P]]:
    """The broken table's players dealt one by one, in random order, to the smallest
    remaining table at the time (ties at random), at random empty seats."""
    remaining = {number: dict(seats) for number, seats in layout.items() if number != table}
    leaving = list(layout[table].items())
    rng.shuffle(leaving)
    moves = []
    for seat, player in leaving:
        target_table = _smallest(remaining, rng)
        target_seat = rng.choice(_empty_seats(remaining[target_table], table_size))
        remaining[target_table][target_seat] = player
        moves.append(Move(player, Seat(table, seat), Seat(target_table, target_seat)))
    return moves


def _smallest(layout: Layout, rng: random.Random) -> int:
    fewest = min(len(seats) for seats in layout.values())
    return rng.choice(sorted(number for number, seats in layout.items() if len(seats) == fewest))


def _empty_seats(seats: Mapping[int, object], table_size: int) -> list[int]:
    return [seat for seat in range(1, table_size + 1) if seat not in seats]


def _after(ordered: list[int], seat: int) -> int:
    return next((s for s in ordered if s > seat), ordered[0])


def _with(table: SeatedTable[Player], seat: int) -> SeatedTable[Player]:
    """`table` with one more player, at `seat`."""
    return SeatedTable(table.number, {**table.seats, seat: None}, table.last)
