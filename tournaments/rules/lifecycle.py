"""Which status the clock says a tournament is in at an instant (rules 2, 9, 17).

Only time-driven statuses are decided here; finishing and cancelling are decided
by play and by staff.
"""

from datetime import UTC, datetime

from tournaments.rules.schedule import Schedule

ANNOUNCED = "announced"
REGISTERING = "registering"
LATE_REGISTRATION = "late_registration"
RUNNING = "running"
ON_BREAK = "on_break"
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
) -> str:
    if current in FINAL:
        return current
    # Compare instants: two times in the same zone compare by wall clock, which is
    # wrong in the hour repeated when DST ends.
    now = _instant(now)
    if now < _instant(start):
        if registration_opens_at is None or now >= _instant(registration_opens_at):
            return REGISTERING
        return ANNOUNCED
    if any(_instant(b.starts_at) <= now < _instant(b.ends_at) for b in schedule.breaks):
        return ON_BREAK
    if late_registration_open and now < _instant(late_registration_closes_at):
        return LATE_REGISTRATION
    return RUNNING


def _instant(moment: datetime) -> datetime:
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment
