"""Levels, breaks (rule 17) and deadlines (rules 9, 10): the clock's arithmetic.

Times are aware datetimes; durations are minutes (seconds too, for the short
clocks of tests and demonstrations). The level clock stops during breaks, so a
level interrupted by a break ends that much later on the wall clock. After the
last level of the structure, that level goes on until the end.

The whole clock also stands still during stops: a staff pause (a deal, an
incident), and the wait for the last table to finish its hand before a break
(rule 17), so everything after a stop happens that much later. Synchronised breaks
stay at :55 on the wall clock; one that falls inside a stop is not taken.

Durations are real elapsed time: the arithmetic is done in UTC and the results are
shown in the zone of the times given, so a level that spans a DST change still lasts
its minutes. (Python adds a timedelta to a zoned datetime on the wall clock, which
is an hour off across a DST change, and compares two times of the same zone by their
wall clock, ignoring which side of the change they are on.)
"""

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from enum import StrEnum


class BreakKind(StrEnum):
    NONE = "none"
    # A break at 55 minutes past every hour, measured on the wall clock.
    SYNCHRONISED = "synchronised"
    # A break after every `interval_minutes` of play.
    INTERVAL = "interval"


@dataclass(frozen=True, slots=True)
class Level:
    small_blind: int
    big_blind: int
    ante: int
    minutes: int
    # Seconds on top of the minutes: for the short levels of tests and demonstrations.
    seconds: int = 0
    big_blind_ante: bool = False  # the big blind posts the ante for the table

    @property
    def duration(self) -> timedelta:
        return timedelta(minutes=self.minutes, seconds=self.seconds)


@dataclass(frozen=True, slots=True)
class BreakPolicy:
    kind: BreakKind = BreakKind.NONE
    minutes: int = 5
    interval_minutes: int = 60
    # Seconds on top of the minutes, as for levels.
    seconds: int = 0
    interval_seconds: int = 0
    # Synchronised breaks only: an extra add-on break when the rebuy period ends.
    addon_break_minutes: int = 0

    @property
    def length(self) -> timedelta:
        return timedelta(minutes=self.minutes, seconds=self.seconds)

    @property
    def interval(self) -> timedelta:
        return timedelta(minutes=self.interval_minutes, seconds=self.interval_seconds)


@dataclass(frozen=True, slots=True)
class ScheduledLevel:
    number: int
    level: Level
    starts_at: datetime
    ends_at: datetime


@dataclass(frozen=True, slots=True)
class ScheduledBreak:
    starts_at: datetime
    ends_at: datetime
    addon: bool = False


@dataclass(frozen=True, slots=True)
class Schedule:
    levels: tuple[ScheduledLevel, ...]
    breaks: tuple[ScheduledBreak, ...]


@dataclass(frozen=True, slots=True)
class Stop:
    """The clock stood still from `starts_at` to `ends_at`."""

    starts_at: datetime
    ends_at: datetime


class _Clock:
    """Wall-clock arithmetic on a clock that stands still during stops (in UTC)."""

    def __init__(self, stops: Iterable[Stop]):
        merged: list[tuple[datetime, datetime]] = []
        for start, end in sorted((_utc(s.starts_at), _utc(s.ends_at)) for s in stops):
            if end <= start:
                continue
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        self.stops = merged

    def after(self, moment: datetime, running: timedelta) -> datetime:
        """When `running` of clock time has passed since `moment`; with none, at
        `moment` itself, so that what is due as a stop begins happens before it."""
        for start, end in self.stops:
            if end <= moment:
                continue
            if moment <= start:
                if running <= start - moment:
                    return moment + running
                running -= start - moment
            moment = end
        return moment + running

    def resume(self, moment: datetime) -> datetime:
        """The first instant from `moment` on at which the clock runs."""
        for start, end in self.stops:
            if start <= moment < end:
                moment = end
        return moment

    def running_between(self, earlier: datetime, later: datetime) -> timedelta:
        stopped = sum(
            (min(end, later) - max(start, earlier) for start, end in self.stops if start < later and end > earlier),
            timedelta(),
        )
        return later - earlier - stopped

    def stopped_at(self, moment: datetime) -> bool:
        return any(start < moment < end for start, end in self.stops)


SYNCHRONISED_MINUTE = 55


def next_synchronised_break(after: datetime) -> datetime:
    """The first hh:55 strictly after `after` (rule 17: started 07:25, break 07:55).

    The minute is read on `after`'s wall clock; the hour that follows is real time,
    so across a DST change the next break is still an hour away, not two or none.
    """
    past_the_hour = timedelta(minutes=after.minute, seconds=after.second, microseconds=after.microsecond)
    wait = (timedelta(minutes=SYNCHRONISED_MINUTE) - past_the_hour) % timedelta(hours=1)
    return _later(after, wait or timedelta(hours=1))


def validate_levels(levels: list[Level]) -> list[str]:
    """What is wrong with a blind structure, in words an admin understands."""
    problems = []
    if not levels:
        problems.append("A blind structure needs at least one level.")
    for number, level in enumerate(levels, start=1):
        if level.small_blind <= 0:
            problems.append(f"Level {number}: the small blind must be positive.")
        if level.big_blind <= level.small_blind:
            problems.append(f"Level {number}: the big blind must be larger than the small blind.")
        if level.ante < 0:
            problems.append(f"Level {number}: the ante cannot be negative.")
        if level.duration <= timedelta():
            problems.append(f"Level {number}: a level lasts at least one minute.")
    for number, (before, after) in enumerate(itertools.pairwise(levels), start=2):
        if after.big_blind <= before.big_blind or after.small_blind < before.small_blind:
            problems.append(f"Level {number}: blinds must increase from one level to the next.")
        if after.ante < before.ante:
            problems.append(f"Level {number}: the ante cannot go down.")
    return problems


def build_schedule(
    *,
    start: datetime,
    levels: list[Level],
    policy: BreakPolicy,
    addon_after_level: int | None = None,
    stops: Iterable[Stop] = (),
) -> Schedule:
    """Every level's start and end and every break, for the whole blind structure.

    `addon_after_level` is the last level of the rebuy period: with synchronised
    breaks and an add-on break, that break follows it, merged with any :55 break
    that falls while it is on (or as it ends) into one longer break. `stops` are
    the times the clock stood still; a stop still going on is passed as ending now.
    """
    if policy.kind is BreakKind.INTERVAL and policy.interval <= timedelta():
        # Otherwise the first break would be due again as soon as it ends, forever.
        raise ValueError("interval breaks need at least one minute of play between them")
    zone = start.tzinfo
    clock = _Clock(stops)
    break_length = policy.length
    scheduled_levels: list[ScheduledLevel] = []
    breaks: list[ScheduledBreak] = []
    now = _utc(start)
    played = timedelta()  # play time on the level clock since the start
    next_interval_break = policy.interval
    level_end_played = timedelta()

    def next_break(after: datetime, *, inclusive: bool) -> datetime | None:
        return _next_break_at(policy, clock, after, played, next_interval_break, zone=zone, inclusive=inclusive)

    for number, level in enumerate(levels, start=1):
        level_starts = clock.resume(now)
        level_end_played += level.duration
        while True:
            level_end_wall = clock.after(now, level_end_played - played)
            break_at = next_break(now, inclusive=False)
            if break_at is None or break_at >= level_end_wall:
                break
            played += clock.running_between(now, break_at)
            now = clock.after(break_at, break_length)
            breaks.append(ScheduledBreak(_in_zone(clock.resume(break_at), zone), _in_zone(now, zone)))
            if policy.kind is BreakKind.INTERVAL:
                next_interval_break += policy.interval
        played = level_end_played
        now = level_end_wall
        scheduled_levels.append(ScheduledLevel(number, level, _in_zone(level_starts, zone), _in_zone(now, zone)))
        if number == len(levels):
            break
        # A break due exactly at the level's end starts now, before the next level.
        break_at = next_break(now, inclusive=True)
        addon_due = (
            policy.kind is BreakKind.SYNCHRONISED and policy.addon_break_minutes > 0 and number == addon_after_level
        )
        break_ends = now
        if break_at == now:
            break_ends = clock.after(now, break_length)
            if policy.kind is BreakKind.INTERVAL:
                next_interval_break += policy.interval
        if addon_due:
            break_ends = clock.after(break_ends, timedelta(minutes=policy.addon_break_minutes))
            # A :55 break due during the add-on break, or as it ends, is taken with
            # it rather than skipped until the next hour.
            due = next_break(now, inclusive=False)
            while due is not None and due <= break_ends:
                break_ends = max(break_ends, clock.after(due, break_length))
                due = next_break(due, inclusive=False)
        if break_ends > now:
            breaks.append(
                ScheduledBreak(_in_zone(clock.resume(now), zone), _in_zone(break_ends, zone), addon=addon_due)
            )
            now = break_ends
    return Schedule(tuple(scheduled_levels), tuple(breaks))


def _next_break_at(
    policy: BreakPolicy,
    clock: _Clock,
    now: datetime,
    played: timedelta,
    next_interval_break: timedelta,
    *,
    zone: tzinfo | None,
    inclusive: bool,
) -> datetime | None:
    if policy.kind is BreakKind.SYNCHRONISED:
        local = _in_zone(now, zone)
        if inclusive and local == local.replace(minute=SYNCHRONISED_MINUTE, second=0, microsecond=0):
            return now
        due = _utc(next_synchronised_break(local))
        while clock.stopped_at(due):
            due = _utc(next_synchronised_break(_in_zone(due, zone)))
        return due
    if policy.kind is BreakKind.INTERVAL:
        return clock.after(now, next_interval_break - played)
    return None


@dataclass(frozen=True, slots=True)
class ClockReading:
    """What the clock shows at an instant."""

    # The level being played, or the last one begun when between levels; None before the start.
    level: ScheduledLevel | None
    on_break: ScheduledBreak | None
    # The next start or end of a level or break; None when nothing more is scheduled.
    next_change_at: datetime | None


def read_clock(schedule: Schedule, now: datetime) -> ClockReading:
    moment = _utc(now)
    level = None
    for scheduled in schedule.levels:
        if _utc(scheduled.starts_at) <= moment:
            level = scheduled
    on_break = next((b for b in schedule.breaks if _utc(b.starts_at) <= moment < _utc(b.ends_at)), None)
    # The last level goes on until the end: its scheduled end changes nothing.
    boundaries = [lv.starts_at for lv in schedule.levels] + [lv.ends_at for lv in schedule.levels[:-1]]
    boundaries += [moment for b in schedule.breaks for moment in (b.starts_at, b.ends_at)]
    upcoming = [boundary for boundary in boundaries if _utc(boundary) > moment]
    return ClockReading(level, on_break, min(upcoming, key=_utc, default=None))


def _utc(moment: datetime) -> datetime:
    # Naive times (no zone) are taken as they are: there is no DST to get wrong.
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment


def _in_zone(moment: datetime, zone: tzinfo | None) -> datetime:
    return moment.astimezone(zone) if zone is not None else moment


def _later(moment: datetime, delta: timedelta) -> datetime:
    """`delta` of real time after `moment`, on `moment`'s clock."""
    return _in_zone(_utc(moment) + delta, moment.tzinfo)


@dataclass(frozen=True, slots=True)
class Deadlines:
    registration_opens_at: datetime | None
    unregistration_closes_at: datetime | None  # None: unregistration is not allowed
    late_registration_closes_at: datetime


def deadlines(
    *,
    start: datetime,
    registration_opens_at: datetime | None,
    late_registration_minutes: int,
    extended_late_registration_minutes: int | None,
    unregistration_deadline_minutes: int,
    unregistration_allowed: bool,
) -> Deadlines:
    """When registration opens, when unregistration and late registration close."""
    late_minutes = max(late_registration_minutes, extended_late_registration_minutes or 0)
    return Deadlines(
        registration_opens_at=registration_opens_at,
        unregistration_closes_at=(
            _later(start, -timedelta(minutes=unregistration_deadline_minutes)) if unregistration_allowed else None
        ),
        late_registration_closes_at=_later(start, timedelta(minutes=late_minutes)),
    )


def time_bank_left(*, left_ms: int | None, level_refilled: int, level: int, size_s: int, refill_s: int) -> int:
    """A player's time bank now, in milliseconds (rule 18): `size_s` seconds at first
    (`left_ms` None), what was left after he last used it, plus `refill_s` for each
    level reached since, never above `size_s`."""
    size = size_s * 1000
    if left_ms is None:
        return size
    return min(size, left_ms + max(0, level - level_refilled) * refill_s * 1000)
