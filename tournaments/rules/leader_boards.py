"""Leader Board points and periods (pure).

A finish earns

    points = scale * sqrt(entrants / place) * (1 + log10(buy_in + offset))

with `buy_in` in whole units of the reference money (the lobby's reference rates:
settings.LOBBY_SORT_RATES), `scale` 10 and `offset` 0.25 unless the board says
otherwise: the winner of a bigger and dearer field earns more, and every finish
earns something (a freeroll's buy-in of 0 counts as 0.25). Points are rounded to
two decimals when they are earned.

Boards add up the points earned in a day, a month or a year of the room's time zone.
"""

import math
from dataclasses import dataclass
from datetime import date, datetime, time, tzinfo
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

CENT = Decimal("0.01")


def finish_points(*, entrants: int, place: int, buy_in: float, scale: float = 10.0, offset: float = 0.25) -> Decimal:
    """The points of finishing `place` of `entrants` with this buy-in (see the module)."""
    if not 1 <= place <= entrants:
        raise ValueError("A place is between 1 and the number of entrants.")
    if buy_in < 0 or offset <= 0:
        raise ValueError("The buy-in cannot be negative and the offset must be above 0.")
    raw = scale * math.sqrt(entrants / place) * (1 + math.log10(buy_in + offset))
    return Decimal(repr(max(raw, 0.0))).quantize(CENT, rounding=ROUND_HALF_UP)


class Period(StrEnum):
    DAY = "day"
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True)
class Span:
    """A period's first instant and the first instant after it."""

    start: datetime
    end: datetime
    first_day: date


def period_span(period: Period, day: date, zone: tzinfo) -> Span:
    """The day, month or year holding `day`, in the room's time zone `zone`."""
    if period == Period.DAY:
        first, following = day, date.fromordinal(day.toordinal() + 1)
    elif period == Period.MONTH:
        first = day.replace(day=1)
        following = (
            first.replace(year=first.year + 1, month=1) if first.month == 12 else first.replace(month=first.month + 1)
        )
    else:
        first, following = day.replace(month=1, day=1), day.replace(year=day.year + 1, month=1, day=1)
    return Span(datetime.combine(first, time(), zone), datetime.combine(following, time(), zone), first)


def previous_day(span: Span) -> date:
    """A day of the period before `span`."""
    return date.fromordinal(span.first_day.toordinal() - 1)
