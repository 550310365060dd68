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
class Move:
    player: Hashable
    source: Seat
    target: Seat


def draw_seats(players: Sequence[Player], *, table_size: int, rng: random.Random) -> dict[Player, Seat]:
    """The seat draw at the start (rule 4): as few tables as hold everyone, filled as
    evenly as can be (never one short table when even ones are possible), random
    players at random seats. Tables are numbered from 1."""
    if not players:
        return {}
    tables = math.ceil(len(players) / table_size)
    shuffled = list(players)
    rng.shuffle(shuffled)
    seats: dict[Player, Seat] = {}
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


def balance_from(
    table: int,
    layout: Layout,
    *,
    table_size: int,
    buttons: Mapping[int, int],
    times_moved: Callable[[Player], int],
    sitting_out: Callable[[Player], bool] = lambda player: False,
) -> Move | None:
    """The one move balancing wants (rule 16) of `table`, which has just finished its
    hand (no other table is looked at for players): when the largest and the
    smallest tables differ by two or more and `table` is among the largest.

    Who: a sitting-out player first, then who has moved fewest times, then who is
    due the big blind soonest (the next hand's big blind first). Where: the smallest
    table (ties: the lowest number), at the empty seat whose place after the button
    is closest to the one the player leaves (ties: the later place). `buttons` gives
    each table's button for its next hand.
    """
    counts = {number: len(seats) for number, seats in layout.items()}
    if max(counts.values()) - min(counts.values()) < 2 or counts[table] != max(counts.values()):
        return None
    seats = layout[table]
    occupied = sorted(seats)
    button = buttons[table]
    _, big_blind = blinds(occupied, button)
    due = _clockwise_from(occupied, big_blind)  # the next hand's big blind first
    seat = min(due, key=lambda s: (not sitting_out(seats[s]), times_moved(seats[s]), due.index(s)))
    target_table = min((number for number in layout if number != table), key=lambda n: (counts[n], n))
    target = layout[target_table]
    place = _place(occupied, button, seat)
    target_button = buttons.get(target_table) or next_button(sorted(target), None)
    empty = _empty_seats(target, table_size)
    target_seat = min(
        empty,
        key=lambda s: (abs(_place(sorted([*target, s]), target_button, s) - place), -s),
    )
    return Move(seats[seat], Seat(table, seat), Seat(target_table, target_seat))


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


def break_table(table: int, layout: Layout, *, table_size: int, rng: random.Random) -> list[Move]:
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


def _clockwise_from(ordered: list[int], first: int) -> list[int]:
    index = ordered.index(first)
    return ordered[index:] + ordered[:index]


def _place(occupied: list[int], button: int, seat: int) -> int:
    """How many seated players after the button `seat` comes (the button itself: 0)."""
    if button not in occupied:
        occupied = sorted([*occupied, button])
    return _clockwise_from(occupied, button).index(seat)
