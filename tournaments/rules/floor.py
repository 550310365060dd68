"""The floor engine (rules 4, 5, 11-16; ALGORITHMS C1-C6): one tournament's tables,
seats, stacks and buttons, and what happens each time a table finishes a hand.

Pure and incremental: a finished hand costs work in proportion to one table, never
to the whole field (a 300,000-entrant field has 33,334 tables), so the engine keeps
each table's player count in buckets by count. The services (tournaments.services.floor)
restore it from the database, feed it one finished hand, and store its `Outcome`;
the simulator and `bench/floor.py` drive it directly.

A table deals its next hand as soon as it finishes one, unless a barrier holds it:
the clock stopping (a break, a deal), hand-for-hand (rule 13), or the final table
waiting for the last other table. A held table deals again when the barrier
releases; a table with a single player never holds a barrier up.
"""

import random
from collections.abc import Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tournaments.rules.seating import Blinds, Move, Seat, SeatedTable, balancing_move, draw_seats, next_blinds
from tournaments.rules.standings import Finish, bust_places


class FloorError(ValueError):
    """A hand result the floor cannot take (a caller's bug, never a player's)."""


@dataclass(frozen=True, slots=True)
class Deal:
    """A table dealing its next hand: the button and the blinds' seats. With the dead
    button, `small_blind` may be None (nobody posts it) and `button` an empty seat."""

    table: int
    button: int
    small_blind: int | None
    big_blind: int
    synchronised: bool
    hand: int  # the table's count of hands, this one included


@dataclass(slots=True)
class Outcome[P: Hashable]:
    """What one finished hand (or a released barrier) changed; P is whatever names a
    player (the services use entry ids)."""

    finishes: list[Finish[P]] = field(default_factory=list)  # placed players, best first
    moves: list[Move[P]] = field(default_factory=list)
    broken: list[int] = field(default_factory=list)
    deals: list[Deal] = field(default_factory=list)
    final_table: bool = False  # the players were drawn to the final table
    finished: bool = False  # the tournament is over (rule 11)
    chips: dict[P, int] = field(default_factory=dict)  # stacks the floor set itself (a table ended)


@dataclass(slots=True)
class TableState[P: Hashable]:
    seats: dict[int, P] = field(default_factory=dict)
    # The seats of the button and blinds of the hand in play or last played.
    button: int | None = None
    small_blind: int | None = None  # with the dead button, maybe an empty seat
    big_blind: int | None = None
    hands: int = 0
    playing: bool = False
    synchronised: bool = False  # its hand in play was dealt as a hand-for-hand hand


class Floor[P: Hashable]:
    def __init__(
        self,
        *,
        table_size: int,
        rng: random.Random,
        payouts: Iterable[int] = (),
        hand_for_hand_at: Collection[int] = (),
        dead_button: bool = False,
        end_when_prizes_equal: bool = False,
        shootout: bool = False,
    ):
        self.table_size = table_size
        self.rng = rng
        self.payouts = list(payouts)
        # Hand-for-hand is on while the players left number one of these (rule 13):
        # the bubble, and any counts the event adds.
        paid = sum(1 for prize in self.payouts if prize > 0)
        self.hand_for_hand_at = set(hand_for_hand_at) | ({paid + 1} if paid else set())
        self.dead_button = dead_button
        self.end_when_prizes_equal = end_when_prizes_equal
        # A shootout: each table plays to one winner, without balancing or breaking;
        # when every table has its winner, they are drawn to the next round's tables.
        self.shootout = shootout
        self.tables: dict[int, TableState[P]] = {}
        self.where: dict[P, Seat] = {}
        self.stacks: dict[P, int] = {}
        self.times_moved: dict[P, int] = {}
        self.away: set[P] = set()  # sitting out: moved first when balancing
        self.stopped = False  # the clock holds every table (break, deal)
        self.breaking: int | None = None  # the table to break when it finishes its hand
        self.round_busts: dict[P, int] = {}  # a synchronised hand's busts, with their starting stacks
        self.places_taken = 0  # players placed so far (rule 12 counts from the bottom)
        self.over = False
        self._playing = 0  # tables with a hand in play
        self.held: set[int] = set()  # tables a barrier keeps from dealing
        # Tables whose rolled-back hand is dealt again, with their seats as it had them.
        self._redeal: dict[int, dict[int, P]] = {}
        self._by_count = [_Tables() for _ in range(table_size + 1)]

    # Building

    @classmethod
    def drawn(cls, stacks: Mapping[P, int], **options: Any) -> "Floor[P]":
        """The seat draw at the start (rule 4); `start` deals the first hands."""
        floor = cls(**options)
        seats = draw_seats(list(stacks), table_size=floor.table_size, rng=floor.rng)
        for player, seat in seats.items():
            floor._add(player, seat, stacks[player])
        return floor

    def start(self) -> Outcome[P]:
        """Every table deals its first hand (hand-for-hand if the field starts on the
        bubble), or holds if the clock stands still."""
        outcome = Outcome[P]()
        self._go(set(self.tables), outcome)
        return outcome

    @classmethod
    def restored(
        cls,
        tables: Mapping[int, TableState[P]],
        stacks: Mapping[P, int],
        *,
        times_moved: Mapping[P, int],
        places_taken: int,
        breaking: int | None = None,
        round_busts: Mapping[P, int] | None = None,
        stopped: bool = False,
        away: Iterable[P] = (),
        **options: Any,
    ) -> "Floor[P]":
        """The floor as the services stored it; `away`: the players sitting out."""
        floor = cls(**options)
        for number, state in tables.items():
            floor.tables[number] = state
            floor._by_count[len(state.seats)].add(number)
            floor._playing += state.playing
            if not state.playing and len(state.seats) > 1:
                floor.held.add(number)
            for seat, player in state.seats.items():
                floor.where[player] = Seat(number, seat)
        floor.stacks = dict(stacks)
        floor.times_moved = dict(times_moved)
        floor.away = set(away)
        floor.places_taken = places_taken
        floor.breaking = breaking
        floor.round_busts = dict(round_busts or {})
        floor.stopped = stopped
        return floor

    @property
    def players_left(self) -> int:
        return len(self.where)

    def seat_late(self, player: P, chips: int) -> tuple[Seat, Outcome[P]]:
        """A late entrant (rule 9): a random empty seat at the table with the fewest
        players, or a new table when every table is full. Finished places shift down
        one: the newcomer finishes above everyone already out."""
        if player in self.where:
            raise FloorError(f"{player!r} is already seated")
        smallest = self._smallest_count()
        if smallest >= self.table_size:
            number = max(self.tables, default=0) + 1
            seat = Seat(number, self.rng.randint(1, self.table_size))
        else:
            number = self._by_count[smallest].pick(self.rng)
            seat = Seat(number, self.rng.choice(self._empty(number)))
        self._add(player, seat, chips)
        outcome = Outcome[P]()
        self._deal_if_ready(number, outcome)
        if self.held and not self.stopped and not self.tables_playing():
            self._release(outcome)  # a barrier nothing else would lift: every table waits
        return seat, outcome

    # A finished hand

    def hand_finished(self, number: int, after: Mapping[P, int], *, ends_table: bool = False) -> Outcome[P]:
        """Table `number` has finished its hand; `after` gives every player's stack at
        its end (chips move only between the table's players). Players with no chips
        are out (rule 12); with `ends_table`, the table's match ends there (rule 18.5:
        _end_table); then the table breaks, balances, holds or deals."""
        table = self.tables.get(number)
        if table is None or not table.playing:
            raise FloorError(f"table {number} has no hand in play")
        if set(after) != set(table.seats.values()):
            raise FloorError(f"the result of table {number}'s hand must give exactly its players' stacks")
        if any(chips < 0 for chips in after.values()):
            raise FloorError("a stack cannot be negative")
        before = {player: self.stacks[player] for player in after}
        if sum(after.values()) != sum(before.values()):
            raise FloorError(f"chips are neither created nor lost in a hand (table {number})")
        table.playing = False
        self._playing -= 1
        outcome = Outcome[P]()
        self.stacks.update(after)
        busted = {player: before[player] for player, chips in after.items() if chips == 0}
        for player in busted:
            self._remove(player)
        if table.synchronised:
            self.round_busts.update(busted)
        elif busted:
            self._place(busted, outcome)
        if ends_table and not self.over and len(table.seats) > 1:
            self._end_table(number, outcome)
        if not self.over:
            self._after_hand(number, outcome)
        return outcome

    def _end_table(self, number: int, outcome: Outcome[P]) -> None:
        """Rule 18.5: the table's match ends; the player with most chips advances with
        every chip at the table (a tie: the first of them after the button), and the
        others are out, placed by their chips (rule 12)."""
        table = self.tables[number]
        seats = sorted(table.seats)
        button = table.button or 0
        after_button = [seat for seat in seats if seat > button] + [seat for seat in seats if seat <= button]
        order = {table.seats[seat]: position for position, seat in enumerate(after_button)}
        leader = max(order, key=lambda player: (self.stacks[player], -order[player]))
        others = {player: self.stacks[player] for player in order if player != leader}
        self.stacks[leader] += sum(others.values())
        outcome.chips[leader] = self.stacks[leader]
        for player in others:
            self.stacks[player] = outcome.chips[player] = 0
            self._remove(player)
        if table.synchronised:
            self.round_busts.update(others)
        else:
            self._place(others, outcome)

    def hand_voided(self, number: int) -> Outcome[P]:
        """Table `number`'s hand in play is rolled back (rule 22): nobody's chips
        change, and the table deals again from the same button and blinds if its
        seats are as they were; then it goes on as after any hand (it may balance,
        break or hold, and then the button moves on as usual)."""
        table = self.tables.get(number)
        if table is None or not table.playing:
            raise FloorError(f"table {number} has no hand in play")
        self._redeal[number] = dict(table.seats)
        try:
            return self.hand_finished(number, {player: self.stacks[player] for player in table.seats.values()})
        finally:
            self._redeal.pop(number, None)

    def stop(self) -> None:
        """The clock stops (a break, a deal): tables finish their hands and deal no new one."""
        self.stopped = True

    def release(self) -> Outcome[P]:
        """The clock goes again: every held table deals."""
        self.stopped = False
        outcome = Outcome[P]()
        self._release(outcome)
        return outcome

    def tables_playing(self) -> bool:
        """Is any table still playing a hand (the barrier's question)?"""
        return self._playing > 0

    @property
    def hand_for_hand(self) -> bool:
        return self.players_left in self.hand_for_hand_at and len(self.tables) > 1

    # Internals

    def _after_hand(self, number: int, outcome: Outcome[P]) -> None:
        if self._must_hold():
            self.held.add(number)
            if not self.tables_playing():
                if self.stopped:
                    self._place_round(outcome)  # the round is over, though no table deals
                else:
                    self._release(outcome)
            return
        # A barrier that has just lifted (the bubble burst) lets its held tables go too.
        self._go({number} | self.held, outcome)

    def _must_hold(self) -> bool:
        return (
            self.stopped
            or self.hand_for_hand
            or bool(self.round_busts)
            or self._final_table_due()
            or self._next_round_due()
        )

    def _final_table_due(self) -> bool:
        return len(self.tables) > 1 and self.players_left <= self.table_size and self._round_over()

    def _round_over(self) -> bool:
        """Every table of a shootout's round has its winner (always, for other events)."""
        return not self.shootout or all(len(table.seats) <= 1 for table in self.tables.values())

    def _next_round_due(self) -> bool:
        return self.shootout and len(self.tables) > 1 and self.players_left > self.table_size and self._round_over()

    def _release(self, outcome: Outcome[P]) -> None:
        """Every table has finished its hand: place a synchronised hand's busts as one
        group (rule 13), draw the final table when it is due, rearrange, deal."""
        self._place_round(outcome)
        if self.over:
            return
        if self._final_table_due():
            self._draw_final_table(outcome)
        elif self._next_round_due():
            self._draw_next_round(outcome)
        self._go({number for number, table in self.tables.items() if not table.playing}, outcome)

    def _place_round(self, outcome: Outcome[P]) -> None:
        """A synchronised hand's busts placed as one group (rule 13)."""
        if self.round_busts:
            busts, self.round_busts = self.round_busts, {}
            self._place(busts, outcome)

    def _go(self, numbers: set[int], outcome: Outcome[P]) -> None:
        """Tables between hands rearranged (in random order), then dealt, with the
        tables that received players."""
        for number in self.rng.sample(sorted(numbers), len(numbers)) if len(numbers) > 1 else numbers:
            if number in self.tables:
                self._rearrange(number, outcome)
        synchronised = self.hand_for_hand
        for number in sorted(numbers | {move.target.table for move in outcome.moves}):
            self._deal_if_ready(number, outcome, synchronised=synchronised)

    def _draw_next_round(self, outcome: Outcome[P]) -> None:
        """A shootout's round is over: its winners are drawn to random seats at as few
        and as even new tables as hold them (rule 4), numbered after the last; each
        new table's first button goes by rule 5."""
        players = sorted(self.where, key=lambda player: (self.where[player].table, self.where[player].seat))
        first = max(self.tables) + 1
        old = dict(self.where)
        for number in list(self.tables):
            self._close(number, outcome)
        for player in players:
            self._lift(player)
        for number in list(self.tables):
            self._drop(number)
        for player, seat in draw_seats(players, table_size=self.table_size, rng=self.rng).items():
            target = Seat(first + seat.table - 1, seat.seat)
            if target.table not in self.tables:
                self.tables[target.table] = TableState()
                self._by_count[0].add(target.table)
            self._put(player, target)
            self.times_moved[player] = self.times_moved.get(player, 0) + 1
            outcome.moves.append(Move(player, old[player], target))
        self.breaking = None

    def _rearrange(self, number: int, outcome: Outcome[P]) -> None:
        """Table breaking before balancing (ALGORITHMS C2): once the players fit at one
        table fewer, the smallest table (ties at random) breaks when it finishes its
        hand; otherwise this table gives one player when it is among the largest and
        the largest and smallest tables differ by two or more (rule 16). A table not
        in a hand (one player waiting) may break at once. Moves only; the caller deals.
        A shootout's tables neither break nor balance: each plays to its winner."""
        if self.shootout:
            return
        if len(self.tables) > 1 and self.players_left <= (len(self.tables) - 1) * self.table_size:
            smallest = self._smallest_count()
            if self.breaking not in self.tables or len(self.tables[self.breaking].seats) != smallest:
                self.breaking = self._by_count[smallest].pick(self.rng)
            if self.breaking == number or not self.tables[self.breaking].playing:
                # A table between hands (its own, or one waiting with a single player).
                self._break(self.breaking, outcome)
            return
        self.breaking = None
        largest, smallest = self._largest_count(), self._smallest_count()
        if largest - smallest >= 2 and len(self.tables[number].seats) == largest:
            self._balance(number, outcome)

    def _balance(self, number: int, outcome: Outcome[P]) -> None:
        """One player to a smallest table (ties at random): who, and at which seat, as
        rule 16 wants (seating.balancing_move)."""
        target = self._by_count[self._smallest_count()].pick(self.rng)
        move = balancing_move(
            self._seated(number),
            self._seated(target),
            table_size=self.table_size,
            dead_button=self.dead_button,
            times_moved=lambda player: self.times_moved.get(player, 0),
            sitting_out=self.away.__contains__,
        )
        self._move(move.player, move.target, outcome)

    def _seated(self, number: int) -> SeatedTable[P]:
        table = self.tables[number]
        return SeatedTable(number, table.seats, _last_blinds(table))

    def _break(self, number: int, outcome: Outcome[P]) -> None:
        """The broken table's players dealt one by one, at random, to the smallest
        remaining table at the time (ties at random), at random empty seats."""
        leaving = list(self.tables[number].seats.values())
        self.rng.shuffle(leaving)
        excess = len(self.tables) - -(-self.players_left // self.table_size)
        self._close(number, outcome)
        # When more tables must go (a synchronised hand's busts), the next to break get
        # nobody from this one: a player is moved once in a plan, never twice.
        closed = {number} | self._smallest_tables(excess - 1)
        for player in leaving:
            smallest = self._smallest_count(excluding=closed)
            target = self._by_count[smallest].pick(self.rng, excluding=closed)
            self._move(player, Seat(target, self.rng.choice(self._empty(target))), outcome)
        self._drop(number)
        self.breaking = None

    def _draw_final_table(self, outcome: Outcome[P]) -> None:
        """Everyone drawn to random seats at the final table (the table left with the
        most players, so that the fewest change tables); its first button is its first
        occupied seat from seat 1."""
        final = min(self.tables, key=lambda number: (-len(self.tables[number].seats), number))
        players = sorted(self.where, key=lambda player: (self.where[player].table, self.where[player].seat))
        seats = self.rng.sample(range(1, self.table_size + 1), len(players))
        for number in [n for n in self.tables if n != final]:
            self._close(number, outcome)
        old = dict(self.where)
        for player in players:
            self._lift(player)
        for number in [n for n in self.tables if n != final]:
            self._drop(number)
        table = self.tables[final]
        table.button = table.small_blind = table.big_blind = None
        table.hands = 0
        for player, seat in zip(players, seats, strict=True):
            self._put(player, Seat(final, seat))
            if old[player] != Seat(final, seat):
                if old[player].table != final:
                    self.times_moved[player] = self.times_moved.get(player, 0) + 1
                outcome.moves.append(Move(player, old[player], Seat(final, seat)))
        self.breaking = None
        outcome.final_table = True

    def _place(self, busts: Mapping[P, int], outcome: Outcome[P]) -> None:
        """Rule 12: a bust group takes the worst places still open, ranked by the
        chips they started the hand with; then the end (rule 11)."""
        left = self.players_left + len(busts)
        finishes = bust_places(busts, players_left=left)
        outcome.finishes[:0] = finishes  # best first overall
        self.places_taken += len(busts)
        if self.players_left == 1:
            (winner,) = self.where
            outcome.finishes.insert(0, Finish(winner, 1, 1))
            self._end(outcome)
        elif self.players_left and self.end_when_prizes_equal and self._prizes_equal(self.players_left):
            # Every player left would win the same (a satellite's seats): they share places 1..n.
            outcome.finishes[:0] = [Finish(player, 1, self.players_left) for player in sorted(self.where, key=str)]
            self._end(outcome)

    def _prizes_equal(self, left: int) -> bool:
        return len(self.payouts) >= left and len(set(self.payouts[:left])) == 1

    def _end(self, outcome: Outcome[P]) -> None:
        self.places_taken += self.players_left
        for number in list(self.tables):
            self._close(number, outcome, broken=False)
            self._drop(number)
        self.where.clear()
        self.over = outcome.finished = True

    def _deal_if_ready(self, number: int, outcome: Outcome[P], *, synchronised: bool = False) -> None:
        table = self.tables.get(number)
        if table is None or table.playing or len(table.seats) < 2 or self.over:
            return
        if self.stopped or (self._must_hold() and not synchronised):
            self.held.add(number)
            return
        self.held.discard(number)
        outcome.deals.append(self._deal(number, synchronised=synchronised))

    def _deal(self, number: int, *, synchronised: bool = False) -> Deal:
        """The next hand's button and blinds (rules 5, 14, 15)."""
        table = self.tables[number]
        last = _last_blinds(table)
        if last is not None and self._redeal.get(number) == table.seats:
            dealt = last  # the rolled-back hand, dealt again
        else:
            dealt = next_blinds(sorted(table.seats), last, dead_button=self.dead_button)
        table.button, table.small_blind, table.big_blind = dealt.button, dealt.small_blind, dealt.big_blind
        table.hands += 1
        table.playing = True
        self._playing += 1
        table.synchronised = synchronised
        return Deal(number, table.button, _posted(table), table.big_blind, synchronised, table.hands)

    # Seats and counts

    def _add(self, player: P, seat: Seat, chips: int) -> None:
        if seat.table not in self.tables:
            self.tables[seat.table] = TableState()
            self._by_count[0].add(seat.table)
        self.stacks[player] = chips
        self._put(player, seat)

    def _put(self, player: P, seat: Seat) -> None:
        table = self.tables[seat.table]
        if seat.seat in table.seats:
            raise FloorError(f"seat {seat.seat} of table {seat.table} is taken")
        self._by_count[len(table.seats)].discard(seat.table)
        table.seats[seat.seat] = player
        self._by_count[len(table.seats)].add(seat.table)
        self.where[player] = seat

    def _lift(self, player: P) -> Seat:
        seat = self.where.pop(player)
        table = self.tables[seat.table]
        self._by_count[len(table.seats)].discard(seat.table)
        del table.seats[seat.seat]
        self._by_count[len(table.seats)].add(seat.table)
        return seat

    def _remove(self, player: P) -> None:
        self._lift(player)
        self.away.discard(player)

    def _move(self, player: P, target: Seat, outcome: Outcome[P]) -> None:
        source = self._lift(player)
        self._put(player, target)
        self.times_moved[player] = self.times_moved.get(player, 0) + 1
        outcome.moves.append(Move(player, source, target))

    def _close(self, number: int, outcome: Outcome[P], *, broken: bool = True) -> None:
        if broken:
            outcome.broken.append(number)
        self._by_count[len(self.tables[number].seats)].discard(number)

    def _drop(self, number: int) -> None:
        self._by_count[len(self.tables[number].seats)].discard(number)
        self.held.discard(number)
        self._playing -= self.tables.pop(number).playing

    def _empty(self, number: int) -> list[int]:
        seats = self.tables[number].seats
        return [seat for seat in range(1, self.table_size + 1) if seat not in seats]

    def _smallest_count(self, *, excluding: Collection[int] = ()) -> int:
        for count, numbers in enumerate(self._by_count):
            if len(numbers) > sum(number in numbers for number in excluding):
                return count
        return self.table_size + 1

    def _smallest_tables(self, count: int) -> set[int]:
        """`count` tables with the fewest players (ties at random)."""
        chosen: set[int] = set()
        for numbers in self._by_count:
            if len(chosen) >= count:
                break
            chosen.update(self.rng.sample(numbers.items, min(count - len(chosen), len(numbers))))
        return chosen

    def _largest_count(self) -> int:
        for count in range(self.table_size, -1, -1):
            if self._by_count[count]:
                return count
        return 0


class _Tables:
    """A set of table numbers with a random pick in constant time (a set would need
    sorting first: the smallest tables of a big field number thousands)."""

    __slots__ = ("index", "items")

    def __init__(self) -> None:
        self.items: list[int] = []
        self.index: dict[int, int] = {}

    def add(self, number: int) -> None:
        if number not in self.index:
            self.index[number] = len(self.items)
            self.items.append(number)

    def discard(self, number: int) -> None:
        position = self.index.pop(number, None)
        if position is None:
            return
        last = self.items.pop()
        if last != number:
            self.items[position] = last
            self.index[last] = position

    def pick(self, rng: random.Random, *, excluding: Collection[int] = ()) -> int:
        while True:
            number = self.items[rng.randrange(len(self.items))]
            if number not in excluding:
                return number

    def __contains__(self, number: object) -> bool:
        return number in self.index

    def __len__(self) -> int:
        return len(self.items)


def _posted(table: TableState[Any]) -> int | None:
    """The small blind's seat, when a player sits there to post it."""
    return table.small_blind if table.small_blind in table.seats else None


def _last_blinds(table: TableState[Any]) -> Blinds | None:
    """The button and blinds of the table's hand in play or last played; None on a
    new table (or one drawn again), whose first button goes by rule 5."""
    if table.hands == 0 or table.button is None or table.small_blind is None or table.big_blind is None:
        return None
    return Blinds(table.button, table.small_blind, table.big_blind)
