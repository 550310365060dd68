"""Prize pool and payout tables (rules 7, 11).

Money is in minor units. Every split ends with a largest-remainder rounding and an
exact sum check, so the places always add up to the pool. Prizes are whole currency
units (ALGORITHMS C8: round each prize down, the remainder to first place) whenever
the pool gives every paid place at least one unit.
"""

import functools
import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction


class PrizeStructure(StrEnum):
    STANDARD = "standard"
    TOP_HEAVY = "top_heavy"
    FLAT = "flat"
    WINNER_TAKES_ALL = "winner_takes_all"
    # Satellites: equal seats of the target's buy-in, the rest to the next place.
    SATELLITE = "satellite"


@dataclass(frozen=True, slots=True)
class Curve:
    paid_share: Fraction  # share of the entrants that is paid
    steepness: Fraction  # prize of place k is proportional to 1 / k**steepness


# Minor units in one unit of every currency the room uses (EUR, USD, DKK, T-Money).
CURRENCY_UNIT = 100

CURVES = {
    PrizeStructure.STANDARD: Curve(Fraction(15, 100), Fraction(1)),
    PrizeStructure.TOP_HEAVY: Curve(Fraction(10, 100), Fraction(13, 10)),
    PrizeStructure.FLAT: Curve(Fraction(20, 100), Fraction(7, 10)),
}


def prize_pool(*, contributions: int, guarantee: int) -> int:
    """What is paid out: the entries' prize parts, or the guarantee if larger (overlay)."""
    return max(contributions, guarantee)


def places_paid(structure: PrizeStructure, entrants: int) -> int:
    if entrants <= 0:
        return 0
    if structure is PrizeStructure.WINNER_TAKES_ALL or entrants <= 3:
        return 1
    curve = CURVES[structure]
    share = max(1, int(curve.paid_share * entrants))
    # Small fields: at least two places from 4 entrants, three from 7.
    floor = 2 if entrants < 7 else 3
    return min(entrants - 1, max(share, floor))


def largest_remainder(total: int, weights: list[Fraction]) -> list[int]:
    """Split `total` minor units in proportion to `weights`, exactly.

    Each part is rounded down, then the leftover units go one by one to the
    largest remainders (ties to the earlier part).
    """
    scaled, weight_sum = _scaled(total, weights)
    split = [divmod(total * weight, weight_sum) for weight in scaled]
    parts = [quotient for quotient, _ in split]
    leftover = total - sum(parts)
    by_remainder = sorted(range(len(split)), key=lambda i: (-split[i][1], i))
    for i in by_remainder[:leftover]:
        parts[i] += 1
    assert sum(parts) == total
    return parts


def rounded_down_to_first(total: int, weights: list[Fraction], unit: int) -> list[int]:
    """Split `total` in proportion to `weights` with every part but the first rounded
    down to a multiple of `unit`; the first part takes what that leaves (C8).

    For weights that never increase the parts never increase either: rounding down
    keeps the order of the others, and the first only gains.
    """
    scaled, weight_sum = _scaled(total, weights)
    rest = [total * weight // weight_sum // unit * unit for weight in scaled[1:]]
    parts = [total - sum(rest), *rest]
    assert sum(parts) == total
    return parts


def _scaled(total: int, weights: list[Fraction]) -> tuple[list[int], int]:
    """The weights as integers over a common denominator, and their sum."""
    fractions = [Fraction(w) for w in weights]
    if total < 0 or not any(fractions) or any(w < 0 for w in fractions):
        raise ValueError("cannot split a negative total or by zero or negative weights")
    # Integer arithmetic on a common denominator: exact whatever the weights are
    # (integer chip counts divided as floats would lose units on large totals), and
    # fast, where summing a thousand Fractions reduces each partial sum.
    common = math.lcm(*(w.denominator for w in fractions))
    scaled = [w.numerator * (common // w.denominator) for w in fractions]
    return scaled, sum(scaled)


def payout_table(
    *,
    structure: PrizeStructure,
    entrants: int,
    pool: int,
    seat_value: int | None = None,
    unit: int = CURRENCY_UNIT,
) -> list[int]:
    """Prize of each paid place, first place first; sums exactly to `pool` and never
    increases from one place to the next.

    When the pool gives every paid place at least one `unit`, each prize but the
    first is a whole number of units and first place takes the remainder; a smaller
    pool is split to the minor unit, every place getting at least one minor unit
    while the pool has one for each.
    """
    return list(_payout_table(structure, entrants, pool, seat_value, unit))


# The floor asks for the table each time a player is out, and the answer only changes
# with the entrants or the pool; a big field's table is costly to work out.
@functools.lru_cache(maxsize=256)
def _payout_table(
    structure: PrizeStructure, entrants: int, pool: int, seat_value: int | None, unit: int
) -> tuple[int, ...]:
    return tuple(_payouts(structure=structure, entrants=entrants, pool=pool, seat_value=seat_value, unit=unit))


def _payouts(*, structure: PrizeStructure, entrants: int, pool: int, seat_value: int | None, unit: int) -> list[int]:
    if entrants <= 0 or pool <= 0:
        return []
    if structure is PrizeStructure.SATELLITE:
        return _satellite_table(pool=pool, seat_value=seat_value)
    paid = places_paid(structure, entrants)
    if paid == 1:
        return [pool]
    steepness = CURVES[structure].steepness
    weights = [_weight(place, steepness) for place in range(1, paid + 1)]
    if pool >= paid * unit:
        return _in_whole_units(pool, weights, unit)
    prizes = largest_remainder(pool, weights)
    if prizes[-1] == 0 and pool >= paid:
        # Every paid place cashes: a small pool spread over many places rounds the
        # bottom shares down to nothing, so then each place first gets one minor unit
        # and the rest is split by the curve. Still non-increasing and exact.
        prizes = [1 + part for part in largest_remainder(pool - paid, weights)]
    return prizes


def _in_whole_units(pool: int, weights: list[Fraction], unit: int) -> list[int]:
    """Whole units for places 2.. and the remainder to first; pool >= places * unit.

    Should the curve round a bottom place down to nothing, each place first gets one
    unit and the rest is split by the curve, as for small pools above.
    """
    prizes = rounded_down_to_first(pool, weights, unit)
    if prizes[-1] == 0:
        floor = unit * len(weights)
        prizes = [unit + part for part in rounded_down_to_first(pool - floor, weights, unit)]
    assert sum(prizes) == pool
    return prizes


def _satellite_table(*, pool: int, seat_value: int | None) -> list[int]:
    if not seat_value or seat_value <= 0:
        return [pool]
    seats, rest = divmod(pool, seat_value)
    table = [seat_value] * seats
    if rest:
        table.append(rest)
    return table


def _weight(place: int, steepness: Fraction) -> Fraction:
    """The curve's share of `place`, 1 / place**steepness, up to a common factor."""
    if steepness.denominator == 1:
        return Fraction(1, place**steepness.numerator)
    # Fractional exponents go through float once; the weights only need to be ordered
    # and proportional, the exact split comes from largest_remainder. Take the float
    # of the weight itself, not 1 / Fraction(float): a float's Fraction has a
    # power-of-two denominator, so the common denominator of a thousand places stays
    # small, where the inverses' odd denominators multiply out (seconds per table).
    return Fraction(float(place) ** -float(steepness))
