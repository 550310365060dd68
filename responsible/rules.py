"""Deposit limits (BEK nr. 1274 of 2019, section 21), pure: a limit lowered (or set
where there was none) applies at once; raised or removed, only after a cooling-off
of 24 hours, pending until then and cancellable. Limits count the deposits of a
calendar day, week (from Monday) or month in the room's time zone."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from enum import StrEnum

COOLING_OFF = timedelta(hours=24)
# Breaks and exclusions (section 23): a break of 24 hours, a temporary exclusion of
# at least 30 days (the room takes up to five years), or a permanent one.
BREAK = timedelta(hours=24)
SHORTEST_EXCLUSION_DAYS = 30
LONGEST_EXCLUSION_DAYS = 5 * 366
# A permanent exclusion closes the account; the person may open a new one after a year.
NEW_ACCOUNT_AFTER = timedelta(days=365)


class Period(StrEnum):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


@dataclass(frozen=True)
class Limit:
    amount: int | None  # in force now; None: no limit
    pending_amount: int | None = None  # what it becomes at pending_from (None with pending_from: removed)
    pending_from: datetime | None = None


def limit_changed(current: Limit, wanted: int | None, now: datetime) -> Limit:
    """The limit after the player asks for `wanted` (None: no limit) at `now`."""
    current = limit_now(current, now)
    lower = wanted is not None and (current.amount is None or wanted <= current.amount)
    if lower:
        return Limit(wanted)  # at once; a pending raise is dropped with it
    if current.amount is None:
        return Limit(None)  # nothing to remove
    return Limit(current.amount, wanted, now + COOLING_OFF)


def limit_now(limit: Limit, now: datetime) -> Limit:
    """The limit as it stands at `now`: a pending change whose time has come applied."""
    if limit.pending_from is not None and limit.pending_from <= now:
        return Limit(limit.pending_amount)
    return limit


def period_bounds(period: Period, now: datetime, zone: tzinfo) -> tuple[datetime, datetime]:
    """The calendar day, week or month holding `now` in `zone`: its start, and the
    instant the limit resets."""
    today = now.astimezone(zone).date()
    if period == Period.DAY:
        first, following = today, today + timedelta(days=1)
    elif period == Period.WEEK:
        first = today - timedelta(days=today.weekday())
        following = first + timedelta(days=7)
    else:
        first = today.replace(day=1)
        following = date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return datetime.combine(first, time(), zone), datetime.combine(following, time(), zone)


def national_id_normalized(value: str) -> str:
    """A national identity number as kept: no spaces or hyphens, letters in capitals."""
    return "".join(value.split()).replace("-", "").upper()


def cpr_valid(number: str) -> bool:
    """A Danish CPR number: ten digits, the first six a date (DDMMYY). The check
    digit is not asked: numbers issued since 2007 need not pass it."""
    if len(number) != 10 or not number.isascii() or not number.isdigit():
        return False
    day, month = int(number[:2]), int(number[2:4])
    try:
        date(2000, month, day)  # a leap year: 29 February is a date
    except ValueError:
        return False
    return True


def reminder_due(signed_in_at: datetime, minutes: int, shown: int, now: datetime) -> tuple[int, float]:
    """The number of the next reminder after the `shown` ones of this session (the
    first comes `minutes` after the log-in; one missed while away is not repeated),
    and the seconds until it (0 or less: it is due)."""
    every = timedelta(minutes=minutes)
    passed = int((now - signed_in_at) / every)
    number = max(shown + 1, passed)
    return number, (signed_in_at + number * every - now).total_seconds()
