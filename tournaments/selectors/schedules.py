"""Reads of an event's schedule: its clock's stops, deadlines, registration window,
rebuy and add-on periods."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils import timezone

from tournaments.models import (
    Tournament,
)
from tournaments.rules.registration import Window
from tournaments.rules.schedule import (
    BreakKind,
    BreakPolicy,
    Deadlines,
    Level,
    Schedule,
    Stop,
    build_schedule,
    deadlines,
)


def clock_stops(tournament: Tournament, now: datetime) -> list[Stop]:
    """The times the clock stood still; one still going on counts until `now`."""
    stops = [Stop(datetime.fromisoformat(start), datetime.fromisoformat(end)) for start, end in tournament.clock_stops]
    for since in (tournament.paused_at, tournament.break_pending_since):
        if since is not None and now > since:
            stops.append(Stop(since, now))
    return stops


def tournament_schedule(
    tournament: Tournament, now: datetime | None = None, *, levels: list[Level] | None = None
) -> Schedule:
    """Levels with their start times and the break schedule (rule 17), shifted by
    the times the clock stood still until `now`; `levels`: its structure's, when the
    caller has read them."""
    return build_schedule(
        start=tournament.scheduled_start,
        levels=tournament.blind_structure.rule_levels() if levels is None else levels,
        policy=BreakPolicy(
            kind=BreakKind(tournament.break_policy),
            minutes=tournament.break_minutes,
            interval_minutes=tournament.break_interval_minutes,
            seconds=tournament.break_seconds,
            interval_seconds=tournament.break_interval_seconds,
            addon_break_minutes=tournament.addon_break_minutes if tournament.has_addon else 0,
        ),
        addon_after_level=tournament.rebuy_levels or None,
        stops=clock_stops(tournament, now or timezone.now()),
    )


# The fields registration's window is built from (registration_window).
WINDOW_FIELDS = (
    "scheduled_start",
    "registration_opens_at",
    "late_registration_minutes",
    "extended_late_registration_minutes",
    "unregistration_deadline_minutes",
    "unregistration_allowed",
    "late_registration_closed_at",
)


def tournament_deadlines(tournament: Tournament) -> Deadlines:
    return _deadlines(_window_fields(tournament))


def _window_fields(tournament: Tournament) -> dict[str, Any]:
    return {name: getattr(tournament, name) for name in WINDOW_FIELDS}


def _deadlines(fields: Mapping[str, Any]) -> Deadlines:
    return deadlines(
        start=fields["scheduled_start"],
        registration_opens_at=fields["registration_opens_at"],
        late_registration_minutes=fields["late_registration_minutes"],
        extended_late_registration_minutes=fields["extended_late_registration_minutes"],
        unregistration_deadline_minutes=fields["unregistration_deadline_minutes"],
        unregistration_allowed=fields["unregistration_allowed"],
    )


def tournament_window(tournament: Tournament) -> Window:
    """The instants that bound registration and unregistration (rules 9, 10)."""
    return registration_window(_window_fields(tournament))


def registration_window(fields: Mapping[str, Any]) -> Window:
    """tournament_window from an event's WINDOW_FIELDS (a lobby row's values)."""
    limits = _deadlines(fields)
    return Window(
        registration_opens_at=limits.registration_opens_at,
        start=fields["scheduled_start"],
        late_registration_closes_at=limits.late_registration_closes_at,
        closed_early_at=fields["late_registration_closed_at"],
        unregistration_closes_at=limits.unregistration_closes_at,
    )


def rebuy_period_ends_at(tournament: Tournament, schedule: Schedule) -> datetime | None:
    """The end of the last rebuy level (rule 8), or None without rebuys."""
    if not tournament.rebuy_levels or not tournament.is_rebuy:
        return None
    return schedule.levels[min(tournament.rebuy_levels, len(schedule.levels)) - 1].ends_at


def addon_window(tournament: Tournament, schedule: Schedule) -> tuple[datetime | None, datetime | None]:
    """From the start of the last rebuy level until the next level begins, which
    includes the add-on break."""
    if not tournament.has_addon or not tournament.rebuy_levels:
        return None, None
    last = min(tournament.rebuy_levels, len(schedule.levels))
    opens = schedule.levels[last - 1].starts_at
    closes = schedule.levels[last].starts_at if last < len(schedule.levels) else schedule.levels[last - 1].ends_at
    return opens, closes
