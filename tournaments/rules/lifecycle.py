"""Which status the clock says a tournament is in at an instant (rules 2, 9, 17).

Only time-driven statuses are decided here; finishing and cancelling are decided
by play and by staff.
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from tournaments.rules.schedule import Schedule

ANNOUNCED = "announced"
REGISTERING = "registering"
LATE_REGISTRATION = "late_registration"
RUNNING = "running"
ON_BREAK = "on_break"
PAUSED = "paused"
FINAL = frozenset({"finished", "cancelled"})


def status_at(
    *,
    now: datetime,
    current: str,
    start: datetime,
    registration_opens_at: datetime | None,
    late_registration_closes_at: datetime,
    late_registration_open: bool,
    schedule: Schedule,
    paused: bool = False,
) -> str:
    if current in FINAL:
        return current
    # Compare instants: two times in the same zone compare by wall clock, which is
    # wrong in the hour repeated when DST ends.
    now = _instant(now)
    if now < _instant(start):
        opened = registration_opens_at is None or now >= _instant(registration_opens_at)
        return REGISTERING if opened else ANNOUNCED
    if paused:
        return PAUSED
    if any(_instant(b.starts_at) <= now < _instant(b.ends_at) for b in schedule.breaks):
        return ON_BREAK
    if late_registration_open and now < _instant(late_registration_closes_at):
        return LATE_REGISTRATION
    return RUNNING


def _instant(moment: datetime) -> datetime:
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment


class Change(StrEnum):
    REGISTRATION_OPENED = "registration_opened"
    STARTED = "started"
    LEVEL = "level"
    BREAK_BEGAN = "break_began"
    BREAK_ENDED = "break_ended"
    LATE_REGISTRATION_CLOSED = "late_registration_closed"


# Changes made by the tournament clock, which stands still while it is stopped;
# the others are on the wall clock.
CLOCK_CHANGES = frozenset({Change.LEVEL, Change.BREAK_BEGAN, Change.BREAK_ENDED})


_SAME_INSTANT_ORDER = (
    Change.REGISTRATION_OPENED,
    Change.STARTED,
    Change.BREAK_ENDED,
    Change.LEVEL,
    Change.LATE_REGISTRATION_CLOSED,
    Change.BREAK_BEGAN,
)


@dataclass(frozen=True, slots=True)
class Transition:
    at: datetime
    change: Change
    level: int | None = None


def transitions(
    *,
    start: datetime,
    registration_opens_at: datetime | None,
    late_registration_closes_at: datetime,
    schedule: Schedule,
) -> list[Transition]:
    """Every change the clock makes to a tournament, in the order it makes them.

    Changes at the same instant come in a fixed order: the start first, a break
    ends before the level after it begins, and a break begins last, as it may have
    to wait for the tables.
    """
    found = [Transition(start, Change.STARTED, 1)]
    if registration_opens_at is not None and _instant(registration_opens_at) < _instant(start):
        found.append(Transition(registration_opens_at, Change.REGISTRATION_OPENED))
    if _instant(late_registration_closes_at) > _instant(start):
        found.append(Transition(late_registration_closes_at, Change.LATE_REGISTRATION_CLOSED))
    found += [Transition(level.starts_at, Change.LEVEL, level.number) for level in schedule.levels[1:]]
    for scheduled in schedule.breaks:
        found.append(Transition(scheduled.starts_at, Change.BREAK_BEGAN))
        found.append(Transition(scheduled.ends_at, Change.BREAK_ENDED))
    return sorted(found, key=lambda t: (_instant(t.at), _SAME_INSTANT_ORDER.index(t.change)))
