"""Tournament Info in a real Chromium: levels and breaks at the browser's local times."""

import re
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.conftest import BROWSER_TIME_ZONE
from tests.factories import BlindStructureFactory, TournamentFactory

pytestmark = pytest.mark.e2e


def tomorrow_at(hour: int, minute: int) -> datetime:
    """Tomorrow at this wall-clock time in the browser's zone, as the UTC the database keeps."""
    zone = ZoneInfo(BROWSER_TIME_ZONE)
    tomorrow = timezone.now().astimezone(zone).date() + timedelta(days=1)
    return datetime.combine(tomorrow, time(hour, minute), tzinfo=zone).astimezone(UTC)


@pytest.fixture
def structure(transactional_db):
    """Twelve 20-minute levels: 10/20, 20/40, 40/80..."""
    return BlindStructureFactory()


def level_rows(page):
    return page.locator("table.levels tbody tr:not(.break)")


def break_rows(page):
    return page.locator("table.levels tbody tr.break")


def test_synchronised_breaks_fall_at_55_past_each_local_hour(page, structure):
    tournament = TournamentFactory(
        name="Morning Classic", blind_structure=structure, scheduled_start=tomorrow_at(7, 25)
    )
    page.goto(f"/tournaments/{tournament.pk}/")
    expect(page).to_have_title("Morning Classic · Poker room")
    expect(page.locator("#h-levels")).to_have_text(f"Blind structure: {structure.name}")
    expect(level_rows(page)).to_have_count(12)
    expect(level_rows(page).first.locator("td")).to_have_text(["1", "10 / 20", "0", "20 minutes", "07:25"])
    expect(level_rows(page).nth(1).locator("td")).to_have_text(["2", "20 / 40", "0", "20 minutes", "07:45"])
    expect(break_rows(page).nth(0).locator("td")).to_have_text(["Break", "5 minutes", "07:55"])
    expect(break_rows(page).nth(1).locator("td")).to_have_text(["Break", "5 minutes", "08:55"])
    # Level 2 is interrupted by the 07:55 break, so level 3 starts five minutes late.
    expect(level_rows(page).nth(2).locator("td").last).to_have_text("08:10")
    expect(page.locator("p.note", has_text="55 minutes past every hour")).to_be_visible()


def test_interval_breaks_come_after_each_hour_of_play(page, structure):
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=tomorrow_at(7, 25),
        break_policy="interval",
        break_interval_minutes=60,
    )
    page.goto(f"/tournaments/{tournament.pk}/")
    expect(break_rows(page).nth(0).locator("td")).to_have_text(["Break", "5 minutes", "08:25"])
    # The clock stops during the break: the next hour of play ends at 09:30.
    expect(break_rows(page).nth(1).locator("td")).to_have_text(["Break", "5 minutes", "09:30"])
    expect(page.locator("p.note", has_text="after every 60 minutes of play")).to_be_visible()


def test_times_are_the_browsers_local_times_after_a_reload_too(page, structure):
    tournament = TournamentFactory(blind_structure=structure, scheduled_start=tomorrow_at(7, 25))
    page.goto(f"/tournaments/{tournament.pk}/")
    expect(break_rows(page).first.locator("time")).to_have_text("07:55")
    # The first visit stored the zone in a cookie: now the server renders local times itself.
    assert any(cookie["name"] == "tz" for cookie in page.context.cookies())
    html = page.request.get(f"/tournaments/{tournament.pk}/").text()
    assert re.search(r'<tr class="break"><td colspan="3">Break</td><td>5 minutes</td><td><time [^>]*>07:55<', html)


def test_the_danish_info_page_is_in_danish(page, structure):
    tournament = TournamentFactory(
        name="Aftenturnering",
        blind_structure=structure,
        scheduled_start=tomorrow_at(7, 25),
        prize_contributions=123_450,
    )
    page.goto(f"/da/tournaments/{tournament.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "da")
    expect(page.locator("h1 .badge")).to_have_text("Tilmelding åben")
    expect(page.locator("h2")).to_have_text(
        [
            "Turnering",
            "Tilmelding",
            "Præmier",
            "Ur",
            "Din tilmelding",
            "Spillere",
            f"Blindstruktur: {structure.name}",
            "Gældende regler",
        ]
    )
    expect(page.locator("dt:text-is('Indskud') + dd")).to_have_text("10\u00a0€ + 1\u00a0€")
    expect(page.locator("dt:text-is('Præmiepulje') + dd")).to_have_text("1.234,50\u00a0€")
    expect(page.locator("table.levels thead th")).to_have_text(["Niveau", "Blinds", "Ante", "Længde", "Starter"])
    expect(break_rows(page).first.locator("td").first).to_have_text("Pause")
    # Danish writes the time with a colon (the server) or a full stop (the browser).
    expect(break_rows(page).first.locator("time")).to_have_text(re.compile(r"^07[.:]55$"))
    expect(page.locator("p.note", has_text="En pause på 5 minutter hver time kl. xx:55.")).to_be_visible()
