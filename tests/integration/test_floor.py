"""The floor at the start: the seat draw, the first buttons, late entrants' seats,
and the tables on Tournament Info (rules 4, 5, 9)."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tournaments.clock import tournament_advance
from tournaments.models import BreakPolicyKind, Entry, Table

pytestmark = pytest.mark.django_db


def started(count: int, **fields):
    now = timezone.now()
    fields = {"table_size": 6, "break_policy": BreakPolicyKind.NONE, "max_entrants": 100} | fields
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=now + timedelta(minutes=5), **fields
    )
    entrants(tournament, count, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tournament.refresh_from_db()
    return tournament


def test_the_start_draws_everyone_to_even_tables_with_a_button_each():
    tournament = started(14)

    entries = Entry.objects.filter(tournament=tournament)
    assert all(entry.table_id and entry.seat for entry in entries)
    assert sorted(Counter(entry.table.number for entry in entries).values()) == [4, 5, 5]
    for table in Table.objects.filter(tournament=tournament):
        occupied = sorted(table.entries.values_list("seat", flat=True))
        assert table.button == occupied[0]  # the first occupied seat from seat 1
    assert AuditEntry.objects.get(action="tournaments.floor.drawn").data == {"tables": 3, "players": 14}


def test_a_late_entrant_sits_at_the_table_with_the_fewest_players():
    tournament = started(14)
    smallest = min(Table.objects.filter(tournament=tournament), key=lambda table: table.entries.count())

    (late,) = entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))

    entry = Entry.objects.get(tournament=tournament, player=late)
    assert entry.late
    assert entry.table == smallest
    assert entry.seat not in set(smallest.entries.exclude(pk=entry.pk).values_list("seat", flat=True))


def test_when_every_table_is_full_a_late_entrant_opens_a_new_one():
    tournament = started(6)
    (late,) = entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))
    assert Entry.objects.get(tournament=tournament, player=late).table.number == 2


def test_tournament_info_shows_each_table_with_stacks_button_blinds_and_the_chip_leaders(client):
    tournament = started(7)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Table 1" in page
    assert "Table 2" in page
    assert "Chip leaders" in page
    assert page.count('<tr class="button">') == 2
    assert page.count('<tr class="big_blind">') == 2
    names = Entry.objects.filter(tournament=tournament).values_list("player__screen_name", flat=True)
    assert all(name in page for name in names)
