"""Which server should serve the portal's HTTP views: WSGI (gunicorn) or ASGI (uvicorn)?

Starts gunicorn (2 gthread workers, the Procfile's `web`) and uvicorn (2 workers)
on free local ports against the same production settings (PostgreSQL and Redis
from the environment, a throwaway database), drives the same views on each with a
bounded keep-alive load generator from this process, and prints req/s for each.

    uv run python bench/serving.py [--seconds 3] [--connections 8] [--wsgi-worker gthread|sync]

Views driven: /healthz (no database) and /admin/ as a logged-in staff user (session,
user and template: a real database-backed page), plus /api/v1/tournaments/ when it
exists. Traffic goes to 127.0.0.1 only; the whole run takes well under 60 s.
Ends with `RESULT wsgi_rps`, `RESULT asgi_rps` (geometric mean of the per-view req/s,
so each view weighs the same) and `RESULT wsgi_over_asgi`.
"""

import argparse
import http.client
import math
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: import bench.harness from the project root

from bench.harness import DATABASE_SERVER, free_port, stop, wait_ready, with_database  # noqa: E402

BIN = Path(sys.executable).parent
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12")
TOTAL_BUDGET = 55.0  # seconds; the run stops measuring rather than overrun


def admin_conninfo() -> str:
    return with_database(DATABASE_SERVER, "postgres")


def load(port: int, path: str, headers: dict, seconds: float, connections: int) -> tuple[float, int, int]:
    """Closed-loop load: `connections` keep-alive clients, each sending the next request
    when the last one is answered. Returns (req/s, ok, errors)."""
    stop_at = time.monotonic() + seconds
    counts = [[0, 0] for _ in range(connections)]
    failures: list[BaseException] = []

    def client(i: int) -> None:
        try:
            run(i)
        except Exception as error:  # a broken client must fail the run, not lower the figure
            failures.append(error)

    def run(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < stop_at:
            try:
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                counts[i][0 if response.status == 200 else 1] += 1
                if response.will_close:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            except (OSError, http.client.HTTPException):
                counts[i][1] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 15)
    elapsed = time.monotonic() - started
    if failures:
        raise RuntimeError(f"load generator failed: {failures[0]!r}")
    ok = sum(c[0] for c in counts)
    errors = sum(c[1] for c in counts)
    return ok / elapsed, ok, errors


def server_commands(wsgi_worker: str, wsgi_port: int, asgi_port: int) -> dict[str, tuple[list[str], int, str]]:
    wsgi_args = ["-k", "gthread", "--threads", "4"] if wsgi_worker == "gthread" else ["-k", "sync"]
    quiet = ["--no-control-socket", "--log-level", "warning"]  # gunicorn's control socket path is per user
    asgi_quiet = ["--no-access-log", "--log-level", "warning"]  # gunicorn logs no access either by default
    return {
        "wsgi": (
            [str(BIN / "gunicorn"), "config.wsgi", "-b", f"127.0.0.1:{wsgi_port}", "-w", "2", *wsgi_args, *quiet],
            wsgi_port,
            f"gunicorn, 2 {wsgi_worker} workers",
        ),
        "asgi": (
            [str(BIN / "uvicorn"), "config.asgi:application", "--port", str(asgi_port), "--workers", "2", *asgi_quiet],
            asgi_port,
            "uvicorn, 2 workers",
        ),
    }


def staff_session(env: dict) -> str:
    """A logged-in superuser's session key, so /admin/ is a database-backed page."""
    script = (
        "from django.test import Client\n"
        "from accounts.models import User\n"
        "u = User.objects.create_superuser('bench', 'bench@example.com', 'bench-pass', screen_name='Bench')\n"
        "c = Client()\nc.force_login(u)\nprint(c.cookies['sessionid'].value)\n"
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=30,
        capture_output=True,
        text=True,
    ).stdout
    return out.strip().splitlines()[-1]  # the shell may print a banner first


def measure(servers: dict, views: list, args: argparse.Namespace, running: dict, began: float) -> dict:
    rates: dict[str, list[float]] = {}
    for name, (_, port, label) in servers.items():
        for path, headers in views:
            if time.monotonic() - began > TOTAL_BUDGET - 1.5 - args.seconds:
                raise RuntimeError("time budget exhausted; lower --seconds")
            load(port, path, headers, 0.5, args.connections)  # warm-up: connections, caches, imports
            rps, ok, errors = load(port, path, headers, args.seconds, args.connections)
            print(f"{name} ({label}) GET {path}: {rps:8.0f} req/s  ({ok} ok, {errors} errors)")
            if errors:
                raise RuntimeError(f"{errors} failed requests on {name} {path}")
            rates.setdefault(name, []).append(rps)
        stop(running[name])  # the next server gets the machine to itself
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds per view and server")
    parser.add_argument("--connections", type=int, default=8, help="concurrent keep-alive clients")
    parser.add_argument("--wsgi-worker", choices=["gthread", "sync"], default="gthread")
    args = parser.parse_args()
    began = time.monotonic()

    database = f"portal_bench_{os.getpid()}"
    tmp = Path(tempfile.mkdtemp(prefix="portal-bench-"))
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=with_database(DATABASE_SERVER, database),
        REDIS_URL=REDIS_URL,
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        HTTPS="0",
        STATIC_ROOT=str(tmp / "static"),
        LOG_LEVEL="WARNING",
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    running: dict[str, subprocess.Popen] = {}
    try:
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=30)
        wsgi_port, asgi_port = free_port(), free_port()
        servers = server_commands(args.wsgi_worker, wsgi_port, asgi_port)
        # Both boot while the database migrates; an idle server takes no CPU from the other's run.
        for name, (cmd, _, _) in servers.items():
            running[name] = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL)
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=60)
        session = staff_session(env)
        for name, (_, port, _) in servers.items():
            wait_ready(port, running[name])
        print(f"setup (database, collectstatic, migrate, staff session, servers up): {time.monotonic() - began:.1f} s")

        views = [("/healthz", {}), ("/admin/", {"Cookie": f"sessionid={session}"})]
        probe = http.client.HTTPConnection("127.0.0.1", wsgi_port, timeout=5)
        probe.request("GET", "/api/v1/tournaments/")
        if probe.getresponse().status == 200:  # the read API, once it exists: the typical database-backed view
            views.append(("/api/v1/tournaments/", {}))
        probe.close()

        rates = measure(servers, views, args, running, began)
        for i, (path, _) in enumerate(views):
            print(f"wsgi/asgi GET {path}: {rates['wsgi'][i] / rates['asgi'][i]:.2f}")
        # Each view weighs the same: geometric mean of the per-view rates.
        wsgi, asgi = (math.prod(rates[n]) ** (1 / len(views)) for n in ("wsgi", "asgi"))
        print(f"total time {time.monotonic() - began:.1f} s, {args.connections} connections, from 127.0.0.1")
        print(f"RESULT wsgi_rps {wsgi:.0f}")
        print(f"RESULT asgi_rps {asgi:.0f}")
        print(f"RESULT wsgi_over_asgi {wsgi / asgi:.2f}")
        return 0
    finally:
        for proc in running.values():
            stop(proc)
        with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
