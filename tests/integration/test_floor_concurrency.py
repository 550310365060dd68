"""Hands finishing at once at different tables of one tournament, on PostgreSQL:
the tournament's row lock takes them one at a time; every player out is placed
once and paid once, and the books balance (rule 12, the wallet)."""

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connections
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tournaments.models import BreakPolicyKind, Entry, Table
from tournaments.services.clock import tournament_advance
from tournaments.services.tables import floor_hand_finished

pytestmark = pytest.mark.django_db(transaction=True)


def test_busts_at_every_table_at_once_are_each_placed_and_paid_once():
    now = timezone.now()
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=now + timedelta(minutes=5),
        table_size=3,
        late_registration_minutes=0,
        break_policy=BreakPolicyKind.NONE,
        max_entrants=100,
        prize_structure="flat",
    )
    entrants(tournament, 12, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tables = list(Table.objects.filter(tournament=tournament).values_list("number", "hands"))
    results = {}
    for number, _ in tables:
        stacks = dict(
            Entry.objects.filter(table__tournament=tournament, table__number=number).values_list("pk", "chips")
        )
        loser, winner = sorted(stacks)[:2]
        results[number] = stacks | {loser: 0, winner: stacks[winner] + stacks[loser]}
    barrier = threading.Barrier(len(tables))
    errors = []

    def report(number: int, hand: int) -> None:
        try:
            barrier.wait()
            floor_hand_finished(
                tournament_id=tournament.pk, table=number, stacks=results[number], now=timezone.now(), hand=hand
            )
        except Exception as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=report, args=table) for table in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    out = Entry.objects.filter(tournament=tournament, status="eliminated").order_by("finish_best")
    assert out.count() == len(tables)
    assert sorted(entry.finish_best for entry in out) == list(range(9, 13))  # one place each, none twice
    call_command("wallet_audit", stdout=StringIO())
