"""Finishing places and their prizes (rule 12; ALGORITHMS C5).

Players out in the same hand (in hand-for-hand, the same synchronised hand across
tables: rule 13) are one bust group. They take the worst places still open: more
chips at the start of that hand, the better place; equal chips share the places they
cover and split those places' prizes equally. An odd minor unit of a split goes one
each to the tied players in ascending order of their key (the services pass entry
ids), so a split is the same however often it is computed.
"""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finish[P: Hashable]:
    player: P
    # The places this player's group covers: one place, or several shared by equal stacks.
    best: int
    worst: int

    @property
    def shared(self) -> bool:
        return self.best != self.worst


def bust_places[P: Hashable](starting_chips: Mapping[P, int], *, players_left: int) -> list[Finish[P]]:
    """The places of a bust group: `starting_chips` is each busted player's stack at
    the start of the hand, `players_left` how many were still in before it. Best
    place first."""
    ranked = sorted(starting_chips.items(), key=lambda item: -item[1])
    finishes = []
    place = players_left - len(ranked) + 1  # the group's best place
    index = 0
    while index < len(ranked):
        chips = ranked[index][1]
        tied = [player for player, stack in ranked[index:] if stack == chips]
        finishes += [Finish(player, place, place + len(tied) - 1) for player in tied]
        place += len(tied)
        index += len(tied)
    return finishes


def prizes[P: Hashable](finishes: Sequence[Finish[P]], payouts: Sequence[int]) -> dict[P, int]:
    """What each finisher wins: the prizes of the places their tie covers (nothing past
    the paid places), split equally, odd minor units by ascending player key.
    Nothing is created or lost: the amounts sum to the places' prizes."""
    won: dict[P, int] = {}
    groups: dict[tuple[int, int], list[P]] = {}
    for finish in finishes:
        groups.setdefault((finish.best, finish.worst), []).append(finish.player)
    for (best, worst), players in groups.items():
        total = sum(payouts[place - 1] for place in range(best, worst + 1) if place <= len(payouts))
        share, odd = divmod(total, len(players))
        # The keys of one call are of one orderable kind (entry ids), which Hashable cannot say.
        for rank, player in enumerate(sorted(players)):  # type: ignore[type-var]
            won[player] = share + (1 if rank < odd else 0)
    return won
