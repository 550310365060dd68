"""How long does ICM take for a final table of 10 players, and for 20?

Pure Python, no database, no server: `deals.rules.icm` (Malmuth-Harville by dynamic
programming over the sets of players already placed; ALGORITHMS C7) as staff call it
to show a deal (rule 23). The stacks are a fixed seeded draw of a 180-entrant field's
chips (10,000 each at the start); the prizes are places 1 to N of that field's
standard payout table, so every player left is paid: the most places, the most work
(20 players with 20 places is the dynamic programme's worst case up to 20).

Each call is timed alone with perf_counter; the median is reported. Also printed:
the fastest and slowest call, `icm_split` (ICM plus the largest-remainder rounding
to minor units), and the exact-fraction `icm_exact` once for 10 players. The results
are checked (equities add up to the prizes, the split adds up exactly, floats agree
with the fractions); a failed check fails the run (exit status 1).

    uv run python bench/icm.py [--runs 200] [--runs20 3]

Ends with `RESULT icm10_ms` (target: <= 5 ms) and `RESULT icm20_ms`. About 15 s.
"""

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path: the project's root instead.
    sys.path[0] = str(ROOT)

from deals.rules import icm, icm_exact, icm_split  # noqa: E402
from tournaments.rules.payouts import PrizeStructure, payout_table  # noqa: E402

ENTRANTS = 180
STARTING_CHIPS = 10_000
BUY_IN = 10_000  # 100.00 a head into the pool


def final_table(players: int, seed: int) -> tuple[list[int], list[int]]:
    """Stacks of `players` left in the field (all the chips, unevenly) and the prizes of places 1 to `players`."""
    rng = random.Random(seed)
    weights = [rng.paretovariate(1.5) for _ in range(players)]
    chips = ENTRANTS * STARTING_CHIPS
    stacks = [max(1, int(chips * weight / sum(weights))) for weight in weights]
    stacks[0] += chips - sum(stacks)
    prizes = payout_table(structure=PrizeStructure.STANDARD, entrants=ENTRANTS, pool=ENTRANTS * BUY_IN)
    return stacks, prizes[:players]


def timed(call: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds of each of `runs` calls."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    return times


def describe(name: str, times: list[float]) -> str:
    return (
        f"{name}: median {statistics.median(times):.2f} ms, fastest {min(times):.2f} ms,"
        f" slowest {max(times):.2f} ms over {len(times)} calls"
    )


def check(stacks: list[int], prizes: list[int], *, exact: bool) -> list[str]:
    """What is wrong with the results for this table, if anything."""
    problems = []
    equities = icm(stacks, prizes)
    if abs(sum(equities) - sum(prizes)) > 1e-6 * sum(prizes):
        problems.append(f"equities add up to {sum(equities)}, not {sum(prizes)}")
    if sum(icm_split(stacks, prizes)) != sum(prizes):
        problems.append("icm_split does not add up to the prizes")
    if exact:
        worst = max(abs(float(e) - f) for e, f in zip(icm_exact(stacks, prizes), equities, strict=True))
        if worst > 1e-9 * sum(prizes):
            problems.append(f"floats differ from the exact fractions by {worst}")
    return problems


def bench(args: argparse.Namespace) -> int:
    results = {}
    problems = []
    for players, runs in ((10, args.runs), (20, args.runs20)):
        stacks, prizes = final_table(players, seed=players)
        print(f"{players} players, {len(prizes)} places paid: stacks {stacks}; prizes {prizes}")
        icm(stacks, prizes)  # warm up
        times = timed(lambda stacks=stacks, prizes=prizes: icm(stacks, prizes), runs)
        print("  " + describe("icm", times))
        if players == 10:
            split = timed(lambda stacks=stacks, prizes=prizes: icm_split(stacks, prizes), runs)
            print("  " + describe("icm_split", split))
            exact = timed(lambda stacks=stacks, prizes=prizes: icm_exact(stacks, prizes), 1)
            print(f"  icm_exact: {exact[0]:.1f} ms once")
        problems += [f"{players} players: {problem}" for problem in check(stacks, prizes, exact=players == 10)]
        results[players] = statistics.median(times)
    for problem in problems:
        print(f"FAILED {problem}")
    target = "met" if results[10] <= 5 else "MISSED"
    print(f"icm for 10 players: {results[10]:.2f} ms (target <= 5 ms: {target}); for 20: {results[20]:.0f} ms")
    print(f"RESULT icm10_ms {results[10]:.2f}")
    print(f"RESULT icm20_ms {results[20]:.0f}")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="calls timed for 10 players")
    parser.add_argument("--runs20", type=int, default=3, help="calls timed for 20 players (seconds each)")
    return bench(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
