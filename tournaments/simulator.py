"""The floor simulator: until playable tables exist, it plays the hands the floor
deals at a simulated tournament's tables, with random results
(tournaments.rules.simulation), through the real services. Only tournaments marked
`simulated` (the demo's, tests') are touched: their prizes are paid for real."""

import random
import secrets
from datetime import datetime

from tournaments.models import UNDER_WAY, Entry, EntryStatus, Table, Tournament
from tournaments.rules.simulation import hand_result
from tournaments.services.floor import HandReport, floor_hand_finished


def simulate_hand(
    tournament_id: int, table: int, *, now: datetime, rng: random.Random, bust_chance: float = 0.3
) -> HandReport:
    """One hand at table `table` (which must have one in play), to its end."""
    hand = Table.objects.get(tournament_id=tournament_id, number=table, broken_at=None).hands
    stacks = dict(
        Entry.objects.filter(
            table__tournament_id=tournament_id, table__number=table, table__broken_at=None, status=EntryStatus.ACTIVE
        ).values_list("pk", "chips")
    )
    result = hand_result(stacks, rng, bust_chance=bust_chance)
    return floor_hand_finished(tournament_id=tournament_id, table=table, stacks=result, now=now, hand=hand, rng=rng)


def playing_tables(tournament_id: int) -> list[int]:
    return list(
        Table.objects.filter(tournament_id=tournament_id, broken_at=None, playing=True).values_list("number", flat=True)
    )


def simulate_round(*, now: datetime, rng: random.Random | None = None, bust_chance: float = 0.15) -> int:
    """Every table of every simulated tournament in play finishes the hand it is
    playing (the demo's beat runs this every few seconds). Returns the hands played."""
    rng = rng or secrets.SystemRandom()
    hands = 0
    for tournament_id in Tournament.objects.filter(simulated=True, status__in=UNDER_WAY).values_list("pk", flat=True):
        for table in playing_tables(tournament_id):
            # A hand played a moment ago may have broken this table, or held it.
            if table in playing_tables(tournament_id):
                simulate_hand(tournament_id, table, now=now, rng=rng, bust_chance=bust_chance)
                hands += 1
    return hands
