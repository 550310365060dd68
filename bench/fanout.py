"""How long until 2,000 browsers watching one tournament see its level change?

The production stack for live updates: the Procfile's `ws` line, run as written
(uvicorn serving `config.asgi` with its options; WS_CONCURRENCY processes, default
2 here: the sockets spread over the processes), channels-redis
(`RedisPubSubChannelLayer`, Redis database 10, flushed first), PostgreSQL in a
throwaway database, DEBUG off.

N WebSocket clients (asyncio, in this process, each its own TCP connection, its
handshake and frames by websockets' sans-I/O protocol; N = 2,000 by default) subscribe to
`tournament-<id>.en` at `/ws/live/`, as Tournament Info does. Then, once a round,
this process changes the tournament's level and publishes it the way the clock
does, less the throttle (lobby.live.tournament_publish, through live.delivery: one
read of who listens, the clock card rendered, then sent to the group) and every
client notes when the message arrives. Latency of a client: its
arrival minus the moment the publish began. Per round: median, 99th percentile and
last (the time until all N have it), and messages delivered per second per ASGI
process (N over the last latency, over the processes). Rounds are a second apart.

    uv run python bench/fanout.py [--clients 2000] [--processes 2] [--rounds 7]
    uv run python bench/fanout.py --10k

Ends with `RESULT fanout_all_ms` (the median over the rounds of the time until the
last client had the update; target: under 1 second) and `RESULT fanout_p99_ms`.
About 40 s. `--10k` is the room's scale: 10,000 clients on the Procfile's `ws` with
two processes, and also `RESULT fanout_10k_all_ms` (target: at most 1,000 ms); about
2 minutes. The clients run on the same cores as the servers, so a round's CPU is
printed too: this process's (the clients) and the ws processes' (from /proc), and
the open-file limit this process raised itself to (each client is a file).
"""

import argparse
import asyncio
import collections
import os
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import redis  # noqa: E402
from websockets.client import ClientProtocol  # noqa: E402
from websockets.extensions.permessage_deflate import enable_client_permessage_deflate  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402
from websockets.typing import Origin  # noqa: E402
from websockets.uri import parse_uri  # noqa: E402

from bench.harness import free_port, procfile, stop, throwaway_database, wait_ready  # noqa: E402

BIN = Path(sys.executable).parent
REDIS_URL = os.environ.get("BENCH_FANOUT_REDIS_URL", "redis://127.0.0.1:6379/10")
TEN_THOUSAND = 10_000
CONNECTING_AT_ONCE = 200  # handshakes in flight: a burst of 2,000 would overflow the listen backlog


def raise_open_files(wanted: int) -> int:
    """Raise this process's soft limit on open files towards `wanted` (its hard limit
    caps it: the servers it starts inherit it); returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def group_cpu(pgid: int) -> float:
    """CPU seconds (user and system) of the live processes of process group `pgid`."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields from the state on: pgrp is the third
            total += int(fields[11]) + int(fields[12])
    return total / tick


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def seed() -> int:
    from tests.factories import BlindStructureFactory, TournamentFactory

    return TournamentFactory(blind_structure=BlindStructureFactory(), name="Fan-out Main Event").pk


class Client(asyncio.Protocol):
    """One browser's live socket, noting when each message arrives.

    The handshake and frames are websockets' own (its sans-I/O protocol, offering
    per-message deflate as browsers do), driven straight from the socket's callbacks:
    its asyncio client spent a task and a queue on every message, and this process's
    2,000 of them took as much CPU as a ws process, on the same two cores."""

    def __init__(self, url: str):
        self.protocol = ClientProtocol(
            parse_uri(url), origin=Origin("http://127.0.0.1"), extensions=enable_client_permessage_deflate(None)
        )
        self.arrivals: list[float] = []
        self.tally: collections.Counter[int] | None = None  # clients that have had n messages, by n
        self.opened = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    @classmethod
    async def connect(cls, url: str, port: int, gate: asyncio.Semaphore) -> "Client":
        async with gate:
            _transport, client = await asyncio.get_running_loop().create_connection(lambda: cls(url), "127.0.0.1", port)
            await asyncio.wait_for(client.opened, timeout=60)
        return client

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self._write()

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                if event.fin and event.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                    self.arrivals.append(arrived)
                    if self.tally is not None:
                        self.tally[len(self.arrivals)] += 1
            elif not self.opened.done():  # the handshake's response
                if self.protocol.handshake_exc is None:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(self.protocol.handshake_exc)
        self._write()  # a pong, a close

    def connection_lost(self, exc) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.protocol.send_close()
            self._write()
            self.transport.close()

    def _write(self) -> None:
        for data in self.protocol.data_to_send():
            if data and not self.transport.is_closing():
                self.transport.write(data)


async def fan_out(args, port: int, tournament_id: int, server_group: int) -> list[dict]:
    from asgiref.sync import sync_to_async

    from lobby.live import tournament_publish
    from tournaments.models import Tournament

    url = f"ws://127.0.0.1:{port}/ws/live/?groups=tournament-{tournament_id}.en"
    began = time.monotonic()
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    clients = await asyncio.gather(*(Client.connect(url, port, gate) for _ in range(args.clients)))
    print(f"{len(clients)} clients connected in {time.monotonic() - began:.1f} s")
    # Counted as messages arrive: a scan of every client each 10 ms took CPU the servers share.
    tally: collections.Counter[int] = collections.Counter()
    for client in clients:
        client.tally = tally

    def level_change(level: int) -> float:
        Tournament.objects.filter(pk=tournament_id).update(level=level)
        published = time.perf_counter()
        tournament_publish(tournament_id, clock_only=True)
        return published

    rounds = []
    for number in range(1, args.rounds + 1):
        cpu_before = time.process_time(), group_cpu(server_group)
        published = await sync_to_async(level_change, thread_sensitive=False)(number)
        deadline = time.perf_counter() + 30
        while tally[number] < len(clients) and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
        latencies = sorted(1000 * (c.arrivals[number - 1] - published) for c in clients if len(c.arrivals) >= number)
        missing = len(clients) - len(latencies)
        last = latencies[-1] if latencies else float("inf")
        clients_cpu = time.process_time() - cpu_before[0]
        servers_cpu = group_cpu(server_group) - cpu_before[1]
        rounds.append(
            {
                "p50": percentile(latencies, 0.5),
                "p99": percentile(latencies, 0.99),
                "last": last,
                "missing": missing,
                "per_process": len(latencies) / (last / 1000) / args.processes,
                "clients_cpu": clients_cpu,
                "servers_cpu": servers_cpu,
            }
        )
        print(
            f"round {number}: p50 {rounds[-1]['p50']:.0f} ms, p99 {rounds[-1]['p99']:.0f} ms,"
            f" last {last:.0f} ms, {missing} missed; {rounds[-1]['per_process']:.0f} messages/s per process;"
            f" CPU meanwhile: clients {1000 * clients_cpu:.0f} ms, ws processes {1000 * servers_cpu:.0f} ms"
        )
        await asyncio.sleep(1)
    for client in clients:
        client.close()
    await asyncio.sleep(1)  # the close frames go out
    return rounds


def bench(args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    tournament_id = seed()
    port = free_port()
    server = subprocess.Popen(
        ["bash", "-c", f"exec {procfile()['ws']}"],  # the repository's own Procfile, as written
        cwd=ROOT,
        env={
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # the Procfile's `uvicorn` is this venv's
            "BIND_ADDRESS": "127.0.0.1",
            "WS_PORT": str(port),
            "WS_CONCURRENCY": str(args.processes),
            "UVICORN_LOG_LEVEL": "warning",
        },
        start_new_session=True,
    )
    try:
        wait_ready(port, server, timeout=60)
        rounds = asyncio.run(fan_out(args, port, tournament_id, server.pid))
    finally:
        stop(server)
    # The first round also opens the publisher's connection to Redis: left out.
    measured = rounds[1:] if len(rounds) > 1 else rounds
    missed = sum(r["missing"] for r in measured)
    all_ms = statistics.median(r["last"] for r in measured)
    p99_ms = statistics.median(r["p99"] for r in measured)
    p50_ms = statistics.median(r["p50"] for r in measured)
    per_process = statistics.median(r["per_process"] for r in measured)
    print(
        f"{args.clients} clients on {args.processes} uvicorn processes, {len(measured)} rounds measured:"
        f" p50 {p50_ms:.0f} ms, p99 {p99_ms:.0f} ms, all {all_ms:.0f} ms (medians over the rounds);"
        f" {per_process:.0f} messages/s per ASGI process; {missed} messages missed"
    )
    print(f"RESULT fanout_all_ms {all_ms:.1f}")
    print(f"RESULT fanout_p99_ms {p99_ms:.1f}")
    if args.clients == TEN_THOUSAND and args.processes == 2:
        print(f"RESULT fanout_10k_all_ms {all_ms:.1f}")
    return 1 if missed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=2, help="uvicorn worker processes (WS_CONCURRENCY)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--10k", dest="ten_thousand", action="store_true", help="10,000 clients on 2 processes (the room's scale)"
    )
    args = parser.parse_args()
    if args.ten_thousand:
        args.clients, args.processes = TEN_THOUSAND, 2
    # A file per client here, and per socket in the servers (who inherit the limit), with room to spare.
    limit = raise_open_files(args.clients + 1024)
    print(f"open files: soft limit {limit}, hard {resource.getrlimit(resource.RLIMIT_NOFILE)[1]}")
    if limit < args.clients + 64:
        print(f"the open-file limit ({limit}) is below {args.clients} clients: raise the hard limit (ulimit -Hn)")
        return 1

    redis.Redis.from_url(REDIS_URL).flushdb()
    with (
        tempfile.TemporaryDirectory(prefix="portal-benchfanout-") as tmp_dir,
        throwaway_database(f"portal_benchfanout_{os.getpid()}") as database_url,
    ):
        (Path(tmp_dir) / "static").mkdir()
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=database_url,
            REDIS_URL=REDIS_URL,
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            HTTPS="0",
            DEBUG="0",
            STATIC_ROOT=str(Path(tmp_dir) / "static"),
            LOG_LEVEL="WARNING",
        )
        return bench(args)


if __name__ == "__main__":
    sys.exit(main())
