"""How late does the tournament clock apply its transitions, with 500 tournaments
running at once on a real worker?

Production-like: DEBUG=0, PostgreSQL in a throwaway database (migrated), Redis
database 11 as the broker (flushed first: nothing else uses it), and the Procfile's
`clock` (prefork, `--concurrency 2`: the clocks' worker, measured), `worker` (the
tables' hands) and `beat` lines started as written, with `config.settings` from the
environment.

500 cash tournaments with two entrants each (funded with deposit_create, entered
with entry_register) on structures of 10, 12 or 15-second levels, with an interval
break of 5 s after every 40 s of play. They are created a day ahead and, once every
entrant is in and the worker is up, moved (tournament_save, as an admin's edit) to
start within a few seconds of each other, LEAD seconds later: beat's sweep then
finds them and queues each start, as it does 30 s ahead in production. From then
on nothing but the clock's ETA tasks (clock_tick) and the sweep move the
clocks, and each transition also sends its live update (lobby.live). The
structures are finite, so every clock has made its last transition about 75 s
after the first start, later where a break waited for a hand to end (rule 17) and
moved the levels after it; the run waits for the stragglers, then stops the worker.

Lateness of a transition: its audit row's created_at (when tournament_advance
applied it) minus data["at"] (its scheduled instant), over every
`tournaments.clock.*` and `tournaments.tournament.started` row. Checked against
the pure schedule (tournaments.rules): every transition due by the end (GRACE before
the clock was stopped) applied
exactly once, nothing else; any breach fails the run (exit status 1). Also
printed: CPU per transition of the clock (its main process and pool children),
beat and PostgreSQL (see CpuMeter), from /proc, over the clock's run, and what the
rest of the machine used meanwhile: other load makes the clock late too.

    uv run python bench/clock.py [--tournaments 500] [--concurrency 2]

Ends with `RESULT clock_p50_ms` and `RESULT clock_p99_ms` (target: p99 < 250 ms on
this 2-core machine); only for the default set-up. About 2 minutes.
"""

import argparse
import math
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import psycopg  # noqa: E402
import redis  # noqa: E402

from bench.harness import procfile, production_environment, stop  # noqa: E402

REDIS_URL = os.environ.get("BENCH_CLOCK_REDIS_URL", "redis://127.0.0.1:6379/11")
TOURNAMENTS = 500
CONCURRENCY = 2  # the Procfile's default CLOCK_CONCURRENCY
PLAYERS = 50  # each enters TOURNAMENTS * 2 / PLAYERS events
BUY_IN, FEE = 1_000, 100
# Seconds per level, and how many levels: each structure's last level starts 60 s of
# play after the start (the last level's end changes nothing). Short levels make 500
# events change about 70 times a second, as many as tens of thousands of events on
# a room's real 3-to-20-minute levels.
STRUCTURES = {10: 7, 12: 6, 15: 5}
BREAK_EVERY, BREAK_LENGTH = 40, 5  # seconds of play between interval breaks, seconds of break
SPREAD = 5.0  # seconds over which the starts are spread
# Seconds from the move of the starts (once the worker is up) to the first one:
# beat's sweep queues the 500 starts before any is due.
LEAD = 15.0
DRAIN = 15.0  # seconds to wait after the last due transition for the stragglers
# A transition due this close to the clock's stop may be applied after it: not checked.
GRACE = timedelta(seconds=2)
# Every structure's transitions fall within this of its start; late registration
# closes later (20 minutes), after the run.
HORIZON = timedelta(minutes=5)
PENDING = "break_pending"  # tournaments.services.clock: a break that waits for the hands in play
BOOT_SECONDS = 60


# --- Setup.


def seed(count: int) -> list[int]:
    """The structures, funded players, and `count` registering events a day ahead,
    each with two entrants; returns the events' ids."""
    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import BlindLevel, BlindStructure, BreakPolicyKind, Status, Tournament
    from tournaments.services.editing import tournament_save
    from tournaments.services.entries import entry_register
    from wallet.services import deposit_create

    structures = []
    for seconds, levels in STRUCTURES.items():
        structure = BlindStructure.objects.create(name=f"Bench {seconds}-second")
        BlindLevel.objects.bulk_create(
            BlindLevel(
                structure=structure, position=i, small_blind=10 * i, big_blind=20 * i, minutes=0, seconds=seconds
            )
            for i in range(1, levels + 1)
        )
        structures.append(structure)
    players = []
    for number in range(PLAYERS):
        player = User.objects.create_user(f"bench{number}", f"bench{number}@example.com", screen_name=f"Bench{number}")
        deposit_create(
            user=player, currency="EUR", amount=count * (BUY_IN + FEE), idempotency_key=f"bench-clock:{number}"
        )
        players.append(player)
    now = timezone.now()
    ids = []
    for number in range(count):
        tournament = Tournament(
            name=f"Bench Turbo #{number}",
            status=Status.REGISTERING,
            buy_in=BUY_IN,
            fee=FEE,
            scheduled_start=now + timedelta(days=1),
            blind_structure=structures[number % len(structures)],
            break_policy=BreakPolicyKind.INTERVAL,
            break_interval_minutes=0,
            break_interval_seconds=BREAK_EVERY,
            break_minutes=0,
            break_seconds=BREAK_LENGTH,
        )
        tournament_save(tournament=tournament, actor=None, changed=[], created=True)
        for seat in range(2):
            player = players[(2 * number + seat) % PLAYERS]
            entry_register(tournament_id=tournament.pk, player=player, now=timezone.now())
        ids.append(tournament.pk)
    return ids


def move_starts(ids: list[int], first: datetime) -> None:
    """Every event starts within SPREAD seconds from `first`, through the admin's save."""
    from tournaments.models import Tournament
    from tournaments.services.editing import tournament_save

    for number, tournament in enumerate(Tournament.objects.filter(pk__in=ids).order_by("pk")):
        tournament.scheduled_start = first + timedelta(seconds=SPREAD * number / len(ids))
        tournament_save(tournament=tournament, actor=None, changed=["scheduled_start"], created=False)


def expected_transitions(ids: list[int], until: datetime) -> dict[int, list[tuple]]:
    """What the pure schedule says each event does by `until`: (change, at, level)."""
    from tournaments.models import Tournament
    from tournaments.rules.lifecycle import transitions
    from tournaments.selectors.schedules import tournament_deadlines, tournament_schedule

    expected = {}
    for tournament in Tournament.objects.filter(pk__in=ids).select_related("blind_structure"):
        found = transitions(
            start=tournament.scheduled_start,
            registration_opens_at=tournament.registration_opens_at,
            late_registration_closes_at=tournament_deadlines(tournament).late_registration_closes_at,
            schedule=tournament_schedule(tournament, until),
        )
        expected[tournament.pk] = [
            (t.change.value, t.at, t.level if t.change == "level" else None) for t in found if t.at <= until
        ]
    return expected


# --- The worker.


class Processes:
    """The Procfile's Celery lines and `beat`, each under bash as written, in its own
    process group."""

    def __init__(self, tmp: Path, env: dict[str, str]):
        self.tmp = tmp
        self.env = env
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, command: str) -> None:
        with (self.tmp / f"{name}.log").open("wb") as log:
            self.procs[name] = subprocess.Popen(
                ["bash", "-c", f"exec {command}"],
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: stopping it stops the pool's children too
            )

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}\n{self.log(name)}")

    def log(self, name: str, lines: int = 30) -> str:
        path = self.tmp / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        for proc in reversed(self.procs.values()):  # beat first: no sweep starts while the worker stops
            stop(proc)


def start_celery(processes: Processes) -> None:
    """Starts the Procfile's `worker` (the tables), `clock` and `beat`, and waits until
    both workers answer."""
    command = procfile()
    for name in ("worker", "clock", "beat"):
        processes.start(name, command[name])
    wait_for_worker(processes)


def wait_for_worker(processes: Processes) -> None:
    """Until every Celery worker started (`worker`'s table nodes, `clock`) answers a ping over the broker."""
    from django.conf import settings

    from config.celery import app

    workers = {"worker", "clock"} & processes.procs.keys()
    expected = ("worker" in workers) * settings.TABLE_NODES + ("clock" in workers)
    deadline = time.monotonic() + BOOT_SECONDS
    while time.monotonic() < deadline:
        processes.check_alive()
        if len(app.control.ping(timeout=0.5)) >= expected:
            return
    logs = "\n".join(processes.log(name) for name in sorted(workers))
    raise RuntimeError(f"the workers did not answer in {BOOT_SECONDS} s\n{logs}")


class CpuMeter:
    """CPU seconds as the kernel counts them: the clock's worker's main process (it takes
    the tasks from Redis and releases the ETA tasks when due), its pool children, beat,
    PostgreSQL, and the whole machine (other load skews the lateness). Celery's
    Django fix-up closes the database connection around every task, so most
    backends live for one task: PostgreSQL is this database's connected backends
    plus every backend that exited meanwhile (counted by the postmaster that reaped
    it; on a shared machine, other databases' too). The connection that samples
    also polls the audit log; its own backend is left out."""

    def __init__(self, processes: Processes, conninfo: str):
        self.tick = os.sysconf("SC_CLK_TCK")
        self.worker = processes.procs["clock"].pid
        self.beat = processes.procs["beat"].pid
        self.conn = psycopg.connect(conninfo, autocommit=True)
        self.postmaster = int(self.stat(self.conn.execute("SELECT pg_backend_pid()").fetchone()[0])[1])

    @staticmethod
    def stat(pid: int) -> list[str]:
        """Fields of /proc/<pid>/stat from the state on (the name may hold spaces)."""
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return []
        return text[text.rindex(")") + 2 :].split()

    def seconds(self, pid: int, *, own: bool = True, reaped: bool = False) -> float:
        fields = self.stat(pid)
        if len(fields) < 15:
            return 0.0
        used = int(fields[11]) + int(fields[12]) if own else 0  # utime + stime
        if reaped:  # children that exited count in cutime + cstime
            used += int(fields[13]) + int(fields[14])
        return used / self.tick

    def children(self, parent: int) -> list[int]:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
        return [pid for pid in pids if (fields := self.stat(pid)) and fields[1] == str(parent)]

    def sample(self) -> dict[str, dict]:
        backends = self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        with Path("/proc/stat").open() as stat:
            jiffies = [int(n) for n in stat.readline().split()[1:]]
        return {
            "main process": {self.worker: self.seconds(self.worker, reaped=True)},
            "pool": {pid: self.seconds(pid) for pid in self.children(self.worker)},
            "beat": {self.beat: self.seconds(self.beat, reaped=True)},
            "PostgreSQL": {
                "exited": self.seconds(self.postmaster, own=False, reaped=True),
                **{pid: self.seconds(pid) for (pid,) in backends},
            },
            # Busy: everything but idle and iowait.
            "machine": {"busy": (sum(jiffies[:8]) - jiffies[3] - jiffies[4]) / self.tick},
        }

    @staticmethod
    def spent(before: dict, after: dict) -> dict[str, float]:
        return {
            side: sum(seconds - before[side].get(pid, 0.0) for pid, seconds in after[side].items()) for side in after
        }

    def sessions(self) -> int:
        """Connections opened to this database so far (PostgreSQL 14+)."""
        return self.conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()").fetchone()[
            0
        ]

    def applied(self, ids: list[int]) -> int:
        return self.conn.execute(
            "SELECT count(*) FROM audit_auditentry"
            " WHERE subject_type = 'tournaments.tournament' AND subject_id = ANY(%s)"
            " AND (action LIKE 'tournaments.clock.%%' OR action = 'tournaments.tournament.started')"
            " AND action <> %s",
            [[str(pk) for pk in ids], f"tournaments.clock.{PENDING}"],
        ).fetchone()[0]

    def starts_queued(self, ids: list[int]) -> int:
        return self.conn.execute(
            "SELECT count(*) FROM tournaments_tournament WHERE id = ANY(%s) AND tick_at = scheduled_start", [ids]
        ).fetchone()[0]


# --- The verdict.


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest rank: the smallest value with at least `fraction` of them at or below it."""
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def applied_transitions(ids: list[int]) -> tuple[dict[int, list[tuple]], list[tuple]]:
    """The audited transitions per event, (change, at, level) in the order applied, and
    every one's (due, applied, change) for the lateness."""
    from audit.models import AuditEntry

    rows = AuditEntry.objects.filter(subject_type="tournaments.tournament", subject_id__in=[str(pk) for pk in ids])
    rows = rows.filter(action__startswith="tournaments.clock.") | rows.filter(action="tournaments.tournament.started")
    applied = defaultdict(list)
    timings = []
    for action, subject_id, data, created_at in rows.order_by("id").values_list(
        "action", "subject_id", "data", "created_at"
    ):
        change = "started" if action == "tournaments.tournament.started" else action.removeprefix("tournaments.clock.")
        due = datetime.fromisoformat(data["at"])
        applied[int(subject_id)].append((change, due, data.get("level") if change == "level" else None))
        timings.append((due, created_at, change))
    return applied, timings


def check(expected: dict[int, list[tuple]], applied: dict[int, list[tuple]]) -> list[str]:
    """Every expected transition applied exactly once, in order, and nothing else. A
    break the clock reached while a hand was in play is audited as pending, then begins
    when the hand ends (rule 17): the pending row is the clock's, not the schedule's."""
    problems = []
    for pk, due in expected.items():
        done = [t for t in applied.get(pk, []) if t[0] != PENDING]
        repeated = [t for t, n in Counter(done).items() if n > 1]
        if repeated:
            problems.append(f"tournament {pk}: applied more than once: {repeated[:3]}")
        missed = [t for t in due if t not in done]
        if missed:
            problems.append(f"tournament {pk}: {len(missed)} missed, first {missed[0]}")
        extra = [t for t in done if t not in due]
        if extra:
            problems.append(f"tournament {pk}: {len(extra)} not in its schedule, first {extra[0]}")
        if not repeated and not missed and not extra and done != due:
            problems.append(f"tournament {pk}: applied out of order")
    return problems


def report_lateness(timings: list[tuple], first: datetime) -> list[float]:
    """Prints the lateness overall, by kind and by 5-second slice of the run; returns
    the lateness in ms, sorted."""
    late = sorted((applied - due).total_seconds() * 1000 for due, applied, _ in timings)

    def line(label: str, values: list[float]) -> str:
        values = sorted(values)
        return (
            f"  {label:<24} {len(values):6d}  p50 {percentile(values, 0.5):8.1f}  p99 {percentile(values, 0.99):8.1f}"
            f"  max {values[-1]:8.1f} ms"
        )

    print("lateness (applied - scheduled):")
    print(line("all", late))
    by_kind = defaultdict(list)
    by_slice = defaultdict(list)
    for due, applied, change in timings:
        ms = (applied - due).total_seconds() * 1000
        by_kind[change].append(ms)
        by_slice[int((due - first).total_seconds() // 5)].append(ms)
    for change in sorted(by_kind):
        print(line(change, by_kind[change]))
    print("  by scheduled instant, seconds after the first start:")
    for number in sorted(by_slice):
        print(line(f"{5 * number:3d}-{5 * number + 5:3d} s", by_slice[number]))
    if late[0] < 0:
        print(f"  (earliest {late[0]:.1f} ms: applied before its instant)")
    return late


# --- The run.


@dataclass
class Run:
    """What the worker did while the clocks ran."""

    seconds: float  # from just before the first start to the last transition applied (or the drain's end)
    drained: datetime  # when the clock was last seen running: the check covers what was due by then
    cpu: dict[str, float]  # CPU seconds by side, see CpuMeter
    sessions: int  # PostgreSQL connections opened


def run_clocks(ids: list[int], tmp: Path) -> tuple[Run, datetime, datetime, int]:
    """Starts the worker and beat, then moves the starts LEAD seconds ahead; waits
    while the clocks run and until every transition is applied (or DRAIN seconds
    after the last is due), stops them. Returns the run, the first start and how
    many transitions were scheduled, and when the last is due."""
    from django.db import connections
    from django.utils import timezone

    processes = Processes(tmp, dict(os.environ))
    try:
        start_celery(processes)
        first = timezone.now() + timedelta(seconds=LEAD)
        move_starts(ids, first)
        scheduled = expected_transitions(ids, first + HORIZON)
        last_due = max(at for due in scheduled.values() for _, at, _ in due)
        total = sum(len(due) for due in scheduled.values())
        connections.close_all()  # its backend would count as the clock's PostgreSQL CPU
        meter = CpuMeter(processes, os.environ["DATABASE_URL"])
        print(f"worker and beat up {(first - timezone.now()).total_seconds():.1f} s before the first start")
        # The sweep queues the starts (a tournament_advance each) before the clocks run.
        while meter.starts_queued(ids) < len(ids) and timezone.now() < first:
            time.sleep(0.2)
        ahead = (first - timezone.now()).total_seconds()
        print(f"starts queued by the sweep: {meter.starts_queued(ids)} of {len(ids)}, {ahead:.1f} s ahead")
        time.sleep(max(0.0, ahead - 0.5))
        before, sessions = meter.sample(), meter.sessions()
        began = time.monotonic()
        time.sleep(max(0.0, (last_due - timezone.now()).total_seconds()))
        drain_until = time.monotonic() + DRAIN
        while meter.applied(ids) < total:
            processes.check_alive()
            if time.monotonic() >= drain_until:
                # A break that waited for a hand (rule 17) moved the levels after it: the schedule as it is now.
                shifted = expected_transitions(ids, first + HORIZON)
                latest = max(at for due in shifted.values() for _, at, _ in due)
                wait = (latest - timezone.now()).total_seconds() + DRAIN
                if wait <= 0:
                    break
                drain_until = time.monotonic() + wait
            time.sleep(0.2)
        run = Run(
            time.monotonic() - began,
            timezone.now(),
            meter.spent(before, meter.sample()),
            meter.sessions() - sessions,
        )
        meter.conn.close()
        return run, first, last_due, total
    finally:
        processes.stop()


def report_cpu(run: Run, transitions: int) -> None:
    ours = sum(seconds for side, seconds in run.cpu.items() if side != "machine")
    per = {side: 1000 * seconds / max(transitions, 1) for side, seconds in run.cpu.items()}
    worker = per["main process"] + per["pool"]
    print(
        f"CPU a transition {worker + per['beat'] + per['PostgreSQL']:.2f} ms: clock {worker:.2f}"
        f" (main process {per['main process']:.2f}, pool {per['pool']:.2f}), beat {per['beat']:.2f},"
        f" PostgreSQL {per['PostgreSQL']:.2f}; {run.sessions} PostgreSQL connections opened"
    )
    print(
        f"CPU seconds over the {run.seconds:.1f} s on {os.cpu_count()} cores: "
        + ", ".join(f"{side} {seconds:.1f}" for side, seconds in run.cpu.items() if side != "machine")
        + f"; the rest of the machine {run.cpu['machine'] - ours:.1f} (this process, other load)"
    )


def bench(args: argparse.Namespace, began: float, tmp: Path) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    ids = seed(args.tournaments)
    print(
        f"setup (database, migrate, {args.tournaments} events, {2 * args.tournaments} entries through"
        f" entry_register): {time.monotonic() - began:.1f} s"
    )
    redis.Redis.from_url(REDIS_URL).flushdb()  # tasks of an earlier run name events of a dropped database
    run, first, last_due, total = run_clocks(ids, tmp)
    applied, timings = applied_transitions(ids)
    until = run.drained - GRACE
    applied_by = {pk: [t for t in done if t[1] <= until] for pk, done in applied.items()}
    problems = check(expected_transitions(ids, until), applied_by)
    instants = len({(pk, at) for pk, done in applied.items() for change, at, _ in done if change != PENDING})
    waited = sum(change == PENDING for _, _, change in timings)
    print(
        f"{len(timings) - waited} transitions applied of {total} scheduled (at {instants} instants; {waited}"
        f" breaks reached during a hand, each begun when it ended), due from"
        f" {first:%H:%M:%S} to {last_due:%H:%M:%S} (+{(last_due - first).total_seconds():.0f} s);"
        f" {run.seconds:.1f} s from the first start to the last applied"
    )
    late = report_lateness(timings, first)
    report_cpu(run, len(timings))
    print(f"clock: the Procfile's, prefork --concurrency {args.concurrency}; total {time.monotonic() - began:.1f} s")
    if problems:
        print(f"CORRECTNESS FAILED in {len(problems)} tournaments:")
        for problem in problems[:20]:
            print(f"  {problem}")
    else:
        print(f"correct: each of the {total} scheduled transitions applied once, in order, and nothing else")
    p50, p99 = percentile(late, 0.5), percentile(late, 0.99)
    if args.tournaments == TOURNAMENTS and args.concurrency == CONCURRENCY:
        print(f"RESULT clock_p50_ms {p50:.1f}")
        print(f"RESULT clock_p99_ms {p99:.1f}")
    else:
        print(f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (no RESULT lines: not the default set-up)")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=TOURNAMENTS, help="events running at once")
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY, help="the clock's CLOCK_CONCURRENCY")
    args = parser.parse_args()
    began = time.monotonic()

    with production_environment("portal_benchclock", REDIS_URL, CLOCK_CONCURRENCY=str(args.concurrency)) as tmp:
        return bench(args, began, tmp)


if __name__ == "__main__":
    sys.exit(main())
