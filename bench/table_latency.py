"""How long until a player's action at one of 200 busy tables shows on every socket
watching that table, and how many hands a second does the room play meanwhile?

The production stack, as the Procfile runs it: `web` (gunicorn, WEB_CONCURRENCY
processes of WEB_THREADS threads, defaults 2 and 4), `ws` (uvicorn, WS_CONCURRENCY
processes, default 2), a Celery `worker` (CELERY_CONCURRENCY, default 2), `clock` and `beat`,
on PostgreSQL (a throwaway database, migrated) and Redis (database 13, flushed: the
broker, the channel layer, the cache and the sessions), DEBUG off.

One tournament of `--tables` x 9 players (200 x 9 = 1,800; funded with
deposit_create, entered with entry_register), 10,000 chips at 50/100 for the whole
run, its seats drawn by the clock in this process. Then at each table one seat, not
the one to act, becomes a person (is_bot off; action time 120 s): the bench plays
him, the bots at his table and everywhere else play through the worker (their
deadlines are the worker's tasks; TABLE_BOT_SECONDS 0.5 to think, `--bot-seconds`,
where production's default is 1.5; a hand's gap TABLE_HAND_GAP_SECONDS 1). Each table is watched by 9 WebSockets on
`table-<tournament>-<n>.en` and `tables-<tournament>.en` (the event's clock) at the
ws process (`/ws/live/`, as the table's page): the person's own page (signed in with
his session cookie, on his own group `user-<id>` too, fetching his own part of the
page from `web` each time it is told to, as static/js/portal.js does) and 8 others,
as if every seat had its page open; the clients are fanout.py's (websockets' sans-I/O
protocol, in this process).

This process looks in the database every 50 ms for hands where a person is to act.
As his browser does, it waits until his table's page shows it is his turn (every
socket of the table has the table part marking his seat to act), then sends his
action (check or call) as an htmx form POST to the `web` process's
`/tournaments/<id>/tables/<n>/act/` with his session cookie and CSRF token.
Latency of an action: from the moment the POST starts until the table part that
follows it (one that differs from what the socket had before) has arrived on every
socket of the table: its last socket. The table waits for the person meanwhile,
so nothing else at it changes the part. Actions sent during `--seconds` (60) after
a warm-up (`--warm-up`, 30 s from the moment the worker answers) are counted: the
seats are drawn before the worker starts, so every table's first turn is due at
once when it does, a wave that is not the room playing; hands a second
is the hands of the whole room that ended in the same window. Printed beside
them: each process's CPU in the window (the Procfile's, by process group from
/proc; this process's; the machine's) and the worker's backlog (the turns whose
deadline has passed, sampled each second): whether the room keeps pace at all.

With `--clocks N`, N more events run their clocks meanwhile (bench/clock.py's: two
entrants each, 10-to-15-second levels and breaks), moved to start as the window
opens: how late the clock's transitions are while the tables load the machine
(applied minus scheduled, over those due in the window; the target of
bench/clock.py, p99 < 250 ms, applies). Their heads-up tables add to the room.

    uv run python bench/table_latency.py [--tables 200] [--seconds 60] [--bot-seconds 0.5] [--clocks 0]

Ends with `RESULT action_p99_ms` (target: at most 150 ms) and `RESULT
room_hands_per_s`; `--tables` other than 200 prints how many ran. About 3 minutes.
"""

import argparse
import asyncio
import functools
import os
import secrets
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

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
from bench.hands import bot_tournament  # noqa: E402
from bench.harness import free_port, procfile, throwaway_database, wait_ready  # noqa: E402

BIN = Path(sys.executable).parent
REDIS_URL = os.environ.get("BENCH_TABLES_REDIS_URL", "redis://127.0.0.1:6379/13")
TABLES = 200
SEATS = 9
STACK, SMALL_BLIND, BIG_BLIND = 10_000, 50, 100
BOT_SECONDS, HAND_GAP_SECONDS = 0.5, 1.0
PERSON_ACTION_SECONDS = 120  # the bench may fall behind under load: a person never times out
POLL = 0.05
SETTLE = 5.0  # how long a turn may take to show on the table's sockets before the action goes anyway
PATIENCE = 10.0  # an update not on every socket by then is counted lost
CONNECTING_AT_ONCE = 100
CSRF_TOKEN = "t" * 32


class TableSocket(Client):
    """A page watching a table: fanout's client, signed in with a cookie if given,
    keeping the table parts it receives (arrival, text). Told to fetch its own seat
    again (`{"refresh": ["own-seat-..."]}`), a signed-in page calls `on_refresh`, as
    the browser does (static/js/portal.js)."""

    def __init__(self, url: str, marker: str, cookie: str = "", on_refresh=None):
        super().__init__(url)
        self.marker, self.cookie, self.on_refresh = marker, cookie, on_refresh
        self.parts: list[tuple[float, str]] = []

    @classmethod
    async def open(
        cls, url: str, port: int, marker: str, cookie: str, *, gate: asyncio.Semaphore, on_refresh=None
    ) -> "TableSocket":
        async with gate:
            _transport, socket = await asyncio.get_running_loop().create_connection(
                lambda: cls(url, marker, cookie, on_refresh), "127.0.0.1", port
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
                    if self.marker in text:
                        self.parts.append((arrived, text))
                    elif self.on_refresh and '"own-seat-' in text:
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
    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import Entry, Hand, HandStatus, Status, Tournament
    from tournaments.services.clock import tournament_advance
    from tournaments.services.hands import entry_of

    began = time.perf_counter()
    tournament = bot_tournament(
        tables * SEATS,
        name="Bench tables",
        start=timezone.now() + timedelta(days=1),
        levels=[(SMALL_BLIND, BIG_BLIND, 0)],
        seconds=24 * 3600,
        stack=STACK,
    )
    print(f"{tables * SEATS} players registered in {time.perf_counter() - began:.1f} s")
    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(
        scheduled_start=now, next_transition_at=now, action_seconds=PERSON_ACTION_SECONDS
    )
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())  # the seat draw, the first hands dealt
    status = Tournament.objects.values_list("status", flat=True).get(pk=tournament.pk)
    if status not in (Status.RUNNING, Status.LATE_REGISTRATION):
        raise RuntimeError(f"the tournament did not start: {status}")
    people: dict[int, tuple[int, str]] = {}
    # A seat not to act in its table's first hand: that turn's deadline is a bot's.
    for row in Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).order_by("table__number"):
        entry_id = next(entry_of(row, int(seat)) for seat in sorted(row.seats, key=int) if int(seat) != row.to_act)
        player = User.objects.get(pk=Entry.objects.values_list("player_id", flat=True).get(pk=entry_id))
        browser = BrowserClient()
        browser.force_login(player)
        people[entry_id] = (
            player.pk,
            f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}",
        )
    User.objects.filter(pk__in=[player for player, _ in people.values()]).update(is_bot=False)
    return tournament.pk, people


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
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.latencies: list[float] = []  # the last socket's, per action in the window
        self.socket_latencies: list[float] = []
        self.responses: list[float] = []
        self.statuses: dict[int, int] = {}
        self.own_fetches: list[float] = []  # ms, each fetch of a person's own part
        self.own_statuses: dict[int, int] = {}
        self.unsettled = self.lost = 0
        self.tasks: set[asyncio.Task] = set()

    async def connect(self, ws_port: int, seated: dict[int, tuple[int, str]]) -> None:
        gate = asyncio.Semaphore(CONNECTING_AT_ONCE)

        async def table(number: int) -> None:
            groups = f"table-{self.tournament_id}-{number}.en,tables-{self.tournament_id}.en"  # as the table's page
            url = f"ws://127.0.0.1:{ws_port}/ws/live/?groups={groups}"
            marker = f'id="table-{self.tournament_id}-{number}"'
            player, cookie = seated[number]
            fetch = functools.partial(self.fetch_own, number, cookie)
            own = TableSocket.open(f"{url},user-{player}", ws_port, marker, cookie, gate=gate, on_refresh=fetch)
            others = (TableSocket.open(url, ws_port, marker, "", gate=gate) for _ in range(self.args.watchers - 1))
            self.sockets[number] = list(await asyncio.gather(own, *others))

        await asyncio.gather(*(table(number) for number in range(1, self.args.tables + 1)))

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
        to_act = f'to-act" data-seat="{seat}"'
        settle_by = time.perf_counter() + SETTLE
        while not all(to_act in socket.last() for socket in sockets):
            if time.perf_counter() > settle_by:
                self.unsettled += 1
                break
            await asyncio.sleep(0.005)
        before = [(len(socket.parts), socket.last()) for socket in sockets]
        sent = time.perf_counter()
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
) -> dict:
    from django.utils import timezone

    from tournaments.models import Hand

    room = Room(args, tournament_id, people, ports["web"])
    began = time.perf_counter()
    await room.connect(ports["ws"], {number: people[entry_id] for number, entry_id in seated.items()})
    sockets = sum(len(group) for group in room.sockets.values())
    print(f"{sockets} sockets on {len(room.sockets)} tables connected in {time.perf_counter() - began:.1f} s")
    await asyncio.get_running_loop().run_in_executor(None, start_celery, processes)
    start = time.perf_counter() + args.warm_up
    if clocks:  # the sweep queues each start (30 s ahead, as in production) during the warm-up
        first = timezone.now() + timedelta(seconds=args.warm_up)
        await asyncio.get_running_loop().run_in_executor(None, move_starts, clocks, first)
    room.window = (start, start + args.seconds)
    playing = asyncio.create_task(room.play(room.window[1]))
    await asyncio.sleep(args.warm_up)
    loop = asyncio.get_running_loop()
    window_began, load_began, cpu_began = timezone.now(), os.getloadavg(), cpu_now(processes)
    behind = []
    while time.perf_counter() < room.window[1]:
        behind.append(await loop.run_in_executor(None, bots_behind, tournament_id))
        await asyncio.sleep(1)
    window_ended, load_ended, cpu_ended = timezone.now(), os.getloadavg(), cpu_now(processes)
    await playing
    processes.check_alive()
    room.close()
    await asyncio.sleep(1)
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
        "cpu": {name: cpu_ended[name] - cpu_began[name] for name in cpu_began},
        "behind": behind,
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
    print(
        "CPU in the window, in cores (CPU seconds a second): "
        + ", ".join(f"{name} {used / seconds:.2f}" for name, used in found["cpu"].items())
        + f" of {os.cpu_count()}; PostgreSQL, Redis and other work are the machine's rest"
    )
    overdue = sorted(count for count, _ in found["behind"])
    oldest = sorted(age for _, age in found["behind"])
    print(
        f"the worker's backlog, sampled each second: turns past their deadline median {percentile(overdue, 0.5)}"
        f" of {args.tables} tables, the oldest {percentile(oldest, 0.5):.1f} s late (median), {oldest[-1]:.1f} s (max)"
    )


def bench(args: argparse.Namespace, tmp: Path) -> int:
    import logging

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    logging.getLogger("axes").setLevel(logging.WARNING)  # a line for each person's sign-in

    call_command("migrate", interactive=False, verbosity=0)
    from tournaments.models import Entry

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
            )
        )
    finally:
        processes.stop()
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
    print(f"RESULT action_p99_ms {p99:.1f}")
    print(f"RESULT room_hands_per_s {hands_per_s:.2f}")
    print(f"(median of the actions: {statistics.median(latencies):.1f} ms)")
    return 1 if room.lost else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TABLES)
    parser.add_argument("--watchers", type=int, default=SEATS, help="sockets a table")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured, after the warm-up")
    parser.add_argument("--warm-up", type=float, default=30.0, help="seconds from the worker's start to the window")
    parser.add_argument(
        "--bot-seconds", type=float, default=BOT_SECONDS, help="a bot's time to think (production's default: 1.5)"
    )
    parser.add_argument("--clocks", type=int, default=0, help="events running their clocks meanwhile")
    args = parser.parse_args()
    raise_open_files(args.tables * args.watchers + 1024)
    redis.Redis.from_url(REDIS_URL).flushdb()
    with (
        tempfile.TemporaryDirectory(prefix="portal-benchtables-") as tmp_dir,
        throwaway_database(f"portal_benchtables_{os.getpid()}") as database_url,
    ):
        tmp = Path(tmp_dir)
        (tmp / "static").mkdir()
        for name in ("DEBUG", "CELERY_LOG_LEVEL", "LOG_LEVEL"):  # the production defaults, whatever the shell has
            os.environ.pop(name, None)
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=database_url,
            REDIS_URL=REDIS_URL,
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            HTTPS="0",
            STATIC_ROOT=str(tmp / "static"),
            CELERY_BEAT_SCHEDULE_FILE=str(tmp / "celerybeat-schedule"),
            TABLE_BOT_SECONDS=str(args.bot_seconds),
            TABLE_HAND_GAP_SECONDS=str(HAND_GAP_SECONDS),
            PYTHONUNBUFFERED="1",
            UVICORN_LOG_LEVEL="warning",
            PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # the Procfile's commands are this venv's
        )
        return bench(args, tmp)


if __name__ == "__main__":
    sys.exit(main())
