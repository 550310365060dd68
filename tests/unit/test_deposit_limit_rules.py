"""Deposit limits, pure (issue 30): lower at once, higher or none after 24 hours; the
calendar periods of the room's time zone."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from responsible.rules import COOLING_OFF, Limit, Period, limit_changed, limit_now, period_bounds

NOW = datetime(2026, 12, 6, 22, 30, tzinfo=UTC)
COPENHAGEN = ZoneInfo("Europe/Copenhagen")


def test_a_first_or_lower_limit_applies_at_once_and_drops_a_pending_raise():
    assert limit_changed(Limit(None), 100, NOW) == Limit(100)
    pending = Limit(100, 500, NOW + COOLING_OFF)
    assert limit_changed(pending, 50, NOW) == Limit(50)
    assert limit_changed(Limit(100), 100, NOW) == Limit(100)


def test_a_higher_limit_or_none_waits_24_hours_then_applies():
    raised = limit_changed(Limit(100), 500, NOW)
    assert raised == Limit(100, 500, NOW + timedelta(hours=24))
    assert limit_now(raised, NOW + timedelta(hours=23, minutes=59)).amount == 100
    assert limit_now(raised, NOW + timedelta(hours=24)) == Limit(500)
    removed = limit_changed(Limit(100), None, NOW)
    assert limit_now(removed, NOW + COOLING_OFF) == Limit(None)
    assert limit_changed(Limit(None), None, NOW) == Limit(None)


def test_periods_are_the_rooms_calendar_day_week_and_month():
    day = period_bounds(Period.DAY, NOW, COPENHAGEN)  # 23:30 in Copenhagen, Sunday 6 December
    assert [moment.astimezone(COPENHAGEN).isoformat() for moment in day] == [
        "2026-12-06T00:00:00+01:00",
        "2026-12-07T00:00:00+01:00",
    ]
    week = period_bounds(Period.WEEK, NOW, COPENHAGEN)
    assert [moment.date().isoformat() for moment in week] == ["2026-11-30", "2026-12-07"]  # Monday to Monday
    month = period_bounds(Period.MONTH, NOW + timedelta(hours=1), COPENHAGEN)  # 00:30 on 7 December
    assert [moment.date().isoformat() for moment in month] == ["2026-12-01", "2027-01-01"]
