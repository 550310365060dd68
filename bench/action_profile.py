"""Where the CPU of one table action goes: PokerKit, our rules, the ORM and the
database driver, template rendering, Channels and Redis, Celery, our services.

A tournament of `--tables` (20) x 9 bots on a throwaway PostgreSQL database
(migrated), Redis `BENCH_PROFILE_REDIS_URL` (database 9, flushed: the broker, the
channel layer, the cache and the sessions) with the production settings
(config.settings, DEBUG off, channels_redis's Pub/Sub layer), 10,000 chips at
50/100 for the whole run; at each table one seat, not the first to act, is a
person (is_bot off, signed in with Django's test Client). Every table is watched:
its group in every language the site speaks, the event's tables group, Tournament
Info and the lobby are marked listened (live.groups.mark_listened, as a socket
does), and each person's own groups (his table page's, in English). Bots think for TABLE_BOT_SECONDS=0.001 and
hands follow each other at once (TABLE_HAND_GAP_SECONDS=0), so each bot turn is
one task and nothing waits on the clock.

This process plays the room in turn, one action a unit, each measured alone:
- a bot's turn as the worker plays it: the task `tournaments.tasks.hand_due`
  (hand_due_reported) called in-process with the arguments the hand queued, the
  hand's report to the floor and the next deal included when the turn ends it;
- a person's action as the web process plays it: an htmx form POST (check or
  call) to `/tournaments/<id>/tables/<n>/act/` through Django's test Client with
  his session and CSRF token, the transaction's on-commit callbacks run as they
  run in production; when it ends the hand, the task the hand queued for the floor
  (`tournaments.tasks.hand_report`) as the worker would run it;
- in both, the live delivery each commit triggers, by the real code: the outbox
  (live.outbox), the publishers rendering the table's public part in each language
  and each person's own part whose turn it is now or whose hand ended (lobby.live),
  the listened marks read from Redis (live.delivery), and the group
  sends on the channel layer by the sending loop's thread (live.sending), waited
  for until its queue is drained; the turn's next task queued on the Redis broker
  (Celery's apply_async), never run by a worker: this process plays it.

A unit is measured from before the call until the sending loop has sent what it
caused: CPU of this process (time.process_time, every thread: the sending loop's
included), SQL statements (CaptureQueriesContext on the default connection), and
the CPU of this connection's PostgreSQL server process (/proc, for information).
After `--warm-up` (40) units, 2 x `--actions` (500) units in turn: one without
cProfile, the next under it, so both halves play the same mix of turns, hands'
ends and deals. The first half gives the CPU and statements per action (the
RESULTs; cProfile roughly doubles the CPU), and a sampled breakdown to check the
profile against (SIGPROF on the process's CPU, the category of the main thread's
innermost frame: no cost by call, so it does not weigh the code of many small
calls, the ORM's and the templates', more than the rest). The second half gives
the profile: each function's own time (tottime) goes to a category by its file's
path, a built-in (C) function's to its callers' categories in proportion. The
profile's clock is the wall's (a CPU clock costs a system call at each event,
several times the work measured), so the time spent waiting (psycopg's wait on
PostgreSQL's answer, a socket's read, the poll of the sending loop's thread, a
lock, a sleep) is put aside and printed beside it. Python 3.12's cProfile sees
every thread, so the sending loop's work is in the profile.

    uv run python bench/action_profile.py [--tables 20] [--actions 500] [--warm-up 40] [--top 25] [--dump FILE]

Prints the actions profiled, CPU ms and statements per action (all, the worker's,
the web's; each split into the actions after which the hand went on and those that
ended it, with its report and the next deal: what a hand's end costs), the CPU per
action by category, the 25 functions with the most
cumulative time, and ends with `RESULT profile_action_cpu_ms`, `RESULT
profile_action_queries` and one `RESULT profile_share_<category>` (percent of the
profiled own time) per category. About a minute.
"""

import argparse
import asyncio
import cProfile
import functools
import logging
import os
import pstats
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import redis  # noqa: E402

from bench.hands import room_with_people  # noqa: E402
from bench.harness import production_environment  # noqa: E402

REDIS_URL = os.environ.get("BENCH_PROFILE_REDIS_URL", "redis://127.0.0.1:6379/9")
TABLES = 20
SEATS = 9
STACK, SMALL_BLIND, BIG_BLIND = 10_000, 50, 100
ACTIONS, WARM_UP, TOP = 500, 40, 25
PERSON_ACTION_SECONDS = 120  # a person never times out: the bench acts for him at once
CSRF_TOKEN = "t" * 32
TICK = os.sysconf("SC_CLK_TCK")

# By the first that matches a function's file (its path with "/" separators).
CATEGORIES: list[tuple[str, tuple[str, ...]]] = [
    ("pokerkit", ("/site-packages/pokerkit/",)),
    ("rules", ("/tournaments/rules/",)),
    ("orm", ("/site-packages/django/db/", "/site-packages/psycopg", "psycopg")),
    (
        "templates",
        (
            "/site-packages/django/template/",
            "/site-packages/django/templatetags/",
            "/templatetags/",
            "/site-packages/django/utils/html.py",
            "/site-packages/django/utils/safestring.py",
            "/site-packages/django/utils/formats.py",
            "/site-packages/django/utils/numberformat.py",
            "/templates/",
        ),
    ),
    (
        "channels_redis",
        (
            "/site-packages/channels/",
            "/site-packages/channels_redis/",
            "/site-packages/redis/",
            "/site-packages/msgpack/",
            "/site-packages/django/core/cache/",
            f"{ROOT}/config/cache.py",
            "/asyncio/",  # only the sending loop runs one here
            "/lib/python3.12/selectors.py",  # its poll
        ),
    ),
    ("celery", ("/site-packages/celery/", "/site-packages/kombu/", "/site-packages/vine/", "/site-packages/billiard/")),
    (
        "services",
        tuple(
            f"{ROOT}/{app}/"
            for app in ("tournaments", "live", "lobby", "wallet", "accounts", "audit", "deals", "config", "portal")
        ),
    ),
]
LABELS = {
    "pokerkit": "PokerKit",
    "rules": "rules (tournaments/rules)",
    "orm": "ORM and database driver (django/db, psycopg)",
    "templates": "templates and rendering (django/template, templatetags, utils/html)",
    "channels_redis": "Channels and Redis (channels, channels_redis, redis, cache, asyncio)",
    "celery": "Celery and kombu",
    "services": "our code (tournaments/services and selectors, live, lobby, ...)",
    "rest": "the rest (Django's request handling, Python's library, ...)",
}


def category(filename: str) -> str:
    path = filename.replace(os.sep, "/")
    for name, marks in CATEGORIES:
        if any(mark in path for mark in marks):
            return name
    return "rest"


# --- Set-up.


def seed(tables: int) -> tuple[int, dict[int, int]]:
    """The started tournament, and its people: player by entry (one a table)."""
    return room_with_people(
        tables,
        name="Bench action profile",
        blinds=(SMALL_BLIND, BIG_BLIND),
        stack=STACK,
        action_seconds=PERSON_ACTION_SECONDS,
    )


def watch(tournament_id: int, tables: list[int], people: list[int]) -> None:
    """Mark listened what the open pages listen to, as their sockets do."""
    from live.groups import LANGUAGES, group_name, mark_listened

    groups = [group_name("user", user_id=player) for player in people]
    groups += [group_name("own", user_id=player, language="en") for player in people]
    for language in LANGUAGES:
        groups += [group_name("lobby", language=language)]
        groups += [
            group_name(kind, language=language, tournament_id=tournament_id) for kind in ("tournament", "tables")
        ]
        groups += [group_name("table", language=language, tournament_id=tournament_id, table=n) for n in tables]
    asyncio.run(mark_listened(groups))


def browsers(people: dict[int, int]) -> dict[int, object]:
    """A signed-in browser (Django's test Client, checking CSRF) by entry."""
    from django.conf import settings
    from django.test import Client

    from accounts.models import User

    found = {}
    for entry_id, player_id in people.items():
        browser = Client(enforce_csrf_checks=True, headers={"HX-Request": "true", "X-CSRFToken": CSRF_TOKEN})
        browser.force_login(User.objects.get(pk=player_id))
        browser.cookies[settings.CSRF_COOKIE_NAME] = CSRF_TOKEN
        found[entry_id] = browser
    return found


# --- The room, played one unit at a time.


@dataclass
class Turn:
    hand_id: int
    at: int
    number: int
    seat: int
    entry_id: int
    due: bool
    deadline: datetime | None = None


@dataclass
class Tally:
    units: int = 0
    cpu: float = 0.0
    queries: int = 0
    database_cpu: float = 0.0
    sending_cpu: float = 0.0
    delivery_cpu: float = 0.0
    delivery_queries: int = 0
    hands_ended: int = 0
    # By kind of unit, and by step: count, CPU, statements.
    by_kind: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0, 0]))
    by_step: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0, 0]))

    def add(
        self,
        kind: str,
        cpu: float,
        queries: int,
        database_cpu: float,
        sending_cpu: float,
        *,
        ended: bool,
        steps: list[tuple[str, float, int]],
        delivery: list,
        actions: int = 1,
    ) -> None:
        self.units += actions
        self.delivery_cpu += delivery[0]
        self.delivery_queries += delivery[1]
        for name, step_cpu, step_queries in steps:
            counts = self.by_step[name]
            counts[0] += 1
            counts[1] += step_cpu
            counts[2] += step_queries
        self.sending_cpu += sending_cpu
        self.cpu += cpu
        self.queries += queries
        self.database_cpu += database_cpu
        self.hands_ended += ended
        # The kind, and the kind split by whether the unit ended its hand: what a hand's end costs.
        for key in (kind, f"{kind}:{'ended' if ended else 'went on'}"):
            counts = self.by_kind[key]
            counts[0] += actions
            counts[1] += cpu
            counts[2] += queries


def turns(tournament_id: int) -> list[Turn]:
    """Every hand's turn: whose, and whether its deadline has passed."""
    from django.db.models import F, Func, IntegerField
    from django.utils import timezone

    from tournaments.models import Hand, HandStatus

    rows = Hand.objects.filter(tournament_id=tournament_id, status=HandStatus.PLAYING, to_act__isnull=False)
    rows = rows.annotate(taken=Func(F("actions"), function="jsonb_array_length", output_field=IntegerField()))
    now = timezone.now()
    return [
        Turn(pk, taken, number, to_act, int(seats[str(to_act)]), deadline is not None and deadline <= now, deadline)
        for pk, taken, to_act, seats, number, deadline in rows.values_list(
            "pk", "taken", "to_act", "seats", "table__number", "deadline_at"
        ).order_by("table__number")
    ]


def drained() -> None:
    """Until the sending loop has sent everything queued so far."""
    from live import sending

    # The loop's own state (live.sending): nothing queued, no drain under way.
    while sending._texts or sending._refreshes or sending._draining or sending._flushing.locked():
        time.sleep(0.0002)


def sending_cpu() -> float:
    """CPU seconds of the sending loop's thread so far."""
    from live import sending

    async def used() -> float:
        return time.thread_time()

    return asyncio.run_coroutine_threadsafe(used(), sending._loop.get()).result()


class Sampler:
    """Which category's code the main thread is in, at each SIGPROF (asked for every
    millisecond of the process's CPU; the kernel delivers it at its own tick, a few
    milliseconds): no cost by function call, so unlike cProfile it does
    not weigh code of many small calls (the ORM's, the templates') more than the
    rest. CPU spent by the sending loop's thread lands where the main thread waits
    for it (drained(), this file), counted as Channels and Redis."""

    def __init__(self, interval: float = 0.001):
        self.interval = interval
        self.samples: dict[str, int] = defaultdict(int)
        self._of: dict[str, str] = {}
        signal.signal(signal.SIGPROF, self._sample)
        signal.siginterrupt(signal.SIGPROF, False)  # system calls interrupted by a sample go on

    def _sample(self, _signum, frame) -> None:
        if frame is None:
            return
        filename = frame.f_code.co_filename
        kind = self._of.get(filename)
        if kind is None:
            kind = self._of[filename] = "channels_redis" if filename == __file__ else category(filename)
        self.samples[kind] += 1

    def enable(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def disable(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)


def backend_cpu(pid: int) -> float:
    """CPU seconds of a PostgreSQL server process (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Room:
    def __init__(self, tournament_id: int, people: dict[int, int]):
        from django.db import connection

        from live import outbox

        self.tournament_id, self.people = tournament_id, people
        self.browsers = browsers(people)
        self.profiler: cProfile.Profile | None = None
        self.sampler: Sampler | None = None
        self.unit = [0.0, 0, 0.0, 0.0]  # the unit under way: CPU, statements, PostgreSQL's, the sending thread's
        self.steps: list[tuple[str, float, int]] = []  # the unit's steps: name, CPU, statements
        self.delivery = [0.0, 0]  # the unit's live deliveries on commit: CPU, statements
        outbox.deliver = functools.partial(self.deliver, outbox.deliver)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = cursor.fetchone()[0]

    def deliver(self, real: Callable[[list], None], events: list) -> None:
        """The real live.delivery.deliver, its CPU and statements counted apart."""
        from django.db import connection

        began, logged = time.process_time(), len(connection.queries_log)
        try:
            real(events)
        finally:
            self.delivery[0] += time.process_time() - began
            self.delivery[1] += len(connection.queries_log) - logged

    def measure(self, name: str, step: Callable[[], object]) -> None:
        """One step of a unit, until the sending loop has sent what it caused."""
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        watcher = self.profiler or self.sampler
        connection.queries_log.clear()  # capped: a full log would count nothing
        sending_began = sending_cpu()
        database_began, began = backend_cpu(self.backend), time.process_time()
        with CaptureQueriesContext(connection) as queries:
            if watcher:
                watcher.enable()
            step()
            drained()
            if watcher:
                watcher.disable()
        cpu = time.process_time() - began
        self.steps.append((name, cpu, len(queries)))
        self.unit[0] += cpu
        self.unit[1] += len(queries)
        self.unit[2] += backend_cpu(self.backend) - database_began
        self.unit[3] += sending_cpu() - sending_began

    def person(self, turn: Turn) -> None:
        """His action, and what the worker does for it."""
        from tournaments.tasks import hand_report

        browser = self.browsers[turn.entry_id]
        base = f"/tournaments/{self.tournament_id}/tables/{turn.number}/"
        form = {"hand": str(turn.hand_id), "at": str(turn.at), "kind": "cc"}
        responses = []
        self.measure("the action's POST (web)", lambda: responses.append(browser.post(base + "act/", form)))
        taken, finished = self.hand(turn.hand_id)
        if responses[0].status_code != 200 or taken <= turn.at:
            raise RuntimeError(f"the action was refused: {responses[0].status_code} {responses[0].content[:300]!r}")
        if finished:  # the task the hand queued for the floor
            self.measure("the hand_report task (worker)", lambda: hand_report(turn.hand_id))

    def bot(self, turn: Turn) -> int:
        """The table node's tick for the step of the bot's deadline (every turn due in
        it; returns how many)."""
        from django.utils import timezone

        from tournaments.services.ticks import TABLE_TICK_STEP, tick_of
        from tournaments.tasks import tables_tick

        played = []
        tick_at = tick_of(turn.deadline, TABLE_TICK_STEP)  # the table nodes' grid
        while timezone.now() < tick_at:  # the tick's task runs at its instant
            time.sleep(0.001)
        tick = tick_at.isoformat()
        self.measure("the tables_tick task (worker)", lambda: played.append(tables_tick(None, tick)))
        if not played[0]:
            raise RuntimeError(f"the turn of hand {turn.hand_id} after {turn.at} actions was not played")
        return played[0]

    def hand(self, hand_id: int) -> tuple[int, bool]:
        """A hand's actions so far, and whether it is finished (not yet reported)."""
        from django.db.models import F, Func, IntegerField

        from tournaments.models import Hand, HandStatus

        taken = Func(F("actions"), function="jsonb_array_length", output_field=IntegerField())
        count, status = Hand.objects.annotate(taken=taken).values_list("taken", "status").get(pk=hand_id)
        return count, status == HandStatus.FINISHED

    def play(
        self,
        units: int,
        tallies: tuple[Tally, Tally] | None = None,
        profiler: cProfile.Profile | None = None,
        sampler: Sampler | None = None,
    ) -> None:
        """`units` actions, the room's turns in table order; with `tallies`, each
        measured: every other one under `profiler` (the second tally's), the others
        sampled by `sampler`, so both halves play the same mix of turns, hands' ends
        and deals."""
        from tournaments.models import Hand

        done = measured = 0
        while done < units:
            due = [turn for turn in turns(self.tournament_id) if turn.entry_id in self.people or turn.due]
            if not due:
                time.sleep(0.002)  # a bot's thinking time
                continue
            # One unit at a time: a node's tick plays every turn due in its step, others' included.
            turn = due[0]
            kind = "web" if turn.entry_id in self.people else "worker"
            half = measured % 2
            self.profiler, self.sampler = (profiler, None) if half else (None, sampler)
            self.unit, self.steps, self.delivery[:] = [0.0, 0, 0.0, 0.0], [], [0.0, 0]
            actions = 1
            if kind == "web":
                self.person(turn)
            else:
                actions = self.bot(turn)
            if tallies is not None:
                ended = Hand.objects.filter(pk=turn.hand_id, ended_at__isnull=False).exists()
                tallies[half].add(
                    kind, *self.unit, ended=ended, steps=self.steps, delivery=self.delivery, actions=actions
                )
            done += actions
            measured += 1


# --- The profile, by category.


# Where a thread waits rather than computes (the profile's clock is the wall's: a CPU
# clock would cost a system call at each event, several times the work measured).
WAITS_BUILT_IN = ("time.sleep", "'poll' of 'select.", "'select' of", "'acquire' of '_thread.", "'recv", "'wait'")
WAITS = (("/psycopg/connection.py", "wait"), ("/psycopg/waiting.py", ""))


def breakdown(stats: pstats.Stats) -> dict[str, float]:
    """Own time by category, and `waiting`; a built-in's shared among its callers' categories."""
    found: dict[str, float] = defaultdict(float)

    def of(func: tuple) -> str | None:
        filename, _line, name = func
        if filename == "~":
            if any(mark in name for mark in WAITS_BUILT_IN):
                return "waiting"
            for mark, kind in (("psycopg", "orm"), ("redis", "channels_redis"), ("msgpack", "channels_redis")):
                if mark in name:
                    return kind
            return None
        path = filename.replace(os.sep, "/")
        if any(path.endswith(module) and name.startswith(function) for module, function in WAITS):
            return "waiting"
        return category(filename)

    for func, (_cc, _nc, tottime, _ct, callers) in stats.stats.items():
        own = of(func)
        if own is not None:
            found[own] += tottime
            continue
        shared = sum(caller[2] for caller in callers.values()) if callers else 0.0
        if not shared:
            found["rest"] += tottime
            continue
        for caller, (_, _, caller_tottime, _) in callers.items():
            found[of(caller) or "rest"] += tottime * caller_tottime / shared
    return found


def short(filename: str) -> str:
    path = filename.replace(os.sep, "/")
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    if path.startswith(f"{ROOT}/"):
        return path[len(str(ROOT)) + 1 :]
    if "/lib/python3" in path:
        return "python/" + path.split("/lib/python3", 1)[1].split("/", 1)[1]
    return path


def top(stats: pstats.Stats, count: int, units: int) -> list[str]:
    ours = f"{ROOT}/bench/"
    rows = sorted(
        ((func, row) for func, row in stats.stats.items() if not func[0].startswith(ours)),
        key=lambda item: item[1][3],
        reverse=True,
    )[:count]
    lines = [f"{'cum ms':>8} {'own ms':>8} {'calls':>8}  function (per action)"]
    for (filename, line, name), (_cc, calls, tottime, cumtime, _) in rows:
        where = name if filename == "~" else f"{short(filename)}:{line}({name})"
        lines.append(f"{1000 * cumtime / units:8.2f} {1000 * tottime / units:8.3f} {calls / units:8.1f}  {where[:110]}")
    return lines


def per(attribute: str, key: str, tally: Tally) -> str:
    count, cpu, queries = getattr(tally, attribute).get(key, (0, 0.0, 0))
    return f"{count}, {1000 * cpu / count:.1f}, {queries / count:.1f}" if count else "0"


def bench(args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    logging.getLogger("axes").setLevel(logging.WARNING)  # a line for each person signed in

    call_command("migrate", interactive=False, verbosity=0)
    began = time.perf_counter()
    tournament_id, people = seed(args.tables)
    watch(tournament_id, list(range(1, args.tables + 1)), list(people.values()))
    room = Room(tournament_id, people)
    from live.groups import LANGUAGES

    print(
        f"{args.tables} tables x {SEATS} players ({len(people)} people, one a table), seats drawn, in"
        f" {time.perf_counter() - began:.1f} s; watched in {', '.join(LANGUAGES)}"
    )
    room.play(args.warm_up)
    plain, profiled = Tally(), Tally()
    profiler, sampler = cProfile.Profile(), Sampler()
    began = time.perf_counter()
    room.play(2 * args.actions, (plain, profiled), profiler, sampler)
    print(f"{plain.units + profiled.units} actions played in {time.perf_counter() - began:.1f} s")
    if args.dump:
        profiler.dump_stats(args.dump)
    report(args, plain, profiled, pstats.Stats(profiler), sampler)
    return 0


def report(args: argparse.Namespace, plain: Tally, profiled: Tally, stats: pstats.Stats, sampler: Sampler) -> None:
    units = profiled.units
    cpu_ms = 1000 * plain.cpu / plain.units
    queries = plain.queries / plain.units
    print()
    print(f"actions profiled: {units} (and {plain.units} more, in turn with them, without cProfile: sampled)")
    rows = [
        ("CPU ms an action (this process, every thread)", lambda t: f"{1000 * t.cpu / t.units:.1f}"),
        ("  of which the live delivery on commit", lambda t: f"{1000 * t.delivery_cpu / t.units:.1f}"),
        ("  of which the sending loop's thread", lambda t: f"{1000 * t.sending_cpu / t.units:.1f}"),
        ("SQL statements an action", lambda t: f"{t.queries / t.units:.1f}"),
        ("  of which the live delivery's", lambda t: f"{t.delivery_queries / t.units:.1f}"),
        ("PostgreSQL's server process, CPU ms an action", lambda t: f"{1000 * t.database_cpu / t.units:.1f}"),
        ("hands ended (actions a hand)", lambda t: f"{t.hands_ended} ({t.units / max(1, t.hands_ended):.0f})"),
    ]
    kinds = {"worker": "a bot's turn (the worker)", "web": "a person's action (web)"}
    for kind, label in kinds.items():
        rows.append((f"{label}: count, ms, statements", functools.partial(per, "by_kind", kind)))
        for split, which in (("went on", "its hand went on"), ("ended", "it ended its hand")):
            rows.append((f"  of which {which}", functools.partial(per, "by_kind", f"{kind}:{split}")))
    print(f"{'':48} {'without cProfile':>22} {'under cProfile':>22}")
    for label, value in rows:
        print(f"{label:48} {value(plain):>22} {value(profiled):>22}")
    print("their steps, without cProfile: count, CPU ms and statements each")
    for step, (count, cpu, n) in sorted(plain.by_step.items()):
        print(f"  {step:46} {count:5} {1000 * cpu / count:7.1f} ms {n / count:5.1f}")
    found = breakdown(stats)
    waiting = found.pop("waiting", 0.0)
    total = sum(found.values())
    print()
    print(
        f"per action under cProfile, by category: {1000 * total / units:.1f} ms of own time"
        f" (and {1000 * waiting / units:.1f} ms waiting on PostgreSQL, Redis, the other thread: left out):"
    )
    names = [name for name, _ in CATEGORIES] + ["rest"]
    samples = sum(sampler.samples.values()) or 1
    print(f"  {'cProfile':>8} {'ms':>7}  {'sampled':>7}")
    for name in names:
        sampled = 100 * sampler.samples[name] / samples
        print(
            f"  {100 * found[name] / total:6.1f} % {1000 * found[name] / units:7.2f}  {sampled:6.1f} %  {LABELS[name]}"
        )
    print(
        f"  (sampled: {samples} samples of the main thread, one every {1000 * plain.cpu / samples:.1f} ms of CPU,"
        f" in the other {plain.units} actions)"
    )
    rest: dict[str, float] = defaultdict(float)
    for func, (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        if func[0] != "~" and category(func[0]) == "rest":
            rest[short(func[0])] += tottime
    print(
        "  the rest's largest files: "
        + ", ".join(
            f"{name} {1000 * seconds / units:.2f} ms" for name, seconds in sorted(rest.items(), key=lambda x: -x[1])[:6]
        )
    )
    print()
    print(f"the {args.top} functions with the most cumulative time (per action; wall time under cProfile, waits in):")
    print("\n".join(top(stats, args.top, units)))
    print()
    print(f"RESULT profile_action_cpu_ms {cpu_ms:.1f}")
    print(f"RESULT profile_action_queries {queries:.1f}")
    for name in names:
        print(f"RESULT profile_share_{name} {100 * found[name] / total:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TABLES)
    parser.add_argument("--actions", type=int, default=ACTIONS, help="measured, then as many profiled")
    parser.add_argument("--warm-up", type=int, default=WARM_UP, help="actions played first, not measured")
    parser.add_argument("--top", type=int, default=TOP)
    parser.add_argument("--dump", help="write the profile there too (pstats' format: python -m pstats FILE)")
    args = parser.parse_args()
    redis.Redis.from_url(REDIS_URL).flushdb()
    try:
        with production_environment(
            "portal_benchprofile",
            REDIS_URL,
            ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
            TABLE_BOT_SECONDS="0.001",
            TABLE_HAND_GAP_SECONDS="0",
        ):
            return bench(args)
    finally:
        redis.Redis.from_url(REDIS_URL).flushdb()  # the tasks queued for nobody


if __name__ == "__main__":
    sys.exit(main())
