"""How many registrations per second does one tournament take from 16 concurrent
clients, against a bare view that inserts one row per request?

Production-like: DEBUG=0, PostgreSQL in a throwaway database, Redis database 13 as
cache and Celery broker (flushed first: nothing else uses it), the Procfile's
`worker` as written (it sends the live updates' end-of-second messages), and
gunicorn with the Procfile's `web` workers and threads (gthread; their defaults,
2 x 4) serving this module's urlconf: the project's URLs plus

- `POST /bench/bare`: a plain Django view that inserts one audit row (one INSERT);
- `POST|DELETE /bench/tournaments/<id>/registration/`: a minimal DRF view that finds
  the player from `Authorization: Bench <username>` (one query, like a token's),
  calls `entry_register` with the request's Idempotency-Key, or `entry_unregister`,
  and answers a few fields: the services' own cost, without the API's.

Registration goes through the API, `POST|DELETE /api/v1/tournaments/<id>/registration/`
with `Authorization: Token ...` and an Idempotency-Key, when the project has it;
otherwise through the bench view. The run says which.

16 client threads in this process, each a distinct funded player with its own
keep-alive connection (http.client), send requests back to back: on the bare view,
or alternately registering and unregistering (the event never fills). The kinds are
measured in interleaved rounds in a rotating order so noise hits them alike.

    uv run python bench/registration.py [--rounds 6] [--seconds 2.5] [--clients 16] [--profile]

Counted: successful requests. For registration that is registrations (201) plus
unregistrations (200) per second, each one a transaction through the tournament's
row lock and the ledger; any other answer fails the run. Also printed: server CPU
per request (gunicorn workers and this database's PostgreSQL backends, from /proc),
which is steadier than req/s on a busy machine.

How long the tournament's row lock is held: every request the server runs goes
through this module's LockTimer middleware (added to the bench's settings only, not
the project's), which watches the request's SQL with Django's execute_wrapper. From
the moment the statement that locks a tournament row (a SELECT ... FOR [NO KEY] UPDATE
on the tournaments table) returns, the lock is held until the transaction commits; an
on_commit callback registered then notes the commit's end, and the time between is
sent back in a `Bench-Lock-Held` header (milliseconds), which the clients average.
It includes the Python between the statements under the lock, as the queue of other
players waiting for the lock sees it, and not the time spent waiting for the lock.

Ends with `RESULT registration_ratio` (registration req/s over bare req/s; target
>= 0.15), `RESULT registration_lock_ms` (the mean time a registration, a POST, holds
its tournament's row lock; an unregistration's is printed beside it) and
`RESULT registration_queries` (SQL queries of one registration plus one
unregistration). --profile adds a cProfile of bench-view registrations in this
process. About 60 s; under 90 s on a busy machine.
"""

import argparse
import http.client
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import psycopg  # noqa: E402
import redis  # noqa: E402

from bench.harness import free_port, procfile, stop, throwaway_database, wait_ready  # noqa: E402

BIN = Path(sys.executable).parent
REDIS_URL = os.environ.get("BENCH_REGISTRATION_REDIS_URL", "redis://127.0.0.1:6379/13")
TIME_BUDGET = 80.0  # seconds; measuring stops early rather than overrun (teardown takes a few more)
CLIENTS = 16  # --clients changes it, for diagnosis; the RESULT lines are for 16


def web_processes() -> tuple[int, int]:
    """The Procfile's `web` workers and threads per worker, as production runs them."""
    web = procfile()["web"]
    workers = re.search(r'--workers "\$\{WEB_CONCURRENCY:-(\d+)\}"', web)
    threads = re.search(r'--threads "\$\{WEB_THREADS:-(\d+)\}"', web)
    return int(workers[1]), int(threads[1])


WORKERS, THREADS = web_processes()
BUY_IN, FEE = 1_000, 100
FUNDS = 1_000_000


# --- The server side: gunicorn loads `bench.registration:wsgi_app()` in each worker.


def bench_views():
    """The bare view and the registration view; built after django.setup()."""
    from django.http import HttpResponse
    from django.utils import timezone
    from django.views.decorators.csrf import csrf_exempt
    from rest_framework import exceptions
    from rest_framework.authentication import BaseAuthentication
    from rest_framework.permissions import IsAuthenticated
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from accounts.models import User
    from audit.models import AuditEntry
    from tournaments.services.entries import entry_register, entry_unregister

    @csrf_exempt
    def bare(request):
        if request.method != "POST":
            return HttpResponse(status=405)
        AuditEntry.objects.create(action="bench.bare", subject_type="bench", subject_id="0")
        return HttpResponse("ok", status=201)

    class PlayerHeaderAuthentication(BaseAuthentication):
        """`Authorization: Bench <username>`: one lookup, standing in for a token's."""

        def authenticate(self, request):
            scheme, _, username = request.headers.get("Authorization", "").partition(" ")
            if scheme != "Bench" or not username:
                return None
            user = User.objects.filter(username=username, is_active=True).first()
            if user is None:
                raise exceptions.AuthenticationFailed("No such player.")
            return user, None

    class Registration(APIView):
        authentication_classes = (PlayerHeaderAuthentication,)
        permission_classes = (IsAuthenticated,)

        def post(self, request, pk: int):
            entry = entry_register(
                tournament_id=pk,
                player=request.user,
                now=timezone.now(),
                idempotency_key=request.headers.get("Idempotency-Key") or None,
            )
            return Response({"entry": entry.pk, "status": entry.status, "chips": entry.chips}, status=201)

        def delete(self, request, pk: int):
            entry = entry_unregister(tournament_id=pk, player=request.user, now=timezone.now())
            return Response({"entry": entry.pk, "status": entry.status})

    return bare, Registration.as_view()


def locks_a_tournament(sql: str) -> bool:
    """Whether `sql` is the statement that takes a tournament's row lock."""
    from tournaments.models import Tournament

    table = Tournament._meta.db_table
    return sql.startswith("SELECT") and f'FROM "{table}"' in sql and ("FOR UPDATE" in sql or "FOR NO KEY UPDATE" in sql)


class LockTimer:
    """Middleware (the bench's settings only): the milliseconds the request held a
    tournament's row lock, from the locking statement's return to the commit's end,
    in a Bench-Lock-Held header. See the module's docstring."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.db import connection, transaction

        held: list[float] = []

        def timed(execute, sql, params, many, context):
            result = execute(sql, params, many, context)
            if locks_a_tournament(sql):
                taken = time.perf_counter()
                transaction.on_commit(lambda: held.append(time.perf_counter() - taken))
            return result

        with connection.execute_wrapper(timed):
            response = self.get_response(request)
        if held:
            response["Bench-Lock-Held"] = f"{1000 * sum(held):.3f}"
        return response


class BenchUrls:
    """The project's URLs plus the bench views; i18n_patterns must stay at the root,
    so the project's patterns are spliced in rather than included."""

    def __init__(self):
        from django.urls import path

        from config.urls import urlpatterns

        bare, registration = bench_views()
        self.urlpatterns = [
            path("bench/bare", bare),
            path("bench/tournaments/<int:pk>/registration/", registration),
            *urlpatterns,
        ]


def bench_settings() -> None:
    """This run's urlconf, and its lock timer in front of the project's middleware."""
    from django.conf import settings

    settings.ROOT_URLCONF = BenchUrls()
    settings.MIDDLEWARE = ["bench.registration.LockTimer", *settings.MIDDLEWARE]


def wsgi_app():
    import django

    django.setup(set_prefix=False)
    bench_settings()
    from django.core.handlers.wsgi import WSGIHandler

    return WSGIHandler()


# --- The client side.


class Client:
    """One player with one keep-alive connection, registering through the API or the
    bench view (the player's state carries over between them)."""

    def __init__(self, port: int, player: tuple[str, str | None], tournament_id: int):
        username, token = player
        self.port = port
        self.endpoints = {
            "api": (f"/api/v1/tournaments/{tournament_id}/registration/", {"Authorization": f"Token {token}"}),
            "view": (f"/bench/tournaments/{tournament_id}/registration/", {"Authorization": f"Bench {username}"}),
        }
        self.registered = False
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        # (endpoint, "registered" or "unregistered"): each request's Bench-Lock-Held, in ms.
        self.lock_ms: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.held = ""  # the last answer's Bench-Lock-Held

    def send(self, method: str, path: str, headers: dict, body: bytes = b"") -> int:
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                response.read()
                self.held = response.getheader("Bench-Lock-Held", "")
                if response.will_close:
                    self.reconnect()
                return response.status
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # The server closed a keep-alive connection that sat idle between rounds: the
                # request never reached a view, so sending it again is safe.
                self.reconnect()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def reconnect(self) -> None:
        self.conn.close()
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def bare(self) -> str:
        status = self.send("POST", "/bench/bare", {})
        if status != 201:
            raise RuntimeError(f"POST /bench/bare: {status}")
        return "bare"

    def api(self) -> str:
        return self.registration("api")

    def view(self) -> str:
        return self.registration("view")

    def registration(self, endpoint: str) -> str:
        url, auth = self.endpoints[endpoint]
        if self.registered:
            method, expected, done = "DELETE", 200, "unregistered"
            status = self.send(method, url, auth)
        else:
            method, expected, done = "POST", 201, "registered"
            headers = {**auth, "Idempotency-Key": uuid.uuid4().hex, "Content-Type": "application/json"}
            status = self.send(method, url, headers, b"{}")
        if status != expected:
            raise RuntimeError(f"{method} {url}: {status}, expected {expected}")
        if not self.held:
            raise RuntimeError(f"{method} {url}: the server measured no tournament lock")
        self.lock_ms[endpoint, done].append(float(self.held))
        self.registered = not self.registered
        return done


class CpuMeter:
    """Server-side CPU seconds, as the kernel counts them: the gunicorn workers (Django)
    and this database's PostgreSQL backends. Per request, less sensitive than req/s to
    whatever else the machine runs (the client threads here are counted in neither)."""

    def __init__(self, master_pid: int, conninfo: str):
        self.tick = os.sysconf("SC_CLK_TCK")
        self.workers = [pid for pid in self.processes() if self.stat(pid)[1] == str(master_pid)]
        self.conn = psycopg.connect(conninfo, autocommit=True)

    @staticmethod
    def processes() -> list[int]:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]

    @staticmethod
    def stat(pid: int) -> list[str]:
        """Fields of /proc/<pid>/stat from the state on (the name may hold spaces)."""
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return ["", ""]
        return text[text.rindex(")") + 2 :].split()

    def seconds(self, pids: list[int]) -> dict[int, float]:
        times = {}
        for pid in pids:
            fields = self.stat(pid)
            if len(fields) > 12:
                times[pid] = (int(fields[11]) + int(fields[12])) / self.tick  # utime + stime
        return times

    def sample(self) -> dict[str, dict[int, float]]:
        backends = self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        return {"django": self.seconds(self.workers), "postgres": self.seconds([pid for (pid,) in backends])}

    @staticmethod
    def spent(before: dict, after: dict) -> dict[str, float]:
        return {
            side: sum(seconds - before[side].get(pid, 0.0) for pid, seconds in after[side].items()) for side in after
        }


def run_round(clients: list[Client], kind: str, seconds: float) -> tuple[dict, float]:
    """Every client sends `kind` requests back to back for `seconds`; counts by outcome."""
    counts = [dict.fromkeys(("bare", "registered", "unregistered"), 0) for _ in clients]
    failures: list[BaseException] = []
    window = {}

    def begin():
        window["stop"] = time.monotonic() + seconds

    start = threading.Barrier(len(clients) + 1, action=begin)

    def work(i: int) -> None:
        send = getattr(clients[i], kind)
        start.wait()
        try:
            while time.monotonic() < window["stop"]:
                counts[i][send()] += 1
        except Exception as error:  # a failed request fails the run, not just lowers the figure
            failures.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join(timeout=seconds + 60)
    elapsed = time.monotonic() - began
    if failures:
        raise RuntimeError(f"{kind}: {failures[0]}")
    return {key: sum(c[key] for c in counts) for key in counts[0]}, elapsed


LABELS = {"bare": "bare insert", "api": "registration (API)", "view": "registration (bench view)"}


def measure(clients: list[Client], kinds: list[str], args: argparse.Namespace, began: float, cpu: CpuMeter) -> dict:
    """Interleaved rounds: every kind gets `args.seconds` per round, in a rotating order
    so none always goes first. Returns req/s per kind."""
    totals = {kind: {"bare": 0, "registered": 0, "unregistered": 0, "seconds": 0.0} for kind in kinds}
    cpu_spent = {kind: {"django": 0.0, "postgres": 0.0} for kind in kinds}
    ratios: dict[str, list[float]] = {kind: [] for kind in kinds if kind != "bare"}
    for number in range(args.rounds):
        if time.monotonic() - began > TIME_BUDGET - len(kinds) * args.seconds - (15 if args.profile else 5):
            print(f"time budget: stopped after {number} rounds")
            break
        rates = {}
        turn = number % len(kinds)
        for kind in kinds[turn:] + kinds[:turn]:
            before = cpu.sample()
            counts, elapsed = run_round(clients, kind, args.seconds)
            for side, seconds in cpu.spent(before, cpu.sample()).items():
                cpu_spent[kind][side] += seconds
            for key, count in counts.items():
                totals[kind][key] += count
            totals[kind]["seconds"] += elapsed
            rates[kind] = sum(counts.values()) / elapsed
        for kind, spread in ratios.items():
            spread.append(rates[kind] / rates["bare"])
        print(f"round {number + 1}: " + ", ".join(f"{kind} {rates[kind]:.1f} req/s" for kind in kinds))
    rps, cpu_ms = {}, {}
    for kind in kinds:
        done = totals[kind]["bare"] + totals[kind]["registered"] + totals[kind]["unregistered"]
        rps[kind] = done / totals[kind]["seconds"]
        ms = {side: 1000 * seconds / max(done, 1) for side, seconds in cpu_spent[kind].items()}
        cpu_ms[kind] = sum(ms.values())
        if kind == "bare":
            what = f"{done} inserts"
        else:
            what = f"{totals[kind]['registered']} registrations + {totals[kind]['unregistered']} unregistrations"
        print(f"{LABELS[kind]:>26}: {rps[kind]:7.1f} req/s ({what})")
        print(
            f"{'':>28}server CPU a request {cpu_ms[kind]:.2f} ms"
            f" (Django {ms['django']:.2f}, PostgreSQL {ms['postgres']:.2f})"
        )
        if kind in ratios:
            spread = ratios[kind]
            print(
                f"{'':>28}ratio {rps[kind] / rps['bare']:.3f} (rounds {min(spread):.3f}..{max(spread):.3f});"
                f" CPU ratio {cpu_ms['bare'] / cpu_ms[kind]:.3f} (bare CPU over this: the ceiling when CPU-bound)"
            )
    return rps


def lock_held(clients: list[Client], endpoint: str) -> dict[str, float]:
    """The mean milliseconds a registration and an unregistration through `endpoint`
    held the tournament's row lock, over every client's measured requests."""
    means = {}
    for done in ("registered", "unregistered"):
        held = [ms for client in clients for ms in client.lock_ms[endpoint, done]]
        means[done] = sum(held) / len(held)
    return means


# --- Setup, query counts, profile.


def seed(clients: int) -> tuple[int, list[tuple[str, str | None]]]:
    """One registering cash event and the clients' funded players (username, API token
    when the project has tokens), plus a probe player for the query counts and the profile."""
    from datetime import timedelta

    from django.apps import apps
    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import BlindLevel, BlindStructure, Tournament
    from wallet.services import deposit_create

    structure = BlindStructure.objects.create(name="Regular 12-minute")
    BlindLevel.objects.bulk_create(
        BlindLevel(structure=structure, position=i, small_blind=10 * i, big_blind=20 * i, minutes=12)
        for i in range(1, 21)
    )
    tournament = Tournament.objects.create(
        name="Bench Freezeout",
        status="registering",
        buy_in=BUY_IN,
        fee=FEE,
        max_entrants=1_000,
        scheduled_start=timezone.now() + timedelta(hours=2),
        blind_structure=structure,
    )
    tokens = apps.is_installed("rest_framework.authtoken")
    players = []
    for username in [*(f"bench{i}" for i in range(clients)), "probe"]:
        user = User.objects.create_user(username, f"{username}@example.com", screen_name=username.capitalize())
        deposit_create(user=user, currency="EUR", amount=FUNDS, idempotency_key=f"bench:{username}")
        if tokens:
            from rest_framework.authtoken.models import Token

            players.append((username, Token.objects.create(user=user).key))
        else:
            players.append((username, None))
    return tournament.pk, players


def queries_per_request(tournament_id: int, probe: tuple[str, str | None]) -> dict:
    """SQL queries of each request, through the handler in this process; without an
    answer from the API (no such route, or no tokens), no "api" key."""
    from django.db import connection
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    username, token = probe
    client = DjangoClient(HTTP_HOST="127.0.0.1")
    endpoints = {"view": (f"/bench/tournaments/{tournament_id}/registration/", f"Bench {username}")}
    if token is not None:
        endpoints["api"] = (f"/api/v1/tournaments/{tournament_id}/registration/", f"Token {token}")

    def register(url: str, auth: str):
        return client.post(
            url, b"{}", content_type="application/json", HTTP_AUTHORIZATION=auth, HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex
        )

    def count(request, expected: int) -> int:
        with CaptureQueriesContext(connection) as captured:
            response = request()
        if response.status_code != expected:
            raise RuntimeError(f"{response.status_code}, expected {expected}: {response.content[:300]!r}")
        return len(captured)

    client.post("/bench/bare")  # warm-up: resolvers, accounts
    counts = {"bare": count(lambda: client.post("/bench/bare"), 201)}
    for endpoint, (url, auth) in endpoints.items():
        if register(url, auth).status_code == 404:  # the project has no registration API (yet)
            continue
        client.delete(url, HTTP_AUTHORIZATION=auth)
        counts[endpoint] = (
            count(lambda url=url, auth=auth: register(url, auth), 201),
            count(lambda url=url, auth=auth: client.delete(url, HTTP_AUTHORIZATION=auth), 200),
        )
    return counts


def profile(tournament_id: int, pairs: int = 50) -> None:
    """Registrations and unregistrations through the handler in this process, one at a
    time: where a request's time goes, without the server and the contention."""
    import cProfile
    import pstats

    from django.test import Client as DjangoClient

    client = DjangoClient(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION="Bench probe")
    url = f"/bench/tournaments/{tournament_id}/registration/"  # the services, without the API's own work
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(pairs):
        client.post(url, HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
        client.delete(url)
    profiler.disable()
    if os.environ.get("BENCH_PROFILE_DUMP"):
        profiler.dump_stats(os.environ["BENCH_PROFILE_DUMP"])  # for pstats or a viewer
    stats = pstats.Stats(profiler)
    print(f"profile: {pairs} registrations + {pairs} unregistrations in this process, by cumulative time")
    stats.sort_stats(os.environ.get("BENCH_PROFILE_SORT", "cumulative")).print_stats(30)


def worker_start(tmp: Path) -> subprocess.Popen:
    """The Procfile's `worker`, as written: it sends the end-of-second live messages
    that spare later registrations a Redis round trip (lobby.live)."""
    log = tmp / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            ["bash", "-c", f"exec {procfile()['worker']}"],
            cwd=ROOT,
            env={**os.environ, "CELERY_LOG_LEVEL": "INFO"},  # its " ready." line
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while " ready." not in log.read_text(errors="replace"):
        if worker.poll() is not None or time.monotonic() > deadline:
            stop(worker)
            raise RuntimeError(f"the Celery worker did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    return worker


def bench(args: argparse.Namespace, began: float, tmp: Path) -> None:
    port = free_port()
    server = [
        str(BIN / "gunicorn"),
        "bench.registration:wsgi_app()",
        *("--bind", f"127.0.0.1:{port}", "--workers", str(WORKERS), "--worker-class", "gthread"),
        *("--threads", str(THREADS), "--no-control-socket", "--log-level", "warning"),
    ]
    # The workers boot (no database access) while this process migrates and seeds.
    gunicorn = subprocess.Popen(server, cwd=ROOT, env=os.environ.copy(), start_new_session=True)
    worker = None
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", interactive=False, verbosity=0)
        tournament_id, players = seed(args.clients)
        bench_settings()
        queries = queries_per_request(tournament_id, players[-1])
        connections.close_all()
        kinds = ["bare", *(kind for kind in ("api", "view") if kind in queries)]
        measured = kinds[1]  # the API when there is one
        wait_ready(port, gunicorn)
        worker = worker_start(tmp)
        clients = [Client(port, player, tournament_id) for player in players[:-1]]
        for kind in kinds:  # warm-up: connections, imports, accounts
            run_round(clients, kind, 0.5)
        for client in clients:
            client.lock_ms.clear()
        print(
            f"setup (database, migrate, {args.clients} players, gunicorn {WORKERS}x{THREADS} gthread and"
            " the Celery worker up):"
            f" {time.monotonic() - began:.1f} s"
        )
        print(
            "registration through "
            + (
                "the API, /api/v1/tournaments/<id>/registration/ (token auth)"
                if measured == "api"
                else "the bench view (the project has no registration API)"
            )
        )
        cpu = CpuMeter(gunicorn.pid, os.environ["DATABASE_URL"])
        rps = measure(clients, kinds, args, began, cpu)
        lock_ms = {kind: lock_held(clients, kind) for kind in kinds[1:]}
        cpu.conn.close()
        for client in clients:
            client.conn.close()
        if args.profile:
            profile(tournament_id)
        print(
            f"SQL queries per request: bare {queries['bare']}; "
            + "; ".join(f"{LABELS[kind]} {queries[kind][0]} + {queries[kind][1]}" for kind in kinds[1:])
            + " (registration + unregistration)"
        )
        for kind, held in lock_ms.items():
            print(
                f"tournament lock held, {LABELS[kind]}: registration {held['registered']:.2f} ms,"
                f" unregistration {held['unregistered']:.2f} ms (mean per request)"
            )
        print(f"total {time.monotonic() - began:.1f} s, {args.clients} clients, from 127.0.0.1")
        ratio = rps[measured] / rps["bare"]
        if args.clients == CLIENTS:
            print(f"RESULT registration_ratio {ratio:.3f}")
            print(f"RESULT registration_lock_ms {lock_ms[measured]['registered']:.2f}")
            print(f"RESULT registration_queries {sum(queries[measured])}")
        else:
            print(f"ratio at {args.clients} clients: {ratio:.3f} (no RESULT line: not the 16-client set-up)")
    finally:
        stop(gunicorn)
        if worker is not None:
            stop(worker)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="interleaved measuring rounds")
    parser.add_argument("--seconds", type=float, default=2.5, help="seconds per view per round")
    parser.add_argument("--clients", type=int, default=CLIENTS, help="concurrent clients, each its own player")
    parser.add_argument("--profile", action="store_true", help="cProfile registrations in this process at the end")
    args = parser.parse_args()
    began = time.monotonic()

    database = f"portal_benchreg_{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="portal-benchreg-") as tmp, throwaway_database(database) as database_url:
        (Path(tmp) / "static").mkdir()  # nothing is served from it; WhiteNoise only wants it to exist
        os.environ.pop("DEBUG", None)
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=database_url,
            REDIS_URL=REDIS_URL,
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            HTTPS="0",
            DEBUG="0",
            STATIC_ROOT=str(Path(tmp) / "static"),
            LOG_LEVEL="WARNING",
        )
        redis.Redis.from_url(REDIS_URL).flushdb()  # the broker and cache of this run alone
        bench(args, began, Path(tmp))
        return 0


if __name__ == "__main__":
    sys.exit(main())
