"""Leader Board points and periods (issue 29): the documented formula, and the room's
days, months and years."""

from datetime import UTC, date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from tournaments.rules.leader_boards import Period, finish_points, period_span, previous_day

COPENHAGEN = ZoneInfo("Europe/Copenhagen")


@pytest.mark.parametrize(
    ("entrants", "place", "buy_in", "points"),
    [
        (100, 1, 10.0, "201.07"),  # 10 * sqrt(100) * (1 + log10(10.25))
        (100, 100, 10.0, "20.11"),  # 10 * 1 * (1 + log10(10.25))
        (100, 4, 10.0, "100.54"),  # 10 * 5 * 2.01072
        (9, 1, 0.0, "11.94"),  # a freeroll: 10 * 3 * (1 + log10(0.25))
        (2, 2, 215.0, "33.33"),  # heads-up, the loser of a 215 buy-in
    ],
)
def test_points_follow_the_documented_formula(entrants, place, buy_in, points):
    assert finish_points(entrants=entrants, place=place, buy_in=buy_in) == Decimal(points)


def test_a_board_may_scale_its_points_and_a_better_place_never_earns_less():
    assert finish_points(entrants=100, place=1, buy_in=10, scale=20) == Decimal("402.14")
    earned = [finish_points(entrants=50, place=place, buy_in=5) for place in range(1, 51)]
    assert earned == sorted(earned, reverse=True)


@pytest.mark.parametrize(("place", "entrants"), [(0, 10), (11, 10)])
def test_a_place_outside_the_field_is_refused(place, entrants):
    with pytest.raises(ValueError, match="place"):
        finish_points(entrants=entrants, place=place, buy_in=1)


def test_periods_are_the_rooms_days_months_and_years_daylight_saving_included():
    spring = period_span(Period.DAY, date(2026, 3, 29), COPENHAGEN)  # clocks go forward at 02:00
    assert spring.start.astimezone(UTC) == datetime(2026, 3, 28, 23, 0, tzinfo=UTC)
    assert spring.end.astimezone(UTC) == datetime(2026, 3, 29, 22, 0, tzinfo=UTC)  # a day of 23 hours
    month = period_span(Period.MONTH, date(2026, 12, 6), COPENHAGEN)
    assert (month.start.date(), month.end.date()) == (date(2026, 12, 1), date(2027, 1, 1))
    year = period_span(Period.YEAR, date(2026, 6, 30), COPENHAGEN)
    assert (year.start.date(), year.end.date()) == (date(2026, 1, 1), date(2027, 1, 1))
    assert previous_day(month) == date(2026, 11, 30)
