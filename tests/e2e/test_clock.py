"""The clock on Tournament Info counts down in the browser and shows the next level
and the break as the clock reaches them, without a reload (rules 2, 17)."""

import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import BlindStructureFactory, TournamentFactory, entrants, tables_finish
from tournaments.models import BreakPolicyKind
from tournaments.services.clock import tournament_advance


@pytest.fixture
def started(transactional_db):
    """Three-second levels, a three-second break after six seconds of play; started
    just now, as a worker would have started it."""
    structure = BlindStructureFactory(levels=[(25 * n, 50 * n, 0, 0, 3) for n in range(1, 9)])
    start = timezone.now() + timedelta(seconds=1)
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=start,
        break_policy=BreakPolicyKind.INTERVAL,
        break_interval_minutes=0,
        break_interval_seconds=6,
        break_minutes=0,
        break_seconds=3,
    )
    entrants(tournament)
    wait_for(start)
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    return tournament


def wait_for(moment) -> None:
    time.sleep(max(0.0, (moment - timezone.now()).total_seconds()))


def advance_at(tournament, seconds: float) -> None:
    """What the worker does at that instant of the clock, the players finishing the
    hand in play when a break falls due."""
    wait_for(tournament.scheduled_start + timedelta(seconds=seconds))
    tables_finish(tournament.pk, now=timezone.now())


def test_the_clock_counts_down_and_moves_to_the_next_level_and_the_break(page, started):
    page.goto(f"/tournaments/{started.pk}/")
    clock = page.locator("#clock")
    expect(clock).to_contain_text("Level 1")
    expect(clock).to_contain_text("25 / 50")
    countdown = clock.locator("time[data-countdown]")
    expect(countdown).to_have_text(re.compile(r"^0:0[1-3]$"))
    expect(countdown).to_have_text("0:01", timeout=3_000)  # it counts down in the page

    advance_at(started, 3)
    expect(clock).to_contain_text("Level 2", timeout=3_000)
    expect(clock).to_contain_text("50 / 100")

    advance_at(started, 6)
    expect(clock).to_contain_text("Break. Play resumes in", timeout=3_000)
    expect(clock.locator("time[data-countdown]")).to_have_text("0:01", timeout=3_000)

    advance_at(started, 9)
    expect(clock).to_contain_text("Level 3", timeout=3_000)
    expect(clock).not_to_contain_text("Break")
