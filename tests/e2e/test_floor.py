"""The floor in a real browser: a hand finished at a table shows on an open
Tournament Info without a reload: the player out in the finished places, the
tables' players and stacks after it."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.test_live import LIVE, listening, not_reloaded
from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tournaments.models import BreakPolicyKind, Entry
from tournaments.services.clock import tournament_advance
from tournaments.services.tables import floor_hand_finished

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_elimination_shows_live_on_tournament_info(asgi_page):
    start = timezone.now() - timedelta(minutes=1)
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=start,
        table_size=6,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
        max_entrants=100,
    )
    entrants(tournament, 8, now=start - timedelta(minutes=10))
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    info = listening(asgi_page(), f"/tournaments/{tournament.pk}/")
    tables = info.locator("table.table-list tbody tr")
    expect(tables).to_have_count(2)
    expect(players_at(info, 1)).to_have_text("4")
    expect(players_at(info, 2)).to_have_text("4")

    stacks = dict(Entry.objects.filter(table__tournament=tournament, table__number=1).values_list("pk", "chips"))
    out, winner = sorted(stacks)[:2]
    floor_hand_finished(
        tournament_id=tournament.pk,
        table=1,
        stacks=stacks | {out: 0, winner: stacks[winner] + stacks[out]},
        now=timezone.now(),
    )
    name = Entry.objects.get(pk=out).player.screen_name
    standings = info.locator("table.standings")
    expect(standings).to_contain_text(name, timeout=LIVE)
    expect(standings).to_contain_text("8")  # eighth of eight
    expect(players_at(info, 1)).to_have_text("3")
    assert not_reloaded(info)


def players_at(info, number: int):
    """The players count in the tables list's row of table `number`."""
    link = info.get_by_role("link", name=f"Table {number}", exact=True)
    row = info.locator("table.table-list tbody tr").filter(has=link)
    return row.locator("td").nth(1)
