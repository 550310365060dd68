"""The floor simulator: until playable tables exist, it plays the hands the floor
deals at a simulated tournament's tables, with random results
(tournaments.rules.simulation), through the real services. Only tournaments marked
`simulated` (the demo's, tests') are touched: their prizes are paid for real."""

import random
import secrets
from datetime import datetime

from django.db import transaction

from tournaments.models import UNDER_WAY, BlindLevel, Entry, EntryStatus, Table, Tournament
from tournaments.rules.simulation import hand_result, paced_bust_chance
from tournaments.services.floor import HandReport, floor_hand_finished


def simulate_hand(
    tournament_id: int, table: int, *, now: datetime, rng: random.Random, bust_chance: float | None = 0.3
) -> HandReport | None:
    """One hand at table `table`, to its end; None if the table has no hand in play
    (broken, held, or its hand reported meanwhile) or the tournament is over.
    `bust_chance`: how often a hand busts a player; None paces it by the blinds."""
    with transaction.atomic():
        # The table's players and stacks are read under the lock the report takes: no
        # late entrant, move or other report comes between them and this hand's result.
        tournament = Tournament.objects.select_for_update(of=("self",)).get(pk=tournament_id)
        if tournament.status not in UNDER_WAY or tournament.started_at is None:
            return None
        dealt = Table.objects.filter(tournament=tournament, number=table, broken_at=None, playing=True).first()
        if dealt is None:
            return None
        stacks = dict(
            Entry.objects.filter(table=dealt, status=EntryStatus.ACTIVE).order_by("pk").values_list("pk", "chips")
        )
        if bust_chance is None:
            bust_chance = _paced(tournament, stacks)
        result = hand_result(stacks, rng, bust_chance=bust_chance)
        return floor_hand_finished(
            tournament_id=tournament_id, table=table, stacks=result, now=now, hand=dealt.hands, rng=rng
        )


def _paced(tournament: Tournament, stacks: dict[int, int]) -> float:
    levels = BlindLevel.objects.filter(structure_id=tournament.blind_structure_id)
    level = levels.filter(position__lte=max(tournament.level, 1)).order_by("-position").first()
    big_blind = level.big_blind if level else 1
    average = sum(stacks.values()) / len(stacks) if stacks else 0
    return paced_bust_chance(average_stack=average, big_blind=big_blind, deal_made=tournament.deal_play_for is not None)


def playing_tables(tournament_id: int) -> list[int]:
    return list(
        Table.objects.filter(tournament_id=tournament_id, broken_at=None, playing=True).values_list("number", flat=True)
    )


def simulate_round(*, now: datetime, rng: random.Random | None = None, bust_chance: float | None = None) -> int:
    """Every table of every simulated tournament in play finishes the hand it is
    playing (the demo's beat runs this every few seconds), busting players at the
    pace of the blinds unless `bust_chance` says otherwise. Returns the hands played."""
    rng = rng or secrets.SystemRandom()
    hands = 0
    for tournament_id in Tournament.objects.filter(simulated=True, status__in=UNDER_WAY).values_list("pk", flat=True):
        for table in playing_tables(tournament_id):
            # A hand played a moment ago may have broken this table, or held it: then nothing is played.
            if simulate_hand(tournament_id, table, now=now, rng=rng, bust_chance=bust_chance) is not None:
                hands += 1
    return hands
