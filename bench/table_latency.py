"""How long until a player's action at one of 200 busy tables shows on every socket
watching that table, how many hands a second does the room play meanwhile, does
any table fall behind, and what does one action cost (CPU, SQL statements)?

The production stack, as the Procfile runs it: `web` (gunicorn, WEB_CONCURRENCY
processes of WEB_THREADS threads, defaults 2 and 4), `ws` (uvicorn, WS_CONCURRENCY
processes, default 2), `worker` (TABLE_NODES table nodes, default 2, one process
each), `clock` and `beat`, on PostgreSQL (a throwaway database, migrated) and Redis
(database 13, flushed: the broker, the channel layer, the cache and the sessions;
BENCH_TABLES_REDIS_URL), DEBUG off, at the project's own priorities: the bench sets
none, and prints each process's nice.

One tournament of `--tables` x 9 players (200 x 9 = 1,800; funded with
deposit_create, entered with entry_register), 10,000 chips at 50/100 for the whole
run, its seats drawn by the clock in this process. Then at each table one seat, not
the one to act, becomes a person (is_bot off; action time 120 s): the bench plays
him, the bots at his table and everywhere else play through the worker (their
deadlines are the table nodes' ticks; TABLE_BOT_SECONDS 1.5 to think, production's
default, or `--bot-seconds`; a hand's gap TABLE_HAND_GAP_SECONDS 1). Each table is watched by 9 WebSockets on
`table-<tournament>-<n>.en` and `tables-<tournament>.en` (the event's clock) at the
ws process (`/ws/live/`, as the table's page): the person's own page (signed in with
his session cookie, on his own group `user-<id>` too, fetching his own part of the
page from `web` each time it is told to, as static/js/portal.js does) and 8 others,
as if every seat had its page open; `--info` (20) more are the event's Tournament
Info pages (`tournament-<tournament>.en`), which get its parts at most once a second
and are not timed; the clients are fanout.py's (websockets' sans-I/O protocol, in
this process).

This process looks in the database every 50 ms for hands where a person is to act.
As his browser does, it waits until his table's page shows it is his turn (every
socket of the table has had his seat marked to act: by the whole table, or by the
seats an action changed, which is what a table's sockets get while its hand goes
on), then sends his action (check or call) as an htmx form POST to the `web`
process's `/tournaments/<id>/tables/<n>/act/` with his session cookie and CSRF
token. Latency of an action: from the moment the POST starts until the table part
that follows it (one that differs from what the socket had before) has arrived on
every socket of the table: its last socket. The table waits for the person meanwhile,
so nothing else at it changes the part. Actions sent during `--seconds` (60) after
a warm-up (`--warm-up`, 30 s from the moment the worker answers) are counted: the
seats are drawn before the worker starts, so every table's first turn is due at
once when it does, a wave that is not the room playing; hands a second
is the hands of the whole room that ended in the same window. Printed beside
them: each process's CPU in the window (the Procfile's, by process group from
/proc; this process's; the machine's) and the worker's backlog (the turns whose
deadline has passed, sampled every half second): whether the room keeps pace at all.

Every turn is timed in the database: a trigger the bench puts on the throwaway
database's hand table records, at each update that appends actions, the turn it
ended (hand, table, its deadline) and the moment (clock_timestamp()), a row in an
unlogged table: the product stores no time per action. A turn was due at its deadline (a bot's: his thinking
time), or, a person's, when the bench sent his action (he thinks no longer than his
page takes to show the turn). `tables_behind`: the tables with a turn played more
than 1 s after it was due, or not played at all, at any moment of the window (from
the records after the window: no short lag is missed between samples).

`action_cpu_ms`: the CPU in the window of the Procfile's processes, PostgreSQL
(this database's backends, sampled every half second from pg_stat_activity and
/proc; the server's own processes: postmaster, WAL writer, checkpointer...) and the
redis-server, over the actions played in the window (every table's, bots' and
people's, from the records). PostgreSQL's server processes and the redis-server are
shared with whatever else runs on them: on a busy shared machine an overestimate.

`action_queries`: the SQL statements the room's processes sent in the window, over
the same actions, BEGIN/COMMIT/ROLLBACK left out (Django's query count leaves them
out too; printed beside). PostgreSQL counts them itself: the bench sets
log_statement to all on the throwaway database only (its own sessions log nothing)
and counts that database's statement lines in the server's log (the postmaster's
stderr, found from /proc), between the window's start and end. So the real path,
every process's, live delivery included (the watchers' rendering, the people's
fetches of their own part), the per-hand work (deal, report, floor) shared over the
hand's actions. Logging costs the server a little CPU per statement; `--no-statements`
turns it off (and the capacity's runs do).

With `--capacity`, runs itself afresh (a new database, new processes) at 50, 100,
200, 300, ... tables (`--capacity-max`, or the list `--capacity-counts`), the bots
at production's pace (1.5 s unless `--bot-seconds`), with `--warm-up` as given and
a window of `--seconds` or, at the smaller counts, as long as it takes the people to
send about `--capacity-actions` (600) actions (a person acts about once in 20 s: at
50 tables a 45-second window holds some 120, whose 99th percentile is their second
slowest), printing each run and its figures, until a count has a table behind or
`action_p99_ms` over 150 ms: `RESULT room_capacity_tables` is the largest count
before it (0 if none).

With `--clocks N`, N more events run their clocks meanwhile (bench/clock.py's: two
entrants each, 10-to-15-second levels and breaks), moved to start as the window
opens: how late the clock's transitions are while the tables load the machine
(applied minus scheduled, over those due in the window; the target of
bench/clock.py, p99 < 250 ms, applies). Their heads-up tables add to the room.

    uv run python bench/table_latency.py [--tables 200] [--seconds 60] [--bot-seconds 0.5] [--clocks 0]
    uv run python bench/table_latency.py --capacity [--capacity-max 500] [--seconds 30] [--warm-up 20]

Ends with `RESULT action_p99_ms` (target: at most 150 ms), `RESULT
room_hands_per_s`, `RESULT tables_behind` (target 0), `RESULT action_cpu_ms` and
`RESULT action_queries` (target: at most 6); `--tables` other than 200 prints how
many ran. About 3 minutes; `--capacity` that for each count.
"""

import argparse
import asyncio
import functools
import math
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import psycopg  # noqa: E402
import redis  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402

from bench.clock import (  # noqa: E402
    PENDING,
    Processes,
    applied_transitions,
    expected_transitions,
    move_starts,
    start_celery,
)
from bench.clock import seed as clock_events  # noqa: E402
from bench.fanout import Client, group_cpu, percentile, raise_open_files  # noqa: E402
from bench.hands import room_with_people  # noqa: E402
from bench.harness import free_port, procfile, production_environment, wait_ready  # noqa: E402

REDIS_URL = os.environ.get("BENCH_TABLES_REDIS_URL", "redis://127.0.0.1:6379/13")
TABLES = 200
INFO_WATCHERS = 20  # a big event's Tournament Info is open somewhere all the time
SEATS = 9
STACK, SMALL_BLIND, BIG_BLIND = 10_000, 50, 100
PRODUCTION_BOT_SECONDS = 1.5  # TABLE_BOT_SECONDS' default
BOT_SECONDS, HAND_GAP_SECONDS = PRODUCTION_BOT_SECONDS, 1.0
CAPACITY_P99_MS = 150  # a table count keeps pace with no table behind and a person's action p99 within this
CAPACITY_MAX = 5000
# A person's actions a second at his table, bots at production's pace (measured: 0.054).
PERSON_ACTIONS_A_SECOND = 0.05
PERSON_ACTION_SECONDS = 120  # the bench may fall behind under load: a person never times out
POLL = 0.05
SAMPLE = 0.5  # seconds between samples of the backlog and of PostgreSQL's and Redis's processes
SETTLE = 5.0  # how long a turn may take to show on the table's sockets before the action goes anyway
PATIENCE = 10.0  # an update not on every socket by then is counted lost
CONNECTING_AT_ONCE = 100
CSRF_TOKEN = "t" * 32


class TableSocket(Client):
    """A page watching a table: fanout's client, signed in with a cookie if given,
    keeping the table parts it receives (arrival, text): the whole table, or, while a
    hand goes on, the seats and the felt that changed. It keeps which seats show
    their turn (the seat's `to-act` class), as the page shows them. A signed-in page
    counts the own parts it is sent (`id="own-seat-..."`, on its player's own group),
    and told to fetch its own seat again (`{"refresh": ["own-seat-..."]}`: he is out,
    or was moved), calls `on_refresh`, as the browser does (static/js/portal.js)."""

    def __init__(self, url: str, table: tuple[int, int], cookie: str = "", on_refresh=None):
        super().__init__(url)
        tournament, number = table
        self.markers = (
            f'id="table-{tournament}-{number}"',
            f'id="seat-{tournament}-{number}-',
            f'id="felt-{tournament}-{number}"',
        )
        self.seat_class = re.compile(rf'<li class="([^"]*)" id="seat-{tournament}-{number}-([0-9]+)"')
        self.cookie, self.on_refresh = cookie, on_refresh
        self.parts: list[tuple[float, str]] = []
        self.acting: set[int] = set()  # the seats whose turn the page shows
        self.own_parts: list[float] = []  # arrivals of the player's own part, sent to him

    @classmethod
    async def open(
        cls, url: str, port: int, table: tuple[int, int], cookie: str, *, gate: asyncio.Semaphore, on_refresh=None
    ) -> "TableSocket":
        async with gate:
            _transport, socket = await asyncio.get_running_loop().create_connection(
                lambda: cls(url, table, cookie, on_refresh), "127.0.0.1", port
            )
            await asyncio.wait_for(socket.opened, timeout=60)
        return socket

    def connection_made(self, transport) -> None:
        self.transport = transport
        request = self.protocol.connect()
        if self.cookie:
            request.headers["Cookie"] = self.cookie
        self.protocol.send_request(request)
        self._write()

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                if event.fin and event.opcode == Opcode.TEXT:
                    text = event.data.decode()
                    if any(marker in text for marker in self.markers):
                        self.parts.append((arrived, text))
                        for classes, seat in self.seat_class.findall(text):
                            if "to-act" in classes.split():
                                self.acting.add(int(seat))
                            else:
                                self.acting.discard(int(seat))
                    elif text.startswith('<section class="card wide own-seat"'):
                        self.own_parts.append(arrived)
                    elif self.on_refresh and text.startswith("{") and '"own-seat-' in text:
                        self.on_refresh()
            elif not self.opened.done():
                if self.protocol.handshake_exc is None:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(self.protocol.handshake_exc)
        self._write()

    def last(self) -> str:
        return self.parts[-1][1] if self.parts else ""


# --- Set-up on the database, in this process.


def seed(tables: int) -> tuple[int, dict[int, tuple[int, str]]]:
    """The started tournament, and its people: by entry, (player, session cookie)."""
    from django.conf import settings
    from django.test import Client as BrowserClient

    from accounts.models import User

    began = time.perf_counter()
    tournament_id, players = room_with_people(
        tables, name="Bench tables", blinds=(SMALL_BLIND, BIG_BLIND), stack=STACK, action_seconds=PERSON_ACTION_SECONDS
    )
    print(f"{tables * SEATS} players registered and seated in {time.perf_counter() - began:.1f} s")
    people: dict[int, tuple[int, str]] = {}
    for entry_id, player_id in players.items():
        browser = BrowserClient()
        browser.force_login(User.objects.get(pk=player_id))
        people[entry_id] = (
            player_id,
            f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}",
        )
    return tournament_id, people


def turns(tournament_id: int, people: dict[int, tuple[int, str]]) -> list[tuple[int, int, int, int, int]]:
    """The people to act now: (hand, actions so far, table number, seat, entry)."""
    from django.db import close_old_connections
    from django.db.models import F, Func, IntegerField

    from tournaments.models import Entry, Hand, HandStatus

    close_old_connections()
    rows = Hand.objects.filter(tournament_id=tournament_id, status=HandStatus.PLAYING, to_act__isnull=False)
    rows = rows.annotate(taken=Func(F("actions"), function="jsonb_array_length", output_field=IntegerField()))
    found = []
    for pk, taken, to_act, seats, number in rows.values_list("pk", "taken", "to_act", "seats", "table__number"):
        entry_id = int(seats[str(to_act)])
        if entry_id in people:
            found.append((pk, taken, number, to_act, entry_id))
    if found:
        away = set(
            Entry.objects.filter(pk__in=[turn[4] for turn in found], sitting_out=True).values_list("pk", flat=True)
        )
        found = [turn for turn in found if turn[4] not in away]
    return found


def bots_behind(tournament_id: int) -> tuple[int, float]:
    """Hands whose turn's deadline has passed (a bot's: a person's is two minutes
    away), and how long ago the oldest passed, in seconds: the worker's backlog."""
    from django.db import close_old_connections
    from django.db.models import Min
    from django.utils import timezone

    from tournaments.models import Hand, HandStatus

    close_old_connections()
    now = timezone.now()
    due = Hand.objects.filter(tournament_id=tournament_id, status=HandStatus.PLAYING, deadline_at__lt=now)
    found = due.aggregate(oldest=Min("deadline_at"))["oldest"]
    return due.count(), (now - found).total_seconds() if found else 0.0


def machine_cpu() -> float:
    """CPU seconds the whole machine has been busy (every core, /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_now(processes: Processes) -> dict[str, float]:
    """CPU seconds so far of each Procfile process (its group), this process, the machine."""
    used = {name: group_cpu(proc.pid) for name, proc in processes.procs.items()}
    return used | {"bench (clients)": time.process_time(), "machine": machine_cpu()}


# --- What the room did: every turn's timing from the database, CPU from /proc, statements from PostgreSQL's log.

BENCH_SESSION = {"application_name": "bench", "options": "-c log_statement=none"}  # this process's sessions
LATE = timedelta(seconds=1)  # a turn applied later than this after it was due: its table fell behind


def turn_log(conninfo: str) -> None:
    """A trigger on the throwaway database records each turn as it is played: the row
    before (the hand, its table, the seat to act, its actions, the turn's start and
    deadline) and the moment of the update. Several actions in one update (the bots
    that need no thinking time, played at once) are one row."""
    from tournaments.models import Hand

    table = Hand._meta.db_table
    with psycopg.connect(conninfo, autocommit=True, **BENCH_SESSION) as conn:
        conn.execute(
            "CREATE UNLOGGED TABLE bench_turn (hand_id bigint, table_id bigint, seat smallint, taken int, played int,"
            " turn_started_at timestamptz, deadline_at timestamptz, applied_at timestamptz)"
        )
        conn.execute(
            "CREATE FUNCTION bench_turn_played() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " INSERT INTO bench_turn VALUES (OLD.id, OLD.table_id, OLD.to_act, jsonb_array_length(OLD.actions),"
            " jsonb_array_length(NEW.actions), OLD.turn_started_at, OLD.deadline_at, clock_timestamp());"
            " RETURN NULL; END $$"
        )
        conn.execute(
            f"CREATE TRIGGER bench_turn_played AFTER UPDATE OF actions ON {table} FOR EACH ROW"
            " WHEN (jsonb_array_length(NEW.actions) > jsonb_array_length(OLD.actions))"
            " EXECUTE FUNCTION bench_turn_played()"
        )


def played_turns(conninfo: str) -> list[tuple]:
    """The turns played so far: (hand, table, actions before, after, deadline, applied)."""
    with psycopg.connect(conninfo, autocommit=True, **BENCH_SESSION) as conn:
        query = "SELECT hand_id, table_id, taken, played, deadline_at, applied_at FROM bench_turn"
        return conn.execute(query).fetchall()


def waiting_turns(conninfo: str, due_before: datetime) -> list[tuple]:
    """The turns still not played whose deadline passed before `due_before`: (hand, table, actions so far)."""
    from tournaments.models import Hand, HandStatus

    with psycopg.connect(conninfo, autocommit=True, **BENCH_SESSION) as conn:
        return conn.execute(
            f"SELECT id, table_id, jsonb_array_length(actions) FROM {Hand._meta.db_table}"
            " WHERE status = %s AND deadline_at < %s",
            [HandStatus.PLAYING.value, due_before],
        ).fetchall()


def behind(played: list[tuple], waiting: list[tuple], sent: dict[tuple[int, int], datetime], window: tuple) -> dict:
    """The turns that were late by more than LATE at some moment of `window`, and their
    tables. A bot's turn was due at its deadline; a person's (the bench's: he thinks no
    longer than his page takes to show the turn) when his action was sent."""
    began, ended = window
    late: dict[int, float] = {}  # by table, the most late in seconds
    bots: list[float] = []  # seconds after the deadline, the bots' turns due in the window
    people: list[float] = []
    actions = 0
    for hand_id, table_id, taken, played_to, deadline, applied in played:
        if began <= applied < ended:
            actions += played_to - taken
        due = sent.get((hand_id, taken), deadline)
        if due is None:
            continue
        lateness = (applied - due).total_seconds()
        if began <= due < ended:
            (people if (hand_id, taken) in sent else bots).append(lateness)
        if lateness > LATE.total_seconds() and due + LATE < ended and applied > began:
            late[table_id] = max(late.get(table_id, 0.0), lateness)
    for hand_id, table_id, taken in waiting:  # a bot's turn not played yet: late at the window's end
        if (hand_id, taken) not in sent:
            late[table_id] = max(late.get(table_id, 0.0), float("inf"))
    tables = {hand_id: table_id for hand_id, table_id, *_ in played + waiting}
    done = {(hand_id, taken) for hand_id, _, taken, *_ in played}
    for key, at in sent.items():  # a person's action sent and not played yet
        if key not in done and at + LATE < ended and key[0] in tables:
            late[tables[key[0]]] = float("inf")
    return {"tables": late, "bots": sorted(bots), "people": sorted(people), "actions": actions}


def proc_cpu(pid: int) -> float | None:
    """CPU seconds (user and system) of process `pid` so far, None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def redis_server(url: str) -> int | None:
    """The pid of the redis-server listening on `url`'s port, from /proc."""
    port = urlsplit(url).port or 6379
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and (entry / "comm").read_text().strip() == "redis-server"
                and f":{port}" in (entry / "cmdline").read_text()
            ):
                return int(entry.name)
        except OSError:
            continue
    return None


class ServerCpu:
    """CPU of PostgreSQL and Redis in the window, per process, sampled often: this
    database's backends but this process's (a backend that ends mid-window, as one
    does each CONN_MAX_AGE, loses only what it spent since the last sample), the
    server's own processes (the postmaster, WAL writer, checkpointer, background
    writer, autovacuum launcher: shared with any other database on the server), and
    the redis-server (shared with any other Redis database)."""

    SERVER = ("checkpointer", "background writer", "walwriter", "autovacuum launcher", "logical replication launcher")
    KINDS = ("PostgreSQL (this database)", "PostgreSQL (server)", "Redis (server)")

    def __init__(self, conninfo: str, redis_url: str):
        self.conn = psycopg.connect(conninfo, autocommit=True, **BENCH_SESSION)
        own = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        self.postmaster = int(Path(f"/proc/{own}/stat").read_text().rsplit(")", 1)[1].split()[1])
        self.redis = redis_server(redis_url)
        self.first: dict[tuple[str, int], float] = {}
        self.last: dict[tuple[str, int], float] = {}
        self.samples = 0

    def sample(self) -> None:
        rows = self.conn.execute(
            "SELECT pid, datname IS NULL FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
            " AND ((datname = current_database() AND application_name <> %s)"
            " OR (datname IS NULL AND backend_type = ANY(%s)))",
            [BENCH_SESSION["application_name"], list(self.SERVER)],
        ).fetchall()
        database, server, in_redis = self.KINDS
        pids = [(server if shared else database, pid) for pid, shared in rows] + [(server, self.postmaster)]
        if self.redis:
            pids.append((in_redis, self.redis))
        for key in pids:
            used = proc_cpu(key[1])
            if used is None:
                continue
            # A process first seen after the first sample began in the window.
            self.first.setdefault(key, used if self.samples == 0 else 0.0)
            self.last[key] = used
        self.samples += 1

    def spent(self) -> dict[str, float]:
        used: dict[str, float] = {}
        for key, last in self.last.items():
            used[key[0]] = used.get(key[0], 0.0) + last - self.first[key]
        return used

    def close(self) -> None:
        self.conn.close()


def nices(processes: Processes) -> dict[str, list[int]]:
    """The CPU priorities (nice) in each Procfile process's group, as the processes set them."""
    found: dict[str, set[int]] = {name: set() for name in processes.procs}
    groups = {proc.pid: name for name, proc in processes.procs.items()}
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split() if entry.name.isdigit() else []
        except OSError:
            continue
        if fields and int(fields[2]) in groups:
            found[groups[int(fields[2])]].add(int(fields[16]))
    return {name: sorted(values) for name, values in found.items()}


class StatementLog:
    """The statements the room's processes send to the throwaway database, as
    PostgreSQL logs them (log_statement set to all on this database only; this
    process's sessions log nothing): counted from the server's log, read from the
    postmaster's stderr, between two offsets. None if the log is not a file here."""

    def __init__(self, conninfo: str, database: str):
        self.database = database
        with psycopg.connect(conninfo, autocommit=True, **BENCH_SESSION) as conn:
            own = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            postmaster = Path(f"/proc/{own}/stat").read_text().rsplit(")", 1)[1].split()[1]
            conn.execute(f"ALTER DATABASE \"{database}\" SET log_statement = 'all'")
        path = Path(os.path.realpath(f"/proc/{postmaster}/fd/2"))
        self.path = path if path.is_file() and os.access(path, os.R_OK) else None
        if not self.path:
            print("NOTE: PostgreSQL's log is not a file this process reads: the statements are not counted")

    def offset(self) -> int:
        return self.path.stat().st_size if self.path else 0

    def count(self, start: int, end: int) -> dict[str, int]:
        """Statements logged for this database between the offsets, by their first word."""
        kinds: dict[str, int] = {}
        if not self.path:
            return kinds
        mark = f"@{self.database} LOG:  "
        with self.path.open("rb") as log:
            log.seek(start)
            while log.tell() < end and (line := log.readline()):
                text = line.decode(errors="replace")
                if mark not in text:
                    continue
                said = text.split(mark, 1)[1]
                if said.startswith("statement: "):
                    sql = said[len("statement: ") :]
                elif said.startswith("execute "):
                    sql = said.split(": ", 1)[1] if ": " in said else ""
                else:
                    continue
                kind = (sql.split(None, 1) or ["?"])[0].upper().rstrip(";")
                kinds[kind] = kinds.get(kind, 0) + 1
        return kinds


# --- The run.


async def request(port: int, method: str, path: str, form: dict[str, str], cookie: str) -> int:
    """A signed-in browser's htmx request (a form post with the CSRF cookie and
    header, or a GET); the status."""
    from urllib.parse import urlencode

    body = urlencode(form).encode()
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Cookie: {cookie}; csrftoken={CSRF_TOKEN}\r\nX-CSRFToken: {CSRF_TOKEN}\r\nHX-Request: true\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.encode() + body)
        response = await reader.read()
    finally:
        writer.close()
    return int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/") else 0


class Room:
    """The sockets at each table, and every action the bench sent and what came of it."""

    def __init__(self, args, tournament_id: int, people: dict[int, tuple[int, str]], web_port: int):
        self.args, self.tournament_id, self.people, self.web_port = args, tournament_id, people, web_port
        self.sockets: dict[int, list[TableSocket]] = {}
        self.sent: set[tuple[int, int]] = set()
        self.sent_at: dict[tuple[int, int], datetime] = {}  # (hand, actions so far): when his action was sent
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.latencies: list[float] = []  # the last socket's, per action in the window
        self.socket_latencies: list[float] = []
        self.responses: list[float] = []
        self.statuses: dict[int, int] = {}
        self.own_fetches: list[float] = []  # ms, each fetch of a person's own part
        self.own_statuses: dict[int, int] = {}
        self.unsettled = self.lost = 0
        self.tasks: set[asyncio.Task] = set()
        self.info: list[TableSocket] = []

    async def connect(self, ws_port: int, seated: dict[int, tuple[int, str]]) -> None:
        gate = asyncio.Semaphore(CONNECTING_AT_ONCE)

        async def table(number: int) -> None:
            groups = f"table-{self.tournament_id}-{number}.en,tables-{self.tournament_id}.en"  # as the table's page
            url = f"ws://127.0.0.1:{ws_port}/ws/live/?groups={groups}"
            table = (self.tournament_id, number)
            player, cookie = seated[number]
            fetch = functools.partial(self.fetch_own, number, cookie)
            mine = f"{url},user-{player},own-{player}.en"
            own = TableSocket.open(mine, ws_port, table, cookie, gate=gate, on_refresh=fetch)
            others = (TableSocket.open(url, ws_port, table, "", gate=gate) for _ in range(self.args.watchers - 1))
            self.sockets[number] = list(await asyncio.gather(own, *others))

        await asyncio.gather(*(table(number) for number in range(1, self.args.tables + 1)))
        # Tournament Info's pages open meanwhile: they are sent its parts, and read nothing here.
        info = f"ws://127.0.0.1:{ws_port}/ws/live/?groups=tournament-{self.tournament_id}.en"
        pages = (TableSocket.open(info, ws_port, (self.tournament_id, 0), "", gate=gate) for _ in range(self.args.info))
        self.info = list(await asyncio.gather(*pages))

    def fetch_own(self, number: int, cookie: str) -> None:
        """The person's page fetches his own part of the table again, as told."""

        async def fetch() -> None:
            began = time.perf_counter()
            path = f"/tournaments/{self.tournament_id}/tables/{number}/me/"
            status = await request(self.web_port, "GET", path, {}, cookie)
            if self.window[0] <= began < self.window[1]:
                self.own_fetches.append(1000 * (time.perf_counter() - began))
                self.own_statuses[status] = self.own_statuses.get(status, 0) + 1

        task = asyncio.create_task(fetch())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def play(self, until: float) -> None:
        loop = asyncio.get_running_loop()
        while time.perf_counter() < until:
            found = await loop.run_in_executor(None, turns, self.tournament_id, self.people)
            for turn in found:
                if turn[:2] not in self.sent:
                    self.sent.add(turn[:2])
                    task = asyncio.create_task(self.act(*turn))
                    self.tasks.add(task)
                    task.add_done_callback(self.tasks.discard)
            await asyncio.sleep(POLL)
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=PATIENCE + SETTLE + 5)

    async def act(self, hand_id: int, at: int, number: int, seat: int, entry_id: int) -> None:
        sockets = self.sockets.get(number, [])
        settle_by = time.perf_counter() + SETTLE
        while not all(seat in socket.acting for socket in sockets):
            if time.perf_counter() > settle_by:
                self.unsettled += 1
                break
            await asyncio.sleep(0.005)
        before = [(len(socket.parts), socket.last()) for socket in sockets]
        sent = time.perf_counter()
        self.sent_at[(hand_id, at)] = datetime.now(UTC)
        path = f"/tournaments/{self.tournament_id}/tables/{number}/act/"
        form = {"hand": str(hand_id), "at": str(at), "kind": "cc"}
        status = await request(self.web_port, "POST", path, form, self.people[entry_id][1])
        answered = time.perf_counter()
        counted = self.window[0] <= sent < self.window[1]
        if counted:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            self.responses.append(1000 * (answered - sent))
        arrivals: list[float | None] = [None] * len(sockets)
        deadline = sent + PATIENCE
        while time.perf_counter() < deadline:
            for i, socket in enumerate(sockets):
                if arrivals[i] is None:
                    count, text = before[i]
                    arrivals[i] = next((at for at, new in socket.parts[count:] if new != text), None)
            if all(arrival is not None for arrival in arrivals):
                break
            await asyncio.sleep(0.005)
        if not counted:
            return
        if any(arrival is None for arrival in arrivals) or not sockets:
            self.lost += 1
            return
        each = [1000 * (arrival - sent) for arrival in arrivals]
        self.socket_latencies += each
        self.latencies.append(max(each))

    def close(self) -> None:
        for sockets in self.sockets.values():
            for socket in sockets:
                socket.close()


async def run(
    args,
    *,
    tournament_id: int,
    people,
    seated: dict[int, int],
    ports: dict[str, int],
    processes: Processes,
    clocks: list[int],
    statements: "StatementLog | None",
) -> dict:
    from django.utils import timezone

    from tournaments.models import Hand

    room = Room(args, tournament_id, people, ports["web"])
    began = time.perf_counter()
    await room.connect(ports["ws"], {number: people[entry_id] for number, entry_id in seated.items()})
    sockets = sum(len(group) for group in room.sockets.values())
    print(
        f"{sockets} sockets on {len(room.sockets)} tables and {len(room.info)} on Tournament Info"
        f" connected in {time.perf_counter() - began:.1f} s"
    )
    await asyncio.get_running_loop().run_in_executor(None, start_celery, processes)
    start = time.perf_counter() + args.warm_up
    if clocks:  # the sweep queues each start (30 s ahead, as in production) during the warm-up
        first = timezone.now() + timedelta(seconds=args.warm_up)
        await asyncio.get_running_loop().run_in_executor(None, move_starts, clocks, first)
    room.window = (start, start + args.seconds)
    playing = asyncio.create_task(room.play(room.window[1]))
    await asyncio.sleep(args.warm_up)
    loop = asyncio.get_running_loop()
    conninfo = os.environ["DATABASE_URL"]
    servers = await loop.run_in_executor(None, ServerCpu, conninfo, REDIS_URL)
    priorities = await loop.run_in_executor(None, nices, processes)
    await loop.run_in_executor(None, servers.sample)
    logged_from = statements.offset() if statements else 0
    window_began, load_began, cpu_began = timezone.now(), os.getloadavg(), cpu_now(processes)
    backlog = []
    while time.perf_counter() < room.window[1]:
        backlog.append(await loop.run_in_executor(None, bots_behind, tournament_id))
        await loop.run_in_executor(None, servers.sample)
        await asyncio.sleep(SAMPLE)
    window_ended, load_ended, cpu_ended = timezone.now(), os.getloadavg(), cpu_now(processes)
    await loop.run_in_executor(None, servers.sample)
    logged_to = statements.offset() if statements else 0
    waiting = await loop.run_in_executor(None, waiting_turns, conninfo, window_ended - LATE)
    servers.close()
    await playing
    processes.check_alive()
    room.close()
    await asyncio.sleep(1)
    played = await loop.run_in_executor(None, played_turns, conninfo)
    logged = await loop.run_in_executor(None, statements.count, logged_from, logged_to) if statements else {}
    hands = await asyncio.get_running_loop().run_in_executor(
        None,
        lambda: Hand.objects.filter(
            tournament_id=tournament_id, ended_at__gte=window_began, ended_at__lt=window_ended
        ).count(),
    )
    return {
        "room": room,
        "hands": hands,
        "seconds": (window_ended - window_began).total_seconds(),
        "load": (load_began, load_ended),
        "cpu": {name: cpu_ended[name] - cpu_began[name] for name in cpu_began} | servers.spent(),
        "backlog": backlog,
        "behind": behind(played, waiting, room.sent_at, (window_began, window_ended)),
        "statements": logged,
        "priorities": priorities,
        "sockets": sockets,
        "window": (window_began, window_ended),
    }


def report_clocks(clocks: list[int], window: tuple) -> None:
    """How late the clock applied the transitions of `clocks` due in the window."""
    began, ended = window
    due = [at for done in expected_transitions(clocks, ended).values() for _, at, _ in done if at >= began]
    late = sorted(
        (applied - at).total_seconds() * 1000
        for at, applied, change in applied_transitions(clocks)[1]
        if change != PENDING and began <= at <= ended
    )
    if not late:
        print(f"the clocks: none of the {len(due)} transitions due in the window was applied")
        return
    print(
        f"the clocks of {len(clocks)} more events, under the tables' load: {len(late)} of {len(due)} transitions"
        f" due in the window applied; applied - scheduled p50 {percentile(late, 0.5):.1f} ms,"
        f" p99 {percentile(late, 0.99):.1f} ms, max {late[-1]:.1f} ms"
    )


def report_machine(args: argparse.Namespace, found: dict) -> None:
    """The load, each process's CPU and the worker's backlog in the window."""
    print(
        "load average (1, 5, 15 min) at the window's start {} and end {}".format(
            *(" ".join(f"{x:.2f}" for x in load) for load in found["load"])
        )
    )
    seconds = found["seconds"]
    cpu = dict(found["cpu"])
    machine = cpu.pop("machine")
    print(
        "CPU in the window, in cores (CPU seconds a second): "
        + ", ".join(f"{name} {used / seconds:.2f}" for name, used in cpu.items())
        + f"; the machine {machine / seconds:.2f} of {os.cpu_count()} (the rest: other work on the machine)"
    )
    print(
        "CPU priorities (nice) as the processes set them: "
        + ", ".join(f"{name} {'/'.join(map(str, values))}" for name, values in found["priorities"].items())
    )
    overdue = sorted(count for count, _ in found["backlog"])
    oldest = sorted(age for _, age in found["backlog"])
    print(
        f"the worker's backlog, sampled every {SAMPLE:g} s: turns past their deadline median {percentile(overdue, 0.5)}"
        f" of {args.tables} tables, the oldest {percentile(oldest, 0.5):.1f} s late (median), {oldest[-1]:.1f} s (max)"
    )


def report_turns(args: argparse.Namespace, late: dict) -> None:
    """How late the turns due in the window were played, and the tables that fell behind."""

    def spread(values: list[float]) -> str:
        if not values:
            return "none"
        ms = [1000 * value for value in values]
        return f"{len(ms)}, p50 {percentile(ms, 0.5):.0f} ms, p99 {percentile(ms, 0.99):.0f} ms, max {ms[-1]:.0f} ms"

    print(
        f"turns due in the window, played after they were due: the bots' (after the deadline) {spread(late['bots'])};"
        f" the people's (after the action was sent) {spread(late['people'])}"
    )
    tables = late["tables"]
    worst = max(tables.values(), default=0.0)
    print(
        f"tables behind (a turn played more than {LATE.total_seconds():g} s after it was due, at any moment of the"
        f" window): {len(tables)} of {args.tables}"
        + (f", the latest {'still waiting' if worst == float('inf') else f'{worst:.1f} s'}" if tables else "")
    )


def bench(args: argparse.Namespace, tmp: Path) -> int:
    import logging

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    logging.getLogger("axes").setLevel(logging.WARNING)  # a line for each person's sign-in
    settings.DATABASES["default"]["OPTIONS"].update(BENCH_SESSION)  # before this process connects

    call_command("migrate", interactive=False, verbosity=0)
    from tournaments.models import Entry

    database_url = os.environ["DATABASE_URL"]
    turn_log(database_url)
    statements = None if args.no_statements else StatementLog(database_url, urlsplit(database_url).path[1:])

    tournament_id, people = seed(args.tables)
    clocks = clock_events(args.clocks) if args.clocks else []
    seated = dict(Entry.objects.filter(pk__in=people).values_list("table__number", "pk"))  # table: its person
    connections.close_all()
    ports = {"web": free_port(), "ws": free_port()}
    env = {**os.environ, "PORT": str(ports["web"]), "WS_PORT": str(ports["ws"]), "BIND_ADDRESS": "127.0.0.1"}
    processes = Processes(tmp, env)
    try:
        command = procfile()
        processes.start("web", command["web"])
        processes.start("ws", command["ws"])
        wait_ready(ports["web"], processes.procs["web"], timeout=60)
        wait_ready(ports["ws"], processes.procs["ws"], timeout=60)
        found = asyncio.run(
            run(
                args,
                tournament_id=tournament_id,
                people=people,
                seated=seated,
                ports=ports,
                processes=processes,
                clocks=clocks,
                statements=statements,
            )
        )
    finally:
        processes.stop()
    return report(args, found, processes, clocks)


def report(args: argparse.Namespace, found: dict, processes: Processes, clocks: list[int]) -> int:
    """Prints what the run measured, the RESULT lines last; 1 if an update was lost."""
    room: Room = found["room"]
    latencies = sorted(room.latencies)
    if not latencies:
        print(f"no action was measured; web log:\n{processes.log('web')}\nworker log:\n{processes.log('worker')}")
        return 1
    p99, p50 = percentile(latencies, 0.99), percentile(latencies, 0.5)
    each = sorted(room.socket_latencies)
    responses = sorted(room.responses)
    hands_per_s = found["hands"] / found["seconds"]
    print(
        f"{args.tables} tables of {SEATS} ({args.tables} people, the rest bots thinking {args.bot_seconds:g} s,"
        f" hand gap {HAND_GAP_SECONDS:g} s), {found['sockets']} sockets ({args.watchers} a table),"
        f" {found['seconds']:.0f} s measured after {args.warm_up:.0f} s of warm-up"
    )
    print(
        f"actions: {len(latencies)} measured, {room.lost} lost (no update on every socket in {PATIENCE:.0f} s),"
        f" {room.unsettled} sent before the turn showed on every socket; HTTP statuses {room.statuses}"
    )
    print(
        f"action to every socket of its table: p50 {p50:.0f} ms, p90 {percentile(latencies, 0.9):.0f} ms,"
        f" p99 {p99:.0f} ms, max {latencies[-1]:.0f} ms; to each socket: p50 {percentile(each, 0.5):.0f} ms,"
        f" p99 {percentile(each, 0.99):.0f} ms; the POST's response: p50 {percentile(responses, 0.5):.0f} ms,"
        f" p99 {percentile(responses, 0.99):.0f} ms"
    )
    pushed = sum(
        1 for sockets in room.sockets.values() for at in sockets[0].own_parts if room.window[0] <= at < room.window[1]
    )
    print(f"the people's own part sent to them: {pushed} times")
    fetches = sorted(room.own_fetches)
    if fetches:
        print(
            f"the people's own part fetched again as told: {len(fetches)} times, p50 {percentile(fetches, 0.5):.0f} ms,"
            f" p99 {percentile(fetches, 0.99):.0f} ms; HTTP statuses {room.own_statuses}"
        )
    print(f"room: {found['hands']} hands ended in the window = {hands_per_s:.1f} hands/s")
    report_machine(args, found)
    if clocks:
        report_clocks(clocks, found["window"])
    if args.tables != TABLES:
        print(f"NOTE: {args.tables} tables, not {TABLES}")
    if clocks:
        print(f"NOTE: the room had {len(clocks)} more events' tables and clocks")
    late, actions, cpu = found["behind"], found["behind"]["actions"], found["cpu"]
    report_turns(args, late)
    room_cpu = sum(used for name, used in cpu.items() if name in processes.procs or name in ServerCpu.KINDS)
    print(
        f"actions played in the window, every table's, bots' and people's: {actions}"
        f" = {actions / found['seconds']:.1f}/s; CPU of the room (the Procfile's processes, PostgreSQL, Redis)"
        f" {room_cpu:.1f} s"
    )
    kinds = found["statements"]
    brackets = sum(kinds.get(kind, 0) for kind in ("BEGIN", "COMMIT", "ROLLBACK"))
    queries = sum(kinds.values()) - brackets
    if kinds:
        print(
            f"statements the room sent in the window: {queries} and {brackets} BEGIN/COMMIT/ROLLBACK; by kind "
            + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items(), key=lambda item: -item[1]))
        )
    print(f"RESULT action_p99_ms {p99:.1f}")
    print(f"RESULT room_hands_per_s {hands_per_s:.2f}")
    if not actions:  # the trigger saw no turn: the hands are stored otherwise than it expects
        print("no turn was recorded in the window: tables_behind, action_cpu_ms and action_queries not measured")
        return 1
    print(f"RESULT tables_behind {len(late['tables'])}")
    print(f"RESULT action_cpu_ms {1000 * room_cpu / actions:.2f}")
    if kinds:
        print(f"RESULT action_queries {queries / actions:.2f}")
    print(f"(median of the actions: {statistics.median(latencies):.1f} ms)")
    return 1 if room.lost else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TABLES)
    parser.add_argument("--watchers", type=int, default=SEATS, help="sockets a table")
    parser.add_argument("--info", type=int, default=INFO_WATCHERS, help="sockets on the event's Tournament Info")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured, after the warm-up")
    parser.add_argument("--warm-up", type=float, default=30.0, help="seconds from the worker's start to the window")
    parser.add_argument(
        "--bot-seconds",
        type=float,
        help=f"a bot's time to think (default {BOT_SECONDS:g}; --capacity: {PRODUCTION_BOT_SECONDS:g}, production's)",
    )
    parser.add_argument("--clocks", type=int, default=0, help="events running their clocks meanwhile")
    parser.add_argument("--no-statements", action="store_true", help="do not count the SQL statements")
    parser.add_argument(
        "--capacity", action="store_true", help="the largest table count that keeps pace: a fresh run for each count"
    )
    parser.add_argument("--capacity-max", type=int, default=CAPACITY_MAX, help="with --capacity: the last count tried")
    parser.add_argument(
        "--capacity-actions", type=int, default=600, help="with --capacity: the people's actions each window holds"
    )
    parser.add_argument(
        "--capacity-counts", help="with --capacity: the counts to try, comma-separated (default 50, 100, 200, 300, ...)"
    )
    args = parser.parse_args()
    if args.capacity:
        return capacity(args)
    if args.bot_seconds is None:
        args.bot_seconds = BOT_SECONDS
    raise_open_files(args.tables * args.watchers + 1024)
    redis.Redis.from_url(REDIS_URL).flushdb()
    with production_environment(
        "portal_benchtables",
        REDIS_URL,
        TABLE_BOT_SECONDS=str(args.bot_seconds),
        TABLE_HAND_GAP_SECONDS=str(HAND_GAP_SECONDS),
        UVICORN_LOG_LEVEL="warning",
    ) as tmp:
        return bench(args, tmp)


def capacity(args: argparse.Namespace) -> int:
    """Runs this bench afresh (its own database, processes and Redis flush) at each
    table count, 50, 100, 200, 300, ... until one falls behind; the largest that
    kept pace is the room's capacity."""
    bot_seconds = PRODUCTION_BOT_SECONDS if args.bot_seconds is None else args.bot_seconds
    if args.capacity_counts:
        counts = [int(n) for n in args.capacity_counts.split(",")]
    else:
        counts = [n for n in (50, *range(100, args.capacity_max + 1, 100)) if n <= args.capacity_max]
    steps: list[tuple[int, dict[str, float], bool]] = []
    for tables in counts:
        seconds = max(args.seconds, math.ceil(args.capacity_actions / (PERSON_ACTIONS_A_SECOND * tables)))
        command = [sys.executable, __file__, "--tables", str(tables), "--watchers", str(args.watchers)]
        command += ["--info", str(args.info)]
        command += ["--seconds", str(seconds), "--warm-up", str(args.warm_up), "--bot-seconds", str(bot_seconds)]
        command += ["--clocks", str(args.clocks), "--no-statements"]
        print(f"--- {tables} tables", flush=True)
        results: dict[str, float] = {}
        with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as run:
            assert run.stdout is not None
            for line in run.stdout:
                print(f"[{tables}] {line}", end="", flush=True)
                if line.startswith("RESULT "):
                    _, name, value = line.split()
                    results[name] = float(value)
        kept = (
            run.returncode == 0
            and results.get("tables_behind") == 0
            and results.get("action_p99_ms", float("inf")) <= CAPACITY_P99_MS
        )
        steps.append((tables, results, kept))
        figures = ", ".join(f"{name} {value:g}" for name, value in results.items()) or f"exit {run.returncode}"
        print(f"--- {tables} tables: {figures}: {'kept pace' if kept else 'fell behind'}", flush=True)
        if not kept:
            break
    print(
        f"capacity, the bots thinking {bot_seconds:g} s (a count keeps pace with tables_behind 0"
        f" and action_p99_ms <= {CAPACITY_P99_MS}):"
    )
    for tables, results, kept in steps:
        figures = ", ".join(f"{name} {value:g}" for name, value in results.items())
        print(f"  {tables} tables: {'kept pace' if kept else 'fell behind'}; {figures}")
    if steps and steps[-1][2]:
        print(f"NOTE: every count tried kept pace: the capacity is at least {steps[-1][0]}")
    print(f"RESULT room_capacity_tables {max((tables for tables, _, kept in steps if kept), default=0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
