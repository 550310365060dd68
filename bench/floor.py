"""The pure floor engine (tournaments.rules.floor) on a record field: 300,000
entrants (above the 253,692-entrant online record) on nine-seat tables, from the
seat draw to the winner, with random hands (tournaments.rules.simulation) at
random tables and the standard payouts (so hand-for-hand runs at the bubble).

Eliminations per second: players placed over the time spent inside the engine
(`hand_finished`), not in the simulation that makes up the hands. The record field
busted about 28 players a second in its first hour; the target is 100 times that.

Player moves per elimination, as a ratio to the minimum possible. A move is a
player changing tables. The bench keeps its own count of players per table and
replays each outcome on it (busts first, then moves, in order) to find what the
rules force at that moment, whatever the engine does:
- a table break must move every player at the broken table, and no fewer than the
  smallest table holds at that moment;
- a balancing move is needed only while the largest and smallest tables differ by
  two or more, and must leave from a largest table: one such move counts one,
  any other move counts nothing;
- the final-table draw must bring everyone not already at the largest table.
The ratio is the engine's moves over that minimum (target 1.0).

    uv run python bench/floor.py [--entrants 300000] [--seed N]

Ends with `RESULT floor_elims_per_s` and `RESULT floor_moves_ratio`. About a
minute.
"""

import argparse
import random
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.rules.floor import Floor
from tournaments.rules.payouts import PrizeStructure, payout_table
from tournaments.rules.simulation import hand_result

TABLE_SIZE = 9
STACK = 10_000
RECORD_BUSTS_PER_S = 28


class Counts:
    """Players per table, kept apart from the engine's own."""

    def __init__(self, where: dict):
        self.table_of = {player: seat.table for player, seat in where.items()}
        self.sizes: dict[int, int] = {}
        for table in self.table_of.values():
            self.sizes[table] = self.sizes.get(table, 0) + 1
        self.by_size = [set() for _ in range(TABLE_SIZE + 1)]
        for table, size in self.sizes.items():
            self.by_size[size].add(table)

    def _resize(self, table: int, delta: int) -> None:
        size = self.sizes[table]
        self.by_size[size].discard(table)
        self.sizes[table] = size + delta
        self.by_size[size + delta].add(table)

    def bust(self, player) -> None:
        self._resize(self.table_of.pop(player), -1)

    def smallest(self) -> int:
        return next(size for size, tables in enumerate(self.by_size) if tables)

    def largest(self) -> int:
        return next(size for size in range(TABLE_SIZE, -1, -1) if self.by_size[size])

    def replay(self, outcome) -> tuple[int, int]:
        """(moves made, moves the rules force) of one outcome."""
        made = forced = 0
        broken = set(outcome.broken)
        if outcome.final_table:
            forced += sum(self.sizes.values()) - self.largest()
        for table in broken:
            if not outcome.final_table:
                assert self.sizes[table] == self.smallest(), "a table broke that was not the smallest"
                forced += self.sizes[table]
        for move in outcome.moves:
            if move.source.table == move.target.table:
                continue
            made += 1
            if move.source.table not in broken and not outcome.final_table:
                imbalance = self.largest() - self.smallest() >= 2
                forced += imbalance and self.sizes[move.source.table] == self.largest()
            self._resize(move.source.table, -1)
            self._resize(move.target.table, +1)
            self.table_of[move.player] = move.target.table
        for table in broken:
            assert self.sizes[table] == 0
            self.by_size[0].discard(table)
            del self.sizes[table]
        return made, forced


class Playing:
    """The tables with a hand in play, for an O(1) random pick."""

    def __init__(self):
        self.items: list[int] = []
        self.index: dict[int, int] = {}

    def add(self, table: int) -> None:
        if table not in self.index:
            self.index[table] = len(self.items)
            self.items.append(table)

    def remove(self, table: int) -> None:
        position = self.index.pop(table, None)
        if position is None:
            return
        last = self.items.pop()
        if last != table:
            self.items[position] = last
            self.index[last] = position


def run(entrants: int, seed: int) -> dict:
    rng = random.Random(seed)
    payouts = payout_table(structure=PrizeStructure.STANDARD, entrants=entrants, pool=entrants * 1000, seat_value=None)
    started = time.perf_counter()
    floor = Floor.drawn(
        dict.fromkeys(range(entrants), STACK), table_size=TABLE_SIZE, rng=random.Random(seed), payouts=payouts
    )
    outcome = floor.start()
    draw_s = time.perf_counter() - started
    counts = Counts(floor.where)
    playing = Playing()
    for deal in outcome.deals:
        playing.add(deal.table)
    tables_at_start = len(floor.tables)
    engine_s = 0.0
    hands = moves = forced = breaks = synchronised = placed = 0
    clock = time.perf_counter
    while not floor.over:
        table = playing.items[rng.randrange(len(playing.items))]
        players = floor.tables[table].seats.values()
        after = hand_result({player: floor.stacks[player] for player in players}, rng)
        began = clock()
        outcome = floor.hand_finished(table, after)
        engine_s += clock() - began
        hands += 1
        playing.remove(table)
        for player, chips in after.items():
            if chips == 0:
                counts.bust(player)
        if outcome.finished:
            placed += len(outcome.finishes)
            break
        made, due = counts.replay(outcome)
        moves += made
        forced += due
        breaks += len(outcome.broken)
        placed += len(outcome.finishes)
        for broken in outcome.broken:
            playing.remove(broken)
        for deal in outcome.deals:
            playing.add(deal.table)
            synchronised += deal.synchronised
    assert placed == entrants, f"{placed} of {entrants} placed"
    return {
        "entrants": entrants,
        "tables": tables_at_start,
        "hands": hands,
        "synchronised": synchronised,
        "breaks": breaks,
        "moves": moves,
        "forced": forced,
        "draw_s": draw_s,
        "engine_s": engine_s,
        "wall_s": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=secrets.randbelow(10**6))
    args = parser.parse_args()
    result = run(args.entrants, args.seed)
    eliminations = result["entrants"] - 1
    per_s = eliminations / result["engine_s"]
    ratio = result["moves"] / result["forced"]
    print(f"seed {args.seed}: {result['entrants']:,} entrants at {result['tables']:,} tables of {TABLE_SIZE}")
    print(f"seat draw: {result['draw_s']:.2f} s")
    print(
        f"{result['hands']:,} hands ({result['synchronised']:,} dealt hand-for-hand), "
        f"{result['breaks']:,} tables broken, {result['moves']:,} moves ({result['forced']:,} forced by the rules)"
    )
    print(f"engine {result['engine_s']:.2f} s of {result['wall_s']:.2f} s wall")
    print(
        f"{per_s:,.0f} eliminations/s = {per_s / RECORD_BUSTS_PER_S:,.0f} x the record field's "
        f"{RECORD_BUSTS_PER_S}/s (target 100 x)"
    )
    print(f"{result['moves'] / eliminations:.3f} moves per elimination, ratio to the minimum {ratio:.3f}")
    print(f"RESULT floor_elims_per_s {per_s:.0f}")
    print(f"RESULT floor_moves_ratio {ratio:.3f}")


if __name__ == "__main__":
    main()
