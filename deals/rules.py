"""What each player gets in a deal (rule 23; ALGORITHMS C7).

When every player left at the final table agrees, the prize money still to be won
is shared out now (rule 23.1) and play goes on for what was left to play for: an
amount the room may require, taken off the first prize and won by the eventual
winner (rule 23.5). Staff do not negotiate (rule 23.4); they show the players the
usual ways to share and check that a proposal adds up:

- ICM (Malmuth-Harville): a player finishes first with a chance equal to their share
  of the chips, and each following place goes the same way among the players not
  yet placed. A player's amount is their expected prize.
- Chip chop: everyone gets the lowest prize still to be won, the rest by chips.
- Equal split: the same amount for everyone.

A deal shares the prizes of places 1 to N, N being the players in it (fewer prizes
than players: the other places pay nothing), first place first. Money is in integer
minor units; each split ends with one largest-remainder rounding and an exact sum:
the amounts plus the amount left to play for are the prizes, to the minor unit.
"""

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

# Leftover units go by remainders rounded to 2^-32 of a minor unit (C7), so that
# shares which only float noise tells apart tie and the tie goes by index. This holds
# while the noise (about 1e-16 of an amount) stays under the step: amounts up to
# about a million minor units. Equal stacks never rely on it (their equities are equal).
STEPS = 2**32


# ICM


def icm(stacks: Sequence[int], prizes: Sequence[int]) -> list[float]:
    """Each player's expected prize under Malmuth-Harville, in floats: fast, exact
    to about 1e-12 of the prizes. Players with equal stacks get exactly equal
    equities; those without chips take the lowest places and split their prizes."""
    _check_table(stacks, prizes)
    return _equities(stacks, prizes, one=1.0)


def icm_exact(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """`icm` in exact fractions, for checking it: far slower than `icm`, so a check
    and never the portal's own answer."""
    _check_table(stacks, prizes)
    return _equities(stacks, prizes, one=Fraction(1))


def _equities[Number: (float, Fraction)](stacks: Sequence[int], prizes: Sequence[int], *, one: Number) -> list[Number]:
    """The equities of a checked table; its prizes may increase (see `icm_split`)."""
    table = [*prizes, *[0] * (len(stacks) - len(prizes))]
    live = [player for player, chips in enumerate(stacks) if chips > 0]
    equities = [one * 0] * len(stacks)
    busted = len(stacks) - len(live)
    if busted:
        # Out of chips means out first: the lowest places, shared alike.
        bottom = one * Fraction(sum(table[len(live) :]), busted)
        for player, chips in enumerate(stacks):
            if not chips:
                equities[player] = bottom
    table = table[: len(live)]
    # Everyone is sure of the lowest prize of their places; only the rest is in play.
    # Places that pay no more than that need no work, and equal prizes stay exact.
    floor = min(table)
    excess = [prize - floor for prize in table]
    while excess and not excess[-1]:
        excess.pop()
    for player, share in zip(live, _harville([stacks[p] for p in live], excess, one), strict=True):
        equities[player] = one * floor + share
    # Equal stacks have the same chances, but the sums run in different orders:
    # averaging makes their float equities equal to the last bit.
    for players in _equal_stacks(stacks):
        average = sum((equities[p] for p in players), one * 0) / len(players)
        for player in players:
            equities[player] = average
    return equities


def _harville[Number: (float, Fraction)](stacks: list[int], prizes: list[int], one: Number) -> list[Number]:
    """Expected prizes of players who all have chips, for places 1 to len(prizes).

    Dynamic programming over the sets of players placed so far, smallest first
    (O(n * sum of C(n, k) for k < places)): `weight[A]` is the chance that the
    players of A took the top |A| places in some order, over the chips of everyone
    else. Times a remaining player's stack, it is their chance to take the next place.
    """
    total = sum(stacks)
    stack_of = {1 << player: chips for player, chips in enumerate(stacks)}
    won = dict.fromkeys(stack_of, one * 0)
    weight = {0: one / total}
    placed = {0: 0}
    for place, prize in enumerate(prizes, start=1):
        needed_after = place < len(prizes)
        for mask in _sets_of(place, len(stacks)):
            reached = one * 0
            rest = mask
            while rest:
                bit = rest & -rest
                rest ^= bit
                # The others of `mask` took the places above, then this player this one.
                chance = weight[mask ^ bit] * stack_of[bit]
                reached += chance
                won[bit] += chance * prize
            if needed_after:
                # `bit` is the last player of `mask`: the others' chips are known.
                placed[mask] = placed[mask ^ bit] + stack_of[bit]
                weight[mask] = reached / (total - placed[mask])
    return [won[1 << player] for player in range(len(stacks))]


def _sets_of(size: int, players: int) -> Iterator[int]:
    """Every set of `size` of `players` as a bit mask, in increasing order (Gosper's hack)."""
    if size == 0:
        yield 0
        return
    mask, end = (1 << size) - 1, 1 << players
    while mask < end:
        yield mask
        low = mask & -mask
        ripple = mask + low
        mask = ripple | (((ripple ^ mask) >> 2) // low)


def _equal_stacks(stacks: Sequence[int]) -> list[list[int]]:
    """Players sharing a stack with someone else, grouped by stack."""
    groups: dict[int, list[int]] = {}
    for player, chips in enumerate(stacks):
        groups.setdefault(chips, []).append(player)
    return [players for players in groups.values() if len(players) > 1]


# Rounding


def largest_remainder(shares: Sequence[int | float | Fraction], total: int) -> list[int]:
    """`total` minor units in proportion to `shares`, adding up exactly.

    Each part is its exact share rounded down; the units left over go one each to
    the largest fractions of a unit, compared in 2^-32 steps so that float noise
    decides nothing, ties to the lowest index: the same split every time.
    """
    weights = [Fraction(share) for share in shares]
    if total < 0 or (total and not any(weights)) or any(weight < 0 for weight in weights):
        raise ValueError("cannot split a negative total or by zero or negative shares")
    if not total:
        return [0] * len(weights)
    # Integers over a common denominator: exact, and fast for floats (powers of two).
    common = math.lcm(*(weight.denominator for weight in weights))
    scaled = [weight.numerator * (common // weight.denominator) for weight in weights]
    weight_sum = sum(scaled)
    split = [divmod(total * weight, weight_sum) for weight in scaled]
    parts = [quotient for quotient, _ in split]
    # Rounded to the nearest step: mathematically equal halves and quarters that
    # float noise puts either side of the exact value still tie.
    steps = [(2 * remainder * STEPS + weight_sum) // (2 * weight_sum) for _, remainder in split]
    leftover = total - sum(parts)
    for index in sorted(range(len(parts)), key=lambda i: (-steps[i], i))[:leftover]:
        parts[index] += 1
    assert sum(parts) == total
    return parts


def _by_chips_first(shares: Sequence[int | float | Fraction], total: int, stacks: Sequence[int]) -> list[int]:
    """`largest_remainder` with ties to the bigger stack, then the lower index: one
    more chip never costs a player the leftover unit."""
    order = sorted(range(len(stacks)), key=lambda player: -stacks[player])
    parts = largest_remainder([shares[player] for player in order], total)
    amounts = [0] * len(stacks)
    for player, part in zip(order, parts, strict=True):
        amounts[player] = part
    return amounts


# Splits


def icm_split(stacks: Sequence[int], prizes: Sequence[int], play_for: int = 0) -> list[int]:
    """Each player's ICM equity in minor units; they add up to the prizes less `play_for`."""
    table = _deal_table(stacks, prizes, play_for)
    # Not `icm`: with much left to play for, first place may pay less than second.
    return _by_chips_first(_equities(stacks, table, one=1.0), sum(table), stacks)


def chip_chop(stacks: Sequence[int], prizes: Sequence[int], play_for: int = 0) -> list[int]:
    """Everyone gets the lowest prize still to be won, the rest goes by chips; the
    amounts add up to the prizes less `play_for`."""
    table = _deal_table(stacks, prizes, play_for)
    floor = min([*table, *[0] * (len(stacks) - len(table))])
    rest = sum(table) - floor * len(stacks)
    return [floor + part for part in _by_chips_first(stacks, rest, stacks)]


def equal_split(stacks: Sequence[int], prizes: Sequence[int], play_for: int = 0) -> list[int]:
    """The prizes less `play_for` in equal parts; an odd minor unit to the lower index."""
    table = _deal_table(stacks, prizes, play_for)
    return largest_remainder([1] * len(stacks), sum(table))


# Custom deals


@dataclass(frozen=True, slots=True)
class Comparison:
    """One player's amount in a proposed deal, beside what ICM and a chip chop give."""

    amount: int
    icm: int
    chip_chop: int

    @property
    def over_icm(self) -> int:
        return self.amount - self.icm


class AmountsDoNotAddUp(ValueError):
    """Custom amounts whose sum is not what the deal shares (all in minor units)."""

    def __init__(self, message: str, *, proposed: int, to_share: int, prizes: int, play_for: int) -> None:
        super().__init__(message)
        self.proposed, self.to_share, self.prizes, self.play_for = proposed, to_share, prizes, play_for


def check_custom(amounts: Sequence[int], prizes: Sequence[int], play_for: int = 0) -> None:
    """Refuse amounts that are not a deal of these prizes: one amount a player, none
    negative, adding up to the prizes less `play_for` exactly (AmountsDoNotAddUp)."""
    if len(amounts) < len(prizes):
        raise ValueError(f"{len(amounts)} amounts for {len(prizes)} prizes: every player in the deal needs an amount")
    _check_play_for(prizes, play_for)
    if any(amount < 0 for amount in amounts):
        raise ValueError("an amount cannot be negative")
    to_share = sum(prizes) - play_for
    proposed = sum(amounts)
    if proposed != to_share:
        gap = f"{_money(abs(proposed - to_share))} {'too much' if proposed > to_share else 'short'}"
        raise AmountsDoNotAddUp(
            f"the amounts add up to {_money(proposed)} but the deal shares {_money(to_share)}"
            f" (prizes {_money(sum(prizes))} less {_money(play_for)} to play for): {gap}",
            proposed=proposed,
            to_share=to_share,
            prizes=sum(prizes),
            play_for=play_for,
        )


def compare(stacks: Sequence[int], prizes: Sequence[int], play_for: int, amounts: Sequence[int]) -> list[Comparison]:
    """Each player's proposed amount beside their ICM and chip-chop amounts, for
    staff to show side by side; the amounts are checked first."""
    if len(amounts) != len(stacks):
        raise ValueError(f"{len(amounts)} amounts for {len(stacks)} players: one amount a player")
    check_custom(amounts, prizes, play_for)
    by_icm = icm_split(stacks, prizes, play_for)
    by_chips = chip_chop(stacks, prizes, play_for)
    return [Comparison(*line) for line in zip(amounts, by_icm, by_chips, strict=True)]


# Checks


def _deal_table(stacks: Sequence[int], prizes: Sequence[int], play_for: int) -> list[int]:
    """The prizes the deal shares: `play_for` stays on the first prize, in play."""
    _check_table(stacks, prizes)
    _check_play_for(prizes, play_for)
    return [prizes[0] - play_for, *prizes[1:]]


def _check_table(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    if not prizes:
        raise ValueError("a deal shares at least one prize")
    if len(prizes) > len(stacks):
        raise ValueError(
            f"{len(prizes)} prizes for {len(stacks)} players: a deal shares the prizes of places 1 to {len(stacks)}"
        )
    if any(chips < 0 for chips in stacks):
        raise ValueError("a chip count cannot be negative")
    if not any(stacks):
        raise ValueError("at least one player in a deal has chips")
    if any(prize < 0 for prize in prizes):
        raise ValueError("a prize cannot be negative")
    if any(after > before for before, after in itertools.pairwise(prizes)):
        raise ValueError("prizes go first place first and never increase")


def check_room_minimum(play_for: int, required: int) -> None:
    """Rule 23.5: the room may require an amount left for the eventual winner (shown
    in the lobby); a deal may leave more, never less."""
    if play_for < required:
        raise ValueError(
            f"the room requires at least {_money(required)} left to play for, as the lobby shows,"
            f" not {_money(play_for)}"
        )


def _check_play_for(prizes: Sequence[int], play_for: int) -> None:
    if not prizes:
        raise ValueError("a deal shares at least one prize")
    if not 0 <= play_for <= prizes[0]:
        raise ValueError(
            f"the amount left to play for must be between 0 and the first prize ({_money(prizes[0])}),"
            f" not {_money(play_for)}"
        )


def _money(amount: int) -> str:
    """Minor units as currency units for a message: 123456 -> "1,234.56"."""
    units, cents = divmod(abs(amount), 100)
    return f"{'-' if amount < 0 else ''}{units:,}.{cents:02d}"
