"""Levels, breaks (rule 17) and deadlines (rules 9, 10)."""

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.schedule import (
    BreakKind,
    BreakPolicy,
    Level,
    Schedule,
    Stop,
    build_schedule,
    deadlines,
    next_synchronised_break,
    read_clock,
    validate_levels,
)

COPENHAGEN = ZoneInfo("Europe/Copenhagen")
DAY = (2026, 5, 4)  # no DST change in Copenhagen on this day
SYNCHRONISED = BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5)
INTERVAL = BreakPolicy(kind=BreakKind.INTERVAL, minutes=5, interval_minutes=60)
NO_BREAKS = BreakPolicy(kind=BreakKind.NONE)


def at(hour: int, minute: int, *, zone=UTC, day=DAY) -> datetime:
    return datetime(*day, hour, minute, tzinfo=zone)


def structure(count: int, minutes: int = 20) -> list[Level]:
    return [Level(10 * n, 20 * n, 0, minutes) for n in range(1, count + 1)]


def hhmm(moment: datetime) -> str:
    return moment.strftime("%H:%M")


def level_starts(schedule: Schedule) -> list[str]:
    return [hhmm(level.starts_at) for level in schedule.levels]


def break_times(schedule: Schedule) -> list[tuple[str, str]]:
    return [(hhmm(b.starts_at), hhmm(b.ends_at)) for b in schedule.breaks]


def elapsed(earlier: datetime, later: datetime) -> timedelta:
    # Subtracting two times of one zone reads their wall clocks; UTC gives real time.
    return later.astimezone(UTC) - earlier.astimezone(UTC)


def instants(schedule: Schedule) -> list[datetime]:
    # Times in the hour repeated at fall back never compare equal to another zone's
    # (PEP 495), so compare them in UTC.
    moments = [moment for lv in schedule.levels for moment in (lv.starts_at, lv.ends_at)]
    moments += [moment for b in schedule.breaks for moment in (b.starts_at, b.ends_at)]
    return [moment.astimezone(UTC) for moment in moments]


def breaks_within(schedule: Schedule, begins: datetime, ends: datetime) -> timedelta:
    """How long the breaks that lie wholly between `begins` and `ends` last."""
    return sum(
        (
            elapsed(b.starts_at, b.ends_at)
            for b in schedule.breaks
            if elapsed(begins, b.starts_at) >= timedelta() and elapsed(b.ends_at, ends) >= timedelta()
        ),
        timedelta(),
    )


# Levels


def test_levels_follow_each_other_when_there_are_no_breaks():
    schedule = build_schedule(start=at(7, 25), levels=structure(4), policy=NO_BREAKS)

    assert level_starts(schedule) == ["07:25", "07:45", "08:05", "08:25"]
    assert hhmm(schedule.levels[-1].ends_at) == "08:45"
    assert [level.number for level in schedule.levels] == [1, 2, 3, 4]
    assert schedule.breaks == ()


def test_levels_keep_their_blinds_in_order():
    levels = structure(3)

    schedule = build_schedule(start=at(7, 25), levels=levels, policy=NO_BREAKS)

    assert [scheduled.level for scheduled in schedule.levels] == levels


# Synchronised breaks


def test_synchronised_breaks_fall_at_55_past_each_hour():
    schedule = build_schedule(start=at(7, 25), levels=structure(9), policy=SYNCHRONISED)

    assert break_times(schedule) == [("07:55", "08:00"), ("08:55", "09:00"), ("09:55", "10:00")]
    assert hhmm(schedule.levels[-1].ends_at) == "10:40"


def test_a_level_interrupted_by_a_synchronised_break_ends_that_much_later():
    schedule = build_schedule(start=at(7, 25), levels=structure(4), policy=SYNCHRONISED)

    level_2 = schedule.levels[1]
    assert (hhmm(level_2.starts_at), hhmm(level_2.ends_at)) == ("07:45", "08:10")
    assert level_starts(schedule) == ["07:25", "07:45", "08:10", "08:30"]


def test_a_start_at_55_past_does_not_break_immediately():
    schedule = build_schedule(start=at(7, 55), levels=structure(4), policy=SYNCHRONISED)

    assert break_times(schedule) == [("08:55", "09:00")]
    assert level_starts(schedule) == ["07:55", "08:15", "08:35", "09:00"]


def test_a_level_ending_at_55_past_is_followed_by_the_break():
    schedule = build_schedule(start=at(7, 35), levels=structure(2), policy=SYNCHRONISED)

    assert break_times(schedule) == [("07:55", "08:00")]
    assert level_starts(schedule) == ["07:35", "08:00"]


def test_the_last_level_is_not_followed_by_a_break():
    schedule = build_schedule(start=at(7, 35), levels=structure(1), policy=SYNCHRONISED)

    assert hhmm(schedule.levels[0].ends_at) == "07:55"
    assert schedule.breaks == ()


def test_the_synchronised_break_lasts_the_policy_minutes():
    policy = BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=8)

    schedule = build_schedule(start=at(7, 25), levels=structure(3), policy=policy)

    assert break_times(schedule) == [("07:55", "08:03")]
    assert hhmm(schedule.levels[1].ends_at) == "08:13"


def test_next_synchronised_break_is_strictly_later():
    assert next_synchronised_break(at(7, 25)) == at(7, 55)
    assert next_synchronised_break(at(7, 55)) == at(8, 55)
    assert next_synchronised_break(at(7, 55) - timedelta(microseconds=1)) == at(7, 55)
    assert next_synchronised_break(at(7, 56)) == at(8, 55)


# Interval breaks


def test_interval_breaks_come_after_each_hour_of_play():
    schedule = build_schedule(start=at(7, 25), levels=structure(7), policy=INTERVAL)

    assert break_times(schedule) == [("08:25", "08:30"), ("09:30", "09:35")]
    assert level_starts(schedule) == ["07:25", "07:45", "08:05", "08:30", "08:50", "09:10", "09:35"]


def test_an_interval_break_inside_a_level_stops_its_clock():
    schedule = build_schedule(start=at(7, 25), levels=structure(3, minutes=25), policy=INTERVAL)

    assert break_times(schedule) == [("08:25", "08:30")]
    assert hhmm(schedule.levels[2].ends_at) == "08:45"


def test_interval_breaks_need_some_play_between_them():
    policy = BreakPolicy(kind=BreakKind.INTERVAL, interval_minutes=0)

    with pytest.raises(ValueError, match="at least one minute of play"):
        build_schedule(start=at(7, 25), levels=structure(3), policy=policy)


# Add-on break


def test_addon_break_follows_the_last_rebuy_level():
    policy = BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5, addon_break_minutes=3)

    schedule = build_schedule(start=at(7, 0), levels=structure(4), policy=policy, addon_after_level=1)

    assert break_times(schedule) == [("07:20", "07:23"), ("07:55", "08:00")]
    assert [b.addon for b in schedule.breaks] == [True, False]
    assert level_starts(schedule) == ["07:00", "07:23", "07:43", "08:08"]


def test_addon_break_merges_with_a_55_break_at_the_same_instant():
    policy = BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5, addon_break_minutes=3)

    schedule = build_schedule(start=at(7, 35), levels=structure(3), policy=policy, addon_after_level=1)

    assert break_times(schedule) == [("07:55", "08:03")]
    assert schedule.breaks[0].addon
    assert level_starts(schedule) == ["07:35", "08:03", "08:23"]


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        # The :55 break falls while the add-on break is on.
        (at(7, 33), [("07:53", "08:00")]),
        # The add-on break ends exactly at :55.
        (at(7, 32), [("07:52", "08:00")]),
    ],
)
def test_addon_break_absorbs_a_55_break_falling_inside_it(start, expected):
    policy = BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5, addon_break_minutes=3)

    schedule = build_schedule(start=start, levels=structure(3), policy=policy, addon_after_level=1)

    assert break_times(schedule) == expected
    assert schedule.breaks[0].addon
    assert hhmm(schedule.levels[1].starts_at) == "08:00"


@pytest.mark.parametrize("policy", [INTERVAL, NO_BREAKS])
def test_addon_break_is_only_for_synchronised_breaks(policy):
    with_addon = BreakPolicy(kind=policy.kind, minutes=5, interval_minutes=60, addon_break_minutes=3)

    schedule = build_schedule(start=at(7, 25), levels=structure(4), policy=with_addon, addon_after_level=1)

    assert not any(b.addon for b in schedule.breaks)
    assert schedule == build_schedule(start=at(7, 25), levels=structure(4), policy=policy)


def test_no_addon_break_without_a_rebuy_period():
    policy = BreakPolicy(kind=BreakKind.SYNCHRONISED, minutes=5, addon_break_minutes=3)

    schedule = build_schedule(start=at(7, 0), levels=structure(4), policy=policy, addon_after_level=None)

    assert break_times(schedule) == [("07:55", "08:00")]
    assert not schedule.breaks[0].addon


# Time zones


@pytest.mark.parametrize("zone", [UTC, COPENHAGEN])
def test_synchronised_breaks_are_at_55_past_in_utc_and_in_copenhagen(zone):
    schedule = build_schedule(start=at(7, 25, zone=zone), levels=structure(9), policy=SYNCHRONISED)

    assert break_times(schedule) == [("07:55", "08:00"), ("08:55", "09:00"), ("09:55", "10:00")]
    for b in schedule.breaks:
        assert b.starts_at.astimezone(UTC).minute == b.starts_at.astimezone(COPENHAGEN).minute == 55


@pytest.mark.parametrize(
    ("day", "expected_utc_breaks"),
    [
        # Spring forward: 02:00 CET becomes 03:00 CEST.
        ((2026, 3, 29), ["00:55", "01:55", "02:55", "03:55"]),
        # Fall back: 03:00 CEST becomes 02:00 CET, so 02:55 happens twice.
        ((2026, 10, 25), ["23:55", "00:55", "01:55", "02:55"]),
    ],
)
def test_synchronised_breaks_stay_an_hour_apart_across_a_dst_change(day, expected_utc_breaks):
    start = at(1, 25, zone=COPENHAGEN, day=day)

    schedule = build_schedule(start=start, levels=structure(12), policy=SYNCHRONISED)

    assert [hhmm(b.starts_at.astimezone(UTC)) for b in schedule.breaks] == expected_utc_breaks
    assert all(b.starts_at.minute == 55 for b in schedule.breaks)
    for level in schedule.levels:
        played = elapsed(level.starts_at, level.ends_at) - breaks_within(schedule, level.starts_at, level.ends_at)
        assert played == timedelta(minutes=20)


def test_a_level_across_the_fall_back_lasts_its_minutes():
    start = at(2, 50, zone=COPENHAGEN, day=(2026, 10, 25))  # 02:50 CEST, ten minutes before 02:00 CET

    schedule = build_schedule(start=start, levels=structure(2), policy=NO_BREAKS)

    ends = schedule.levels[0].ends_at
    assert elapsed(start, ends) == timedelta(minutes=20)
    assert ends.astimezone(UTC) == datetime(2026, 10, 25, 1, 10, tzinfo=UTC)
    assert (ends.tzinfo, hhmm(ends), ends.utcoffset()) == (COPENHAGEN, "02:10", timedelta(hours=1))


def test_the_schedule_is_the_same_whatever_the_zone_of_the_start():
    start = at(1, 25, zone=COPENHAGEN, day=(2026, 10, 25))

    local = build_schedule(start=start, levels=structure(12), policy=SYNCHRONISED)
    utc = build_schedule(start=start.astimezone(UTC), levels=structure(12), policy=SYNCHRONISED)

    assert instants(local) == instants(utc)
    assert all(lv.starts_at.tzinfo is COPENHAGEN for lv in local.levels)


def test_next_synchronised_break_in_the_repeated_hour_is_the_second_0255():
    after = datetime(2026, 10, 25, 2, 57, tzinfo=COPENHAGEN)  # the first 02:57, CEST

    following = next_synchronised_break(after)

    assert following.astimezone(UTC) == datetime(2026, 10, 25, 1, 55, tzinfo=UTC)
    assert (hhmm(following), following.utcoffset()) == ("02:55", timedelta(hours=1))  # CET


# Deadlines


def deadlines_for(start=None, **overrides):
    arguments = {
        "start": start or at(20, 0),
        "registration_opens_at": None,
        "late_registration_minutes": 20,
        "extended_late_registration_minutes": None,
        "unregistration_deadline_minutes": 5,
        "unregistration_allowed": True,
    } | overrides
    return deadlines(**arguments)


def test_late_registration_closes_20_minutes_after_the_start_by_default():
    assert deadlines_for().late_registration_closes_at == at(20, 20)


def test_extended_late_registration_replaces_the_normal_one_when_longer():
    assert deadlines_for(extended_late_registration_minutes=90).late_registration_closes_at == at(21, 30)


def test_a_shorter_extended_late_registration_does_not_cut_the_normal_one():
    assert deadlines_for(extended_late_registration_minutes=10).late_registration_closes_at == at(20, 20)


def test_unregistration_closes_the_given_minutes_before_the_start():
    assert deadlines_for(unregistration_deadline_minutes=5).unregistration_closes_at == at(19, 55)
    assert deadlines_for(unregistration_deadline_minutes=0).unregistration_closes_at == at(20, 0)


def test_no_unregistration_deadline_when_unregistration_is_not_allowed():
    assert deadlines_for(unregistration_allowed=False).unregistration_closes_at is None


def test_registration_opening_is_passed_through():
    opens = at(12, 0)

    assert deadlines_for(registration_opens_at=opens).registration_opens_at == opens
    assert deadlines_for().registration_opens_at is None


def test_unregistration_deadline_is_before_a_start_just_after_spring_forward():
    start = datetime(2026, 3, 29, 3, 10, tzinfo=COPENHAGEN)  # 01:10 UTC, ten minutes after the change

    closes = deadlines_for(start=start, unregistration_deadline_minutes=30).unregistration_closes_at

    assert closes == datetime(2026, 3, 29, 0, 40, tzinfo=UTC)
    assert elapsed(closes, start) == timedelta(minutes=30)


def test_late_registration_lasts_its_minutes_across_fall_back():
    start = datetime(2026, 10, 25, 2, 50, tzinfo=COPENHAGEN)  # CEST

    closes = deadlines_for(start=start).late_registration_closes_at

    assert elapsed(start, closes) == timedelta(minutes=20)


# validate_levels


def test_a_sound_structure_has_no_problems():
    assert validate_levels([Level(10, 20, 0, 15), Level(15, 30, 0, 15), Level(25, 50, 5, 15)]) == []


def test_a_structure_needs_a_level():
    assert validate_levels([]) == ["A blind structure needs at least one level."]


@pytest.mark.parametrize(
    ("level", "problem"),
    [
        (Level(0, 20, 0, 15), "Level 1: the small blind must be positive."),
        (Level(20, 20, 0, 15), "Level 1: the big blind must be larger than the small blind."),
        (Level(30, 20, 0, 15), "Level 1: the big blind must be larger than the small blind."),
        (Level(10, 20, -1, 15), "Level 1: the ante cannot be negative."),
        (Level(10, 20, 0, 0), "Level 1: a level lasts at least one minute."),
    ],
)
def test_a_bad_level_is_explained(level, problem):
    assert validate_levels([level]) == [problem]


@pytest.mark.parametrize(
    "second",
    [Level(10, 20, 0, 15), Level(5, 30, 0, 15), Level(15, 15, 0, 15)],
)
def test_blinds_must_increase_from_one_level_to_the_next(second):
    problems = validate_levels([Level(10, 20, 0, 15), second])

    assert "Level 2: blinds must increase from one level to the next." in problems


def test_the_ante_cannot_go_down():
    assert validate_levels([Level(10, 20, 5, 15), Level(15, 30, 0, 15)]) == ["Level 2: the ante cannot go down."]


def test_every_problem_is_reported_with_its_level():
    problems = validate_levels([Level(10, 20, 0, 15), Level(10, 20, -5, 0)])

    assert problems == [
        "Level 2: the ante cannot be negative.",
        "Level 2: a level lasts at least one minute.",
        "Level 2: blinds must increase from one level to the next.",
        "Level 2: the ante cannot go down.",
    ]


# Properties

PROPERTY = settings(database=None, deadline=None)

ZONES = (UTC, COPENHAGEN)
# Copenhagen's clocks change at 01:00 UTC; starts near a change are drawn often.
DST_CHANGES = (datetime(2026, 3, 29, 1, 0, tzinfo=UTC), datetime(2026, 10, 25, 1, 0, tzinfo=UTC))
any_minute = st.integers(min_value=0, max_value=2 * 366 * 24 * 60).map(
    lambda minutes: datetime(2025, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes)
)
near_a_dst_change = st.builds(
    lambda change, minutes: change + timedelta(minutes=minutes),
    st.sampled_from(DST_CHANGES),
    st.integers(min_value=-12 * 60, max_value=60),
)
starts = st.builds(lambda moment, zone: moment.astimezone(zone), any_minute | near_a_dst_change, st.sampled_from(ZONES))
level_lists = st.lists(
    st.integers(min_value=1, max_value=90).map(lambda minutes: Level(10, 20, 0, minutes)), min_size=1, max_size=25
)


def policies(*kinds: BreakKind) -> st.SearchStrategy[BreakPolicy]:
    return st.builds(
        BreakPolicy,
        kind=st.sampled_from(kinds or tuple(BreakKind)),
        minutes=st.integers(min_value=1, max_value=20),
        interval_minutes=st.integers(min_value=1, max_value=120),
        addon_break_minutes=st.integers(min_value=0, max_value=10),
    )


@st.composite
def schedules(draw, policy_strategy=policies()):  # noqa: B008 - strategies are immutable
    start = draw(starts)
    levels = draw(level_lists)
    policy = draw(policy_strategy)
    addon_after_level = draw(st.none() | st.integers(min_value=1, max_value=len(levels)))
    schedule = build_schedule(start=start, levels=levels, policy=policy, addon_after_level=addon_after_level)
    return start, levels, policy, addon_after_level, schedule


def utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


@PROPERTY
@given(schedules())
def test_levels_run_back_to_back_except_for_breaks(drawn):
    start, _levels, _policy, _addon_after_level, schedule = drawn
    break_spans = {(utc(b.starts_at), utc(b.ends_at)) for b in schedule.breaks}

    assert utc(schedule.levels[0].starts_at) == utc(start)
    for before, after in itertools.pairwise(schedule.levels):
        assert utc(after.starts_at) == utc(before.ends_at) or (utc(before.ends_at), utc(after.starts_at)) in break_spans


@PROPERTY
@given(schedules())
def test_each_level_plays_exactly_its_minutes(drawn):
    _start, levels, _policy, _addon_after_level, schedule = drawn

    assert len(schedule.levels) == len(levels)
    for scheduled in schedule.levels:
        played = elapsed(scheduled.starts_at, scheduled.ends_at) - breaks_within(
            schedule, scheduled.starts_at, scheduled.ends_at
        )
        assert played == timedelta(minutes=scheduled.level.minutes)


@PROPERTY
@given(schedules())
def test_total_play_time_is_the_sum_of_the_levels(drawn):
    start, levels, _policy, _addon_after_level, schedule = drawn
    end = schedule.levels[-1].ends_at

    assert elapsed(start, end) - breaks_within(schedule, start, end) == timedelta(
        minutes=sum(level.minutes for level in levels)
    )
    assert all(elapsed(b.ends_at, end) > timedelta() for b in schedule.breaks)


@PROPERTY
@given(schedules())
def test_breaks_never_overlap(drawn):
    *_, schedule = drawn

    for b in schedule.breaks:
        assert elapsed(b.starts_at, b.ends_at) > timedelta()
    for before, after in itertools.pairwise(schedule.breaks):
        assert elapsed(before.ends_at, after.starts_at) > timedelta()


@PROPERTY
@given(schedules(policies(BreakKind.SYNCHRONISED)))
def test_synchronised_breaks_start_at_55_past_on_the_wall_clock(drawn):
    *_, schedule = drawn

    for b in schedule.breaks:
        if not b.addon:
            for zone in (UTC, COPENHAGEN):
                local = b.starts_at.astimezone(zone)
                assert (local.minute, local.second) == (55, 0)


@PROPERTY
@given(schedules(policies(BreakKind.SYNCHRONISED)))
def test_no_55_past_during_play_goes_without_a_break(drawn):
    start, _levels, _policy, _addon_after_level, schedule = drawn
    end = schedule.levels[-1].ends_at

    moment = next_synchronised_break(start)
    while elapsed(moment, end) > timedelta():
        assert any(
            elapsed(b.starts_at, moment) >= timedelta() and elapsed(moment, b.ends_at) >= timedelta()
            for b in schedule.breaks
        ), moment
        moment = next_synchronised_break(moment)


@PROPERTY
@given(schedules(policies(BreakKind.SYNCHRONISED)))
def test_one_addon_break_after_the_rebuy_period(drawn):
    _start, levels, policy, addon_after_level, schedule = drawn
    addon_breaks = [b for b in schedule.breaks if b.addon]

    if policy.addon_break_minutes and addon_after_level is not None and addon_after_level < len(levels):
        assert len(addon_breaks) == 1
        assert utc(addon_breaks[0].starts_at) == utc(schedule.levels[addon_after_level - 1].ends_at)
        assert elapsed(addon_breaks[0].starts_at, addon_breaks[0].ends_at) >= timedelta(
            minutes=policy.addon_break_minutes
        )
    else:
        assert addon_breaks == []


@PROPERTY
@given(schedules(policies(BreakKind.INTERVAL)))
def test_interval_breaks_are_the_interval_of_play_apart(drawn):
    start, levels, policy, _addon_after_level, schedule = drawn
    interval = timedelta(minutes=policy.interval_minutes)
    total = sum(level.minutes for level in levels)

    assert not any(b.addon for b in schedule.breaks)
    # A break due exactly when the last level ends is never needed.
    assert len(schedule.breaks) == (total - 1) // policy.interval_minutes
    play_starts = [start] + [b.ends_at for b in schedule.breaks]
    for began, b in zip(play_starts, schedule.breaks, strict=False):
        assert elapsed(began, b.starts_at) == interval
        assert elapsed(b.starts_at, b.ends_at) == timedelta(minutes=policy.minutes)


@PROPERTY
@given(schedules(policies(BreakKind.NONE)))
def test_no_breaks_means_no_breaks(drawn):
    *_, schedule = drawn

    assert schedule.breaks == ()


# Stops: pauses and the wait for the last table before a break.


def stop(start: tuple[int, int], end: tuple[int, int]) -> Stop:
    return Stop(at(*start), at(*end))


def test_a_pause_shifts_every_level_and_interval_break_after_it():
    schedule = build_schedule(start=at(7, 25), levels=structure(5), policy=INTERVAL, stops=[stop((7, 30), (7, 40))])
    assert level_starts(schedule) == ["07:25", "07:55", "08:15", "08:40", "09:00"]
    assert break_times(schedule) == [("08:35", "08:40")]


def test_synchronised_breaks_stay_at_55_after_a_pause():
    schedule = build_schedule(start=at(7, 25), levels=structure(5), policy=SYNCHRONISED, stops=[stop((7, 30), (7, 40))])
    # Level 1 ends at 07:55 instead of 07:45, just as the :55 break is due.
    assert level_starts(schedule)[:3] == ["07:25", "08:00", "08:20"]
    assert break_times(schedule)[:2] == [("07:55", "08:00"), ("08:55", "09:00")]


def test_a_synchronised_break_inside_a_pause_is_not_taken():
    schedule = build_schedule(
        start=at(7, 25), levels=structure(3, minutes=60), policy=SYNCHRONISED, stops=[stop((7, 50), (8, 0))]
    )
    assert break_times(schedule)[0] == ("08:55", "09:00")
    assert [hhmm(level.ends_at) for level in schedule.levels[:2]] == ["08:35", "09:40"]


def test_the_wait_for_the_last_table_delays_the_break_and_what_follows():
    # Rule 17: the 07:55 break starts when the last table finishes its hand, at 07:56.
    schedule = build_schedule(
        start=at(7, 25), levels=structure(2, minutes=60), policy=SYNCHRONISED, stops=[stop((7, 55), (7, 56))]
    )
    assert break_times(schedule)[0] == ("07:56", "08:01")
    assert hhmm(schedule.levels[0].ends_at) == "08:31"


def test_a_pause_during_a_break_extends_the_break():
    schedule = build_schedule(start=at(7, 25), levels=structure(5), policy=INTERVAL, stops=[stop((8, 27), (8, 37))])
    assert break_times(schedule) == [("08:25", "08:40")]
    assert level_starts(schedule)[3] == "08:40"


def test_a_level_ending_as_a_pause_begins_ends_before_it():
    schedule = build_schedule(start=at(7, 0), levels=structure(3), policy=NO_BREAKS, stops=[stop((7, 20), (7, 30))])
    assert [hhmm(level.ends_at) for level in schedule.levels[:2]] == ["07:20", "07:50"]
    assert level_starts(schedule) == ["07:00", "07:30", "07:50"]


@settings(max_examples=200, deadline=None)
@given(
    start_minute=st.integers(0, 59),
    stop_after=st.integers(1, 5 * 60 * 60),
    stop_seconds=st.integers(1, 3 * 60 * 60),
    policy=st.sampled_from([INTERVAL, NO_BREAKS]),
)
def test_a_stop_shifts_exactly_what_comes_after_it(start_minute, stop_after, stop_seconds, policy):
    start = at(7, start_minute)
    paused = start + timedelta(seconds=stop_after)
    plain = build_schedule(start=start, levels=structure(8), policy=policy)
    stopped = build_schedule(
        start=start, levels=structure(8), policy=policy, stops=[Stop(paused, paused + timedelta(seconds=stop_seconds))]
    )
    shift = timedelta(seconds=stop_seconds)

    def moved(moment: datetime, *, starts: bool) -> datetime:
        # What begins as the stop begins waits for its end; what ends then, ends before it.
        return moment + shift if moment > paused or (starts and moment == paused) else moment

    for before, after in zip(plain.levels + plain.breaks, stopped.levels + stopped.breaks, strict=True):
        assert after.starts_at == moved(before.starts_at, starts=True)
        assert after.ends_at == moved(before.ends_at, starts=False)


def test_reading_the_clock_gives_the_level_the_break_and_the_next_change():
    schedule = build_schedule(start=at(7, 25), levels=structure(5), policy=INTERVAL)
    before = read_clock(schedule, at(7, 0))
    assert before.level is None
    assert before.on_break is None
    assert hhmm(before.next_change_at) == "07:25"
    playing = read_clock(schedule, at(7, 50))
    assert playing.level.number == 2
    assert playing.on_break is None
    assert hhmm(playing.next_change_at) == "08:05"
    resting = read_clock(schedule, at(8, 27))
    assert resting.level.number == 3
    assert hhmm(resting.on_break.ends_at) == "08:30"
    assert hhmm(resting.next_change_at) == "08:30"
    last = read_clock(schedule, at(11, 0))
    assert last.level.number == 5
    assert last.next_change_at is None
