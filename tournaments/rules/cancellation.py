"""Cancellation after the start: rolling the prize pool forward (rule 22; ALGORITHMS C10).

Before the money, half the pool is shared equally among the remaining players and
half by chip count. In the money (no more players left than places paid), each
remaining player first receives the lowest prize not yet awarded, and the rest of
the pool goes by chip count. Fees are refunded apart from this, by the service.

Money is in minor units; one largest-remainder rounding per split, exact sums.
"""

from fractions import Fraction

from tournaments.rules.payouts import largest_remainder


def roll_forward(*, pool: int, chips: dict[int, int], payouts: list[int]) -> dict[int, int]:
    """Each remaining player's share of what is left in the prize pool.

    `pool` is what the pool still holds (prizes already paid to eliminated players
    are gone from it), `chips` the remaining players' stacks by player id, `payouts`
    the event's payout table, first place first. The shares add up to `pool`
    exactly, and a player with more chips never gets less than one with fewer.
    """
    if pool < 0:
        raise ValueError("a prize pool cannot be negative")
    if any(stack < 0 for stack in chips.values()):
        raise ValueError("a chip count cannot be negative")
    if not chips:
        if pool:
            raise ValueError("no remaining player to receive the prize pool")
        return {}
    # Player ids in order: ties in the rounding go to the lower id, the same every time.
    players = sorted(chips)
    remaining = len(players)
    stacks = [chips[player] for player in players]
    total_chips = sum(stacks)
    if remaining <= len(payouts):
        floor = payouts[remaining - 1]
        rest = pool - floor * remaining
        if rest < 0:
            raise ValueError("the pool holds less than the remaining players' lowest prizes")
        shares = [floor + part for part in _by_chips(rest, stacks)]
    else:
        # Half equally, half by chips, rounded once: each weight is 1/2n + c/2C.
        weights = [
            Fraction(1, 2 * remaining)
            + (Fraction(stack, 2 * total_chips) if total_chips else Fraction(1, 2 * remaining))
            for stack in stacks
        ]
        shares = largest_remainder(pool, weights)
    assert sum(shares) == pool
    return dict(zip(players, shares, strict=True))


def _by_chips(total: int, stacks: list[int]) -> list[int]:
    """`total` split by chip count; equally if nobody has a chip."""
    if not any(stacks):
        return largest_remainder(total, [Fraction(1)] * len(stacks))
    return largest_remainder(total, [Fraction(stack) for stack in stacks])
