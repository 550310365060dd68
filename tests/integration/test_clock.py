"""The tournament clock with a controlled clock (rules 2, 9, 17): each transition
once, at its instant; late and repeated calls; pause, resume, postpone; the
minimum entrants at the start."""

from datetime import UTC, datetime, timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, entrants, tables_finish
from tournaments.models import BreakPolicyKind, Status, Tournament
from tournaments.services.cancellation import tournament_postpone
from tournaments.services.clock import (
    structure_levels,
    tournament_advance,
    tournament_pause,
    tournament_resume,
)
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import hands_check_down
from tournaments.services.ticks import TICK_STEP, clock_tick_queue, tick_of
from tournaments.tasks import clock_tick, tournaments_sweep
from wallet.services import account_get, wallet_account_spec

pytestmark = pytest.mark.django_db

# Tomorrow 07:25 UTC: synchronised breaks at 07:55, 08:55 (rule 17).
START = (timezone.now() + timedelta(days=1)).replace(hour=7, minute=25, second=0, microsecond=0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def at(minutes: float) -> datetime:
    return START + timedelta(minutes=minutes)


def event(**fields) -> Tournament:
    fields = {
        "scheduled_start": START,
        "blind_structure": BlindStructureFactory(),  # 20-minute levels
        "break_policy": BreakPolicyKind.SYNCHRONISED,
        "break_minutes": 5,
        "late_registration_minutes": 20,
        "registration_opens_at": START - timedelta(hours=2),
        "status": Status.ANNOUNCED,
    } | fields
    tournament = TournamentFactory(**fields)
    entrants(tournament, now=START - timedelta(hours=1))
    return tournament


def clock_log(tournament: Tournament) -> list[tuple[str, str, int | None]]:
    """The clock's transitions as audited: (what, minutes after the start, level)."""
    rows = AuditEntry.objects.filter(subject_id=str(tournament.pk), action__startswith="tournaments.clock.")
    return [
        (
            row.action.removeprefix("tournaments.clock."),
            (datetime.fromisoformat(row.data["at"]) - START) / MINUTE if "at" in row.data else None,
            row.data.get("level"),
        )
        for row in rows.order_by("id")
    ]


def advance(tournament: Tournament, now: datetime) -> Tournament:
    tables_finish(tournament.pk, now=now)
    tournament.refresh_from_db()
    return tournament


def test_each_transition_happens_once_at_its_scheduled_instant():
    tournament = event()
    for minutes in [-130, -90, -1, 0, 0.5, 19, 20, 25, 30, 31, 35, 40, 45, 46]:
        advance(tournament, at(minutes))
        advance(tournament, at(minutes))  # a repeated task

    assert clock_log(tournament) == [
        ("registration_opened", -120, None),
        ("level", 20, 2),
        ("late_registration_closed", 20, None),
        ("break_pending", 30, None),  # the tables finish their hands (rule 17)
        ("break_began", 30, None),
        ("break_ended", 35, None),
        ("level", 45, 3),
    ]
    started = AuditEntry.objects.get(action="tournaments.tournament.started", subject_id=str(tournament.pk))
    assert started.data == {"entries": 2, "at": START.isoformat()}
    assert tournament.status == Status.RUNNING
    assert (tournament.level, tournament.level_ends_at) == (3, at(65))


def test_the_stored_reading_gives_every_countdown():
    tournament = event()
    before = advance(tournament, at(-30))
    assert (before.status, before.level, before.next_transition_at) == (Status.REGISTERING, 0, START)

    playing = advance(tournament, at(3))
    assert (playing.status, playing.level, playing.level_ends_at) == (Status.LATE_REGISTRATION, 1, at(20))
    assert (playing.break_ends_at, playing.next_transition_at) == (None, at(20))

    resting = advance(tournament, at(31))
    assert (resting.status, resting.break_ends_at, resting.next_transition_at) == (Status.ON_BREAK, at(35), at(35))
    # Level 2 was interrupted by the break: it ends five minutes later.
    assert (resting.level, resting.level_ends_at) == (2, at(45))


def test_a_late_call_catches_up_every_missed_transition_at_its_own_instant():
    tournament = event()
    advance(tournament, at(-1))

    advance(tournament, at(97))  # the worker was down for over an hour and a half

    assert clock_log(tournament)[1:] == [
        ("level", 20, 2),
        ("late_registration_closed", 20, None),
        ("break_pending", 30, None),  # the tables finish their hands (rule 17)
        ("break_began", 30, None),
        ("break_ended", 35, None),
        ("level", 45, 3),
        ("level", 65, 4),
        ("level", 85, 5),
        # Caught up in one call: the hands dealt after the first break come after it.
        ("break_began", 90, None),
        ("break_ended", 95, None),
    ]
    assert (tournament.status, tournament.level, tournament.level_ends_at) == (Status.RUNNING, 5, at(110))
    statuses = AuditEntry.objects.filter(action="tournaments.tournament.status", subject_id=str(tournament.pk))
    assert statuses.latest("id").data == {"from": "on_break", "to": "running", "at": at(95).isoformat()}


def test_a_repeated_call_writes_nothing():
    tournament = event()
    first = advance(tournament, at(21))
    rows = AuditEntry.objects.count()

    again = advance(tournament, at(21))
    sooner = advance(tournament, at(20.5))  # a task that runs after a later one

    assert again.updated_at == first.updated_at == sooner.updated_at
    assert AuditEntry.objects.count() == rows


def test_a_pause_stops_levels_and_breaks_and_resuming_shifts_them(staff):
    tournament = event(break_policy=BreakPolicyKind.INTERVAL, break_interval_minutes=60)
    advance(tournament, at(5))

    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Deal at table 1", now=at(10))
    paused = advance(tournament, at(40))  # the clock stands still: level 2 does not come
    assert (paused.status, paused.level, paused.level_ends_at, paused.pause_reason) == (
        Status.PAUSED,
        1,
        at(20),
        "Deal at table 1",
    )
    assert ("level", 20, 2) not in clock_log(tournament)

    tournament_resume(tournament_id=tournament.pk, actor=staff, now=at(40))
    resumed = advance(tournament, at(41))
    # 30 minutes paused: level 1 ends at 50 instead of 20, the first break at 90 instead of 60.
    assert (resumed.status, resumed.level, resumed.level_ends_at) == (Status.RUNNING, 1, at(50))
    advance(tournament, at(92))
    assert clock_log(tournament)[-7:] == [
        ("paused", 10, None),
        ("late_registration_closed", 20, None),  # on the wall clock
        ("resumed", 40, None),
        ("level", 50, 2),
        ("level", 70, 3),
        ("break_pending", 90, None),
        ("break_began", 90, None),
    ]
    paused_row = AuditEntry.objects.get(action="tournaments.clock.paused")
    assert (paused_row.actor, paused_row.reason) == (staff, "Deal at table 1")


def test_late_registration_closes_on_the_wall_clock_during_a_pause(staff):
    tournament = event()
    advance(tournament, at(5))
    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Server check", now=at(10))
    advance(tournament, at(25))
    assert ("late_registration_closed", 20, None) in clock_log(tournament)
    tournament_resume(tournament_id=tournament.pk, actor=staff, now=at(30))
    # Resumed at 07:55 sharp, the :55 break is still taken.
    assert advance(tournament, at(31)).status == Status.ON_BREAK
    assert advance(tournament, at(36)).status == Status.RUNNING


def test_pause_and_resume_refusals(staff):
    tournament = event()
    with pytest.raises(TournamentError) as before_start:
        tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Too soon", now=at(-5))
    assert before_start.value.code == "not_running"
    with pytest.raises(TournamentError) as no_reason:
        tournament_pause(tournament_id=tournament.pk, actor=staff, reason="  ", now=at(5))
    assert no_reason.value.code == "reason_required"
    with pytest.raises(TournamentError) as not_paused:
        tournament_resume(tournament_id=tournament.pk, actor=staff, now=at(5))
    assert not_paused.value.code == "not_paused"
    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Incident", now=at(5))
    with pytest.raises(TournamentError) as twice:
        tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Again", now=at(6))
    assert twice.value.code == "already_paused"


def test_below_the_minimum_at_the_start_cancels_and_refunds_everyone():
    tournament = event(min_entrants=3, max_entrants=100)
    players = [entry.player for entry in tournament.entries.all()]

    assert tournament_advance(tournament_id=tournament.pk, now=at(0.01)) == Status.CANCELLED

    tournament.refresh_from_db()
    assert tournament.status == Status.CANCELLED
    assert [account_get(wallet_account_spec(player.pk, "EUR")).balance for player in players] == [1_100, 1_100]
    cancelled = AuditEntry.objects.get(action="tournaments.tournament.cancelled")
    assert cancelled.reason == "Fewer than the minimum 3 entrants at the start."
    assert cancelled.data["at"] == START.isoformat()
    assert tournament_advance(tournament_id=tournament.pk, now=at(30)) == Status.CANCELLED


def test_postponing_moves_every_transition(staff):
    tournament = event()
    advance(tournament, at(-60))
    assert tournament.next_transition_at == START
    now = timezone.now()

    tournament_postpone(
        tournament_id=tournament.pk, actor=staff, new_start=START + timedelta(hours=1), reason="Server update", now=now
    )
    tournament.refresh_from_db()
    assert tournament.postponed_from == START
    assert now <= tournament.next_transition_at <= timezone.now()  # the sweep reads it again at once

    assert advance(tournament, at(30)).status == Status.REGISTERING
    assert tournament.next_transition_at == at(60)
    assert advance(tournament, at(61)).status == Status.LATE_REGISTRATION


def test_the_sweep_advances_what_is_overdue_and_queues_what_is_near():
    now = timezone.now()
    # New events are due for a first look at once.
    overdue = TournamentFactory(scheduled_start=now - timedelta(seconds=5))  # its start task was lost
    near = TournamentFactory(scheduled_start=now + timedelta(seconds=10))
    far = TournamentFactory(scheduled_start=now + timedelta(hours=5))
    tournament_advance(tournament_id=far.pk, now=now)

    assert tournaments_sweep() == 2

    overdue.refresh_from_db()
    assert overdue.status == Status.CANCELLED  # nobody registered
    near.refresh_from_db()
    assert near.next_transition_at == near.tick_at == near.scheduled_start  # a task is queued for the start
    assert tournaments_sweep() == 0  # nothing to do until then


def test_the_sweep_queues_a_near_transitions_task_without_advancing_the_clock(django_capture_on_commit_callbacks):
    now = timezone.now()
    tournament = TournamentFactory(scheduled_start=now + timedelta(seconds=20))
    tournament_advance(tournament_id=tournament.pk, now=now - timedelta(minutes=1))  # its start too far to queue
    tournament.refresh_from_db()
    assert tournament.tick_at is None
    audited = AuditEntry.objects.count()
    queued = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    before = queued.llen(settings.CLOCK_QUEUE)

    with django_capture_on_commit_callbacks(execute=True):
        assert tournaments_sweep() == 0  # nothing advanced

    tournament.refresh_from_db()
    assert tournament.tick_at == tournament.next_transition_at == tournament.scheduled_start
    assert queued.llen(settings.CLOCK_QUEUE) - before == 1  # the start's tick, on the clocks' queue
    assert AuditEntry.objects.count() == audited
    assert tournaments_sweep() == 0


def test_a_starting_worker_catches_up_at_once_what_a_dead_one_held():
    now = timezone.now()
    tournament = TournamentFactory(scheduled_start=now + timedelta(hours=1))
    tournament_advance(tournament_id=tournament.pk, now=now)
    # Its start was due a second ago, and a task was queued for it: with a worker that died.
    due = now - timedelta(seconds=1)
    Tournament.objects.filter(pk=tournament.pk).update(scheduled_start=due, next_transition_at=due, tick_at=due)

    assert tournaments_sweep() == 0  # a waiting task is not raced...
    assert tournaments_sweep(starting=True) == 1  # ...unless the worker starting holds none
    tournament.refresh_from_db()
    assert tournament.status == Status.CANCELLED  # nobody registered: its start has been applied


def test_one_tick_applies_every_transition_due_in_its_step():
    now = timezone.now()
    tick = tick_of(now - timedelta(seconds=1))
    starts = [tick - TICK_STEP + timedelta(milliseconds=1), tick, tick + timedelta(milliseconds=1)]
    events = [TournamentFactory(scheduled_start=start) for start in starts]
    for tournament in events:
        tournament_advance(tournament_id=tournament.pk, now=now - timedelta(seconds=2))

    assert clock_tick(tick.isoformat()) == 2

    statuses = [Tournament.objects.get(pk=tournament.pk).status for tournament in events]
    # Nobody registered: a start applied cancels; the third start is the next tick's.
    assert statuses == [Status.CANCELLED, Status.CANCELLED, Status.REGISTERING]
    assert clock_tick(tick.isoformat()) == 0  # a repeated tick finds nothing due


def test_levels_read_for_many_events_at_once_give_each_event_its_own_structures():
    quick = BlindStructureFactory(levels=[(10, 20, 0, 10), (20, 40, 0, 10), (40, 80, 0, 10)])
    slow = BlindStructureFactory(levels=[(10, 20, 0, 30), (20, 40, 0, 30)])
    events = [event(blind_structure=structure, break_policy=BreakPolicyKind.NONE) for structure in (quick, slow, quick)]
    read = structure_levels({quick.pk})  # as a tick reads them, before any lock; the slow one's read on its own

    for tournament in events:
        tournament_advance(tournament_id=tournament.pk, now=at(20.01), levels=read)

    # 20 minutes in: the quick structure's third level, the slow one's first.
    assert [Tournament.objects.get(pk=t.pk).level for t in events] == [3, 1, 3]
    assert [len(levels) for levels in structure_levels([slow.pk, quick.pk]).values()] == [2, 3]


def test_the_ticks_lie_on_a_grid_and_each_is_queued_once():
    due = timezone.now() + timedelta(seconds=20)
    tick = tick_of(due)
    assert due <= tick < due + TICK_STEP
    assert tick_of(tick) == tick
    assert tick_of(due + TICK_STEP) == tick + TICK_STEP

    queued = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    before = queued.llen(settings.CLOCK_QUEUE)
    clock_tick_queue(due)
    clock_tick_queue(due + (tick - due) / 2)  # another transition in the same step
    clock_tick_queue(tick + timedelta(milliseconds=1))  # the next step
    assert queued.llen(settings.CLOCK_QUEUE) - before == 2


def test_late_registration_closing_while_a_break_waits_for_the_tables_keeps_the_clock_stopped():
    tournament = event(late_registration_minutes=40)
    tournament_advance(tournament_id=tournament.pk, now=at(31))  # the :55 break waits for the hand in play
    assert Tournament.objects.get(pk=tournament.pk).break_pending_since == at(30)

    # Late registration closes on the wall clock, the tables still playing.
    tournament_advance(tournament_id=tournament.pk, now=at(41))

    waiting = Tournament.objects.get(pk=tournament.pk)
    assert (waiting.status, waiting.level, waiting.break_pending_since) == (Status.ON_BREAK, 2, at(30))
    hands_check_down(tournament_id=tournament.pk, now=at(42))  # the last table finishes
    advance(tournament, at(58))
    # Twelve minutes waiting for the tables, the five-minute break, then the rest of level 2.
    assert clock_log(tournament)[-5:] == [
        ("break_pending", 30, None),
        ("late_registration_closed", 40, None),
        ("break_began", 42, None),
        ("break_ended", 47, None),
        ("level", 57, 3),
    ]
