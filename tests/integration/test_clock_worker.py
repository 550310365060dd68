"""A real Celery worker (with beat) on Redis runs a tournament with two-second
levels through its start, levels, a break and a pause; then the worker is killed
(SIGKILL) mid-level and restarted, and the tournament goes on with no transition
missed or repeated (rules 2, 17). The test closes the window itself (it stops the
clock) and then compares: nothing it asserts depends on how fast the machine is."""

import signal
import time
from datetime import datetime, timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tests.worker import Worker
from tournaments.models import BreakPolicyKind, Entry, Tournament
from tournaments.rules.lifecycle import transitions
from tournaments.selectors.schedules import tournament_deadlines, tournament_schedule
from tournaments.services.clock import tournament_pause, tournament_resume

pytestmark = pytest.mark.django_db(transaction=True)

# How long the test waits for what must happen before it calls it lost: a failure's
# deadline only, never a measure of the worker.
PATIENCE = 120


def wait_until(moment: datetime) -> None:
    time.sleep(max(0.0, (moment - timezone.now()).total_seconds()))


@pytest.fixture
def worker(tmp_path):
    # Tasks queued by earlier tests name tournaments of theirs: start from an empty broker.
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    worker = Worker(tmp_path, env={"TABLE_HAND_GAP_SECONDS": "0.5"})
    worker.start()
    yield worker
    worker.kill()


# Not transitions: a break that waits for the hands in play is a stop of the clock, like a pause.
STOPS = ("tournaments.clock.paused", "tournaments.clock.resumed", "tournaments.clock.break_pending")


def applied_clock(tournament_id: int) -> list[tuple[str, datetime, int | None]]:
    """The clock's transitions as the audit log has them, in the order applied."""
    rows = AuditEntry.objects.filter(subject_id=str(tournament_id), action__startswith="tournaments.clock.")
    return [
        (row.action.removeprefix("tournaments.clock."), datetime.fromisoformat(row.data["at"]), row.data.get("level"))
        for row in rows.order_by("id")
        if row.action not in STOPS
    ]


def test_a_real_worker_runs_the_clock_and_survives_a_kill(worker, staff):
    structure = BlindStructureFactory(levels=[(10 * n, 20 * n, 0, 0, 2) for n in range(1, 41)])
    start = timezone.now() + timedelta(seconds=4)
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=start,
        status="registering",
        break_policy=BreakPolicyKind.INTERVAL,
        break_interval_minutes=0,
        break_interval_seconds=6,  # a break after every 6 s of play
        break_minutes=0,
        break_seconds=3,
    )
    entrants(tournament)
    # Both players are away: the worker plays their hands too (each checks or folds at
    # once), and each break waits for the hand in play.
    Entry.objects.filter(tournament=tournament).update(sitting_out=True)
    # Nothing else tells the worker: its sweep finds the new event and queues its start.

    def at(seconds: float) -> datetime:
        return start + timedelta(seconds=seconds)

    wait_until(at(10))  # level 4 (9-11 s), after the first break (6-9 s)
    paused = timezone.now()
    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Incident at table 2", now=paused)
    wait_until(at(12))
    tournament_resume(tournament_id=tournament.pk, actor=staff, now=timezone.now())
    wait_until(at(14.5))  # mid-level
    worker.kill(signal.SIGKILL)
    killed = timezone.now()
    time.sleep(2.5)  # transitions fall due while no worker runs
    worker.start()
    restarted = timezone.now()
    wait_until(at(26))  # the scenario's length: more levels and a break after the restart

    # The restarted worker at work: it has applied a transition due after its start
    # (and, the clock applying them in order, everything before).
    deadline = time.monotonic() + PATIENCE
    while not any(due > restarted for _, due, _ in applied_clock(tournament.pk)):
        assert time.monotonic() < deadline, f"the restarted worker applied nothing\n{worker.log()}"
        time.sleep(0.2)
    # The window closes here: with the clock stopped nothing more falls due, so
    # whatever the worker does from now on, the transitions up to here are all.
    stopped = tournament_pause(tournament_id=tournament.pk, actor=staff, reason="End of the test", now=timezone.now())
    worker.kill(signal.SIGTERM)
    end = stopped.paused_at

    tournament.refresh_from_db()
    expected = [
        (t.change.value, t.at, t.level)
        for t in transitions(
            start=start,
            registration_opens_at=tournament.registration_opens_at,
            late_registration_closes_at=tournament_deadlines(tournament).late_registration_closes_at,
            schedule=tournament_schedule(tournament, end),
        )
        if t.at <= end and t.change != "started"
    ]
    applied = applied_clock(tournament.pk)
    log = worker.log()
    # Every transition due before the clock stopped, once each, in order, at its
    # scheduled instant (the first pause shifting what followed), none lost to the kill.
    assert applied == expected, log
    assert (
        AuditEntry.objects.filter(action="tournaments.tournament.started", subject_id=str(tournament.pk)).count() == 1
    )
    # The first pause (the second is still on), and any waits of a break for a hand.
    assert sum(stop[0] == paused.isoformat() for stop in tournament.clock_stops) == 1
    assert any(change == "break_began" for change, _, _ in expected)
    assert any(killed < due < restarted for _, due, _ in expected), "nothing fell due during the outage"
    # Levels 2 to 5 before the kill, one more during the outage (a break's wait for
    # the hand in play stops the clock, so how many follow depends on the worker).
    assert sum(change == "level" for change, _, _ in expected) >= 5
    final = Tournament.objects.get(pk=tournament.pk)
    assert final.level == max(level for change, _, level in applied if change == "level")
