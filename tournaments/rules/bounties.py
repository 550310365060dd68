"""Whose bounty goes to whom (rules 24-26; ALGORITHMS C9).

A player knocked out in a hand put his last chips into one pot: the last of the
hand's pots (main pot first, then the side pots) he was eligible for. His bounty
goes to the winners of that pot, its high hand in a hi/lo game (rule 25); shared
equally between players who split it, odd cents one at a time to the earliest
positions after the button (rule 26).
"""

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PotWinners:
    """A pot of a finished hand: the seats eligible for it and those that won its high half."""

    eligible: tuple[int, ...]
    high: tuple[int, ...]


def knockouts(pots: Sequence[PotWinners], out: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """For each seat in `out` (knocked out in the hand), the seats that won his
    relevant pot (rule 24): the last pot he was eligible for."""
    won: dict[int, tuple[int, ...]] = {}
    for seat in out:
        relevant = [pot for pot in pots if seat in pot.eligible]
        if relevant and relevant[-1].high:
            won[seat] = relevant[-1].high
    return won


def bounty_shares(amount: int, winners: Sequence[int], *, button: int, seats: Sequence[int]) -> dict[int, int]:
    """`amount` (minor units) shared by the `winners` (seats) equally; the odd cents
    one each to the winners in the earliest positions after the `button` (rule 26)."""
    if amount < 0:
        raise ValueError("a bounty cannot be negative")
    order = [seat for seat in sorted(seats) if seat > button] + [seat for seat in sorted(seats) if seat <= button]
    ranked = sorted(set(winners), key=lambda seat: order.index(seat) if seat in order else len(order) + seat)
    if not ranked:
        return {}
    share, odd = divmod(amount, len(ranked))
    return {seat: share + (1 if position < odd else 0) for position, seat in enumerate(ranked)}
