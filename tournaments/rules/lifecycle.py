"""Which status the clock says a tournament is in at an instant (rules 2, 9, 17).

Only time-driven statuses are decided here; finishing and cancelling are decided
by play and by staff.
"""

from datetime import datetime

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
    if now < start:
        if registration_opens_at is None or now >= registration_opens_at:
            return REGISTERING
        return ANNOUNCED
    if any(b.starts_at <= now < b.ends_at for b in schedule.breaks):
        return ON_BREAK
    if late_registration_open and now < late_registration_closes_at:
        return LATE_REGISTRATION
    return RUNNING
