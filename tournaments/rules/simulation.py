"""Random hand results for the floor simulator and bench/floor.py: until playable
tables exist, something has to move chips and bust players."""

import random
from collections.abc import Hashable, Mapping


def hand_result(stacks: Mapping[Hashable, int], rng: random.Random, *, bust_chance: float = 0.3) -> dict[Hashable, int]:
    """Every player's stack after one random hand at a table: one player wins chips
    from one other; often the loser is all in and out, now and then a second player
    busts in the same hand (rule 12's groups). Chips are conserved."""
    after = dict(stacks)
    if len(after) < 2:
        return after
    winner, loser = rng.sample(list(after), 2)
    if rng.random() < bust_chance:
        lost = after[loser]
        if len(after) > 2 and rng.random() < 0.1:
            second = rng.choice([player for player in after if player not in (winner, loser)])
            after[winner] += after[second]
            after[second] = 0
    else:
        lost = rng.randint(1, max(1, after[loser] // 2))
    after[loser] -= lost
    after[winner] += lost
    return after


# How often a hand busts somebody at most: stacks short against the blinds, or a deal made.
MOST_BUSTS = 0.3
# A table loses a player about once in this many big blinds of its average stack's hands:
# rarely while stacks are deep, more as the blinds catch up with them, as in a real room.
BUSTS_PER_BIG_BLIND = 2.0


def paced_bust_chance(*, average_stack: float, big_blind: int, deal_made: bool = False) -> float:
    """How often a simulated hand busts a player, paced by the blinds so that an event
    lasts about as long as its structure says (a deepstack event for hours). After a
    deal little is left to play for: the players go all in."""
    if deal_made or average_stack <= 0:
        return MOST_BUSTS
    return min(MOST_BUSTS, BUSTS_PER_BIG_BLIND * big_blind / average_stack)
