"""Which status the clock puts a tournament in (rules 2, 9, 17)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tournaments.rules.lifecycle import (
    ANNOUNCED,
    LATE_REGISTRATION,
    ON_BREAK,
    PAUSED,
    REGISTERING,
    RUNNING,
    Change,
    status_at,
    transitions,
)
from tournaments.rules.schedule import (
    BreakKind,
    BreakPolicy,
    Level,
    Schedule,
    ScheduledBreak,
    build_schedule,
)

START = datetime(2026, 5, 4, 20, 25, tzinfo=UTC)
OPENS = START - timedelta(days=1)
LATE_REGISTRATION_CLOSES = START + timedelta(minutes=20)
# 20-minute levels from 20:25 with :55 breaks: the first break is 20:55 to 21:00.
SCHEDULE = build_schedule(
    start=START,
    levels=[Level(10 * n, 20 * n, 0, 20) for n in range(1, 10)],
    policy=BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5),
)
FIRST_BREAK = SCHEDULE.breaks[0]


def status(now: datetime, *, current: str = REGISTERING, **overrides) -> str:
    arguments = {
        "now": now,
        "current": current,
        "start": START,
        "registration_opens_at": OPENS,
        "late_registration_closes_at": LATE_REGISTRATION_CLOSES,
        "late_registration_open": True,
        "schedule": SCHEDULE,
    } | overrides
    return status_at(**arguments)


def test_the_schedule_used_here_breaks_at_2055():
    assert (FIRST_BREAK.starts_at, FIRST_BREAK.ends_at) == (
        START + timedelta(minutes=30),
        START + timedelta(minutes=35),
    )


def test_announced_before_registration_opens():
    assert status(OPENS - timedelta(seconds=1), current=ANNOUNCED) == ANNOUNCED


def test_registering_once_registration_opens():
    assert status(OPENS, current=ANNOUNCED) == REGISTERING
    assert status(START - timedelta(seconds=1)) == REGISTERING


def test_registering_from_the_first_moment_when_no_opening_time_is_set():
    assert status(START - timedelta(days=30), current=ANNOUNCED, registration_opens_at=None) == REGISTERING


def test_late_registration_from_the_start_until_it_closes():
    assert status(START) == LATE_REGISTRATION
    assert status(LATE_REGISTRATION_CLOSES - timedelta(seconds=1)) == LATE_REGISTRATION
    assert status(LATE_REGISTRATION_CLOSES, current=LATE_REGISTRATION) == RUNNING


def test_no_late_registration_when_it_is_closed_at_the_start():
    # Rule 9: all tables full at the start.
    assert status(START, late_registration_open=False) == RUNNING


def test_running_after_late_registration_closes():
    assert status(LATE_REGISTRATION_CLOSES + timedelta(minutes=5), current=LATE_REGISTRATION) == RUNNING


def test_on_break_inside_a_scheduled_break():
    assert status(FIRST_BREAK.starts_at, current=RUNNING) == ON_BREAK
    assert status(FIRST_BREAK.ends_at - timedelta(seconds=1), current=RUNNING) == ON_BREAK
    assert status(FIRST_BREAK.ends_at, current=ON_BREAK) == RUNNING


def test_every_scheduled_break_is_a_break():
    assert len(SCHEDULE.breaks) == 3
    for scheduled_break in SCHEDULE.breaks:
        assert status(scheduled_break.starts_at + timedelta(minutes=2), current=RUNNING) == ON_BREAK


@pytest.mark.parametrize("final", ["finished", "cancelled"])
@pytest.mark.parametrize(
    "now",
    [
        OPENS - timedelta(hours=1),
        START - timedelta(minutes=1),
        START,
        FIRST_BREAK.starts_at,
        START + timedelta(hours=5),
    ],
)
def test_finished_and_cancelled_never_change(final, now):
    assert status(now, current=final) == final


def test_a_break_is_compared_as_an_instant_in_the_repeated_hour_of_fall_back():
    copenhagen = ZoneInfo("Europe/Copenhagen")
    # 02:30-02:40 CEST is 00:30-00:40 UTC; the second 02:35 (CET, fold=1) is 01:35 UTC.
    first_0230 = datetime(2026, 10, 25, 2, 30, tzinfo=copenhagen)
    schedule = Schedule(levels=(), breaks=(ScheduledBreak(first_0230, first_0230 + timedelta(minutes=10)),))
    second_0235 = datetime(2026, 10, 25, 2, 35, fold=1, tzinfo=copenhagen)

    arguments = {
        "current": RUNNING,
        "start": datetime(2026, 10, 25, 1, 0, tzinfo=copenhagen),
        "registration_opens_at": None,
        "late_registration_closes_at": datetime(2026, 10, 25, 1, 20, tzinfo=copenhagen),
        "late_registration_open": True,
        "schedule": schedule,
    }
    assert status_at(now=second_0235, **arguments) == RUNNING
    assert status_at(now=first_0230 + timedelta(minutes=5), **arguments) == ON_BREAK


def test_paused_once_started_while_the_clock_stands_still():
    assert status(START + timedelta(minutes=3), paused=True) == PAUSED
    assert status(FIRST_BREAK.starts_at, current=ON_BREAK, paused=True) == PAUSED
    assert status(START - timedelta(minutes=1), paused=True) == REGISTERING


def test_transitions_follow_the_schedule_in_order():
    changes = transitions(
        start=START,
        registration_opens_at=OPENS,
        late_registration_closes_at=LATE_REGISTRATION_CLOSES,
        schedule=SCHEDULE,
    )
    assert [(t.at - START, t.change, t.level) for t in changes[:7]] == [
        (OPENS - START, Change.REGISTRATION_OPENED, None),
        (timedelta(0), Change.STARTED, 1),
        (timedelta(minutes=20), Change.LEVEL, 2),
        (timedelta(minutes=20), Change.LATE_REGISTRATION_CLOSED, None),
        (timedelta(minutes=30), Change.BREAK_BEGAN, None),
        (timedelta(minutes=35), Change.BREAK_ENDED, None),
        (timedelta(minutes=45), Change.LEVEL, 3),
    ]
    assert [t.at for t in changes] == sorted(t.at for t in changes)
    assert sum(t.change is Change.LEVEL for t in changes) == len(SCHEDULE.levels) - 1


def test_a_break_between_levels_ends_before_the_next_level_begins():
    schedule = build_schedule(
        start=START,
        levels=[Level(10 * n, 20 * n, 0, 30) for n in range(1, 4)],
        policy=BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5),
    )
    changes = transitions(start=START, registration_opens_at=None, late_registration_closes_at=START, schedule=schedule)
    # 20:25 + 30 minutes: level 1 ends at 20:55, just as the break is due.
    assert [(t.at - START, t.change) for t in changes[:4]] == [
        (timedelta(0), Change.STARTED),
        (timedelta(minutes=30), Change.BREAK_BEGAN),
        (timedelta(minutes=35), Change.BREAK_ENDED),
        (timedelta(minutes=35), Change.LEVEL),
    ]
