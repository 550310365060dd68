"""Prize pool and payout tables (rules 7, 11).

Money is in minor units. Every split ends with a largest-remainder rounding and an
exact sum check, so the places always add up to the pool.
"""

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
    weight_sum = sum(weights)
    if total < 0 or weight_sum <= 0:
        raise ValueError("cannot split a negative total or by zero weights")
    exact = [total * w / weight_sum for w in weights]
    parts = [int(x) for x in exact]
    leftover = total - sum(parts)
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in by_remainder[:leftover]:
        parts[i] += 1
    assert sum(parts) == total
    return parts


def payout_table(*, structure: PrizeStructure, entrants: int, pool: int, seat_value: int | None = None) -> list[int]:
    """Prize of each paid place, first place first; sums exactly to `pool`."""
    if entrants <= 0 or pool <= 0:
        return []
    if structure is PrizeStructure.SATELLITE:
        return _satellite_table(pool=pool, seat_value=seat_value)
    paid = places_paid(structure, entrants)
    if paid == 1:
        return [pool]
    steepness = CURVES[structure].steepness
    weights = [Fraction(1) / _power(place, steepness) for place in range(1, paid + 1)]
    return largest_remainder(pool, weights)


def _satellite_table(*, pool: int, seat_value: int | None) -> list[int]:
    if not seat_value or seat_value <= 0:
        return [pool]
    seats, rest = divmod(pool, seat_value)
    table = [seat_value] * seats
    if rest:
        table.append(rest)
    return table


def _power(base: int, exponent: Fraction) -> Fraction:
    # Fractional exponents go through float once; the weights only need to be ordered
    # and proportional, the exact split comes from largest_remainder.
    if exponent.denominator == 1:
        return Fraction(base) ** exponent.numerator
    return Fraction(float(base) ** float(exponent))
