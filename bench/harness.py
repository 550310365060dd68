"""What the benchmarks share: where PostgreSQL is, free ports, and servers started
and stopped cleanly."""

import contextlib
import http.client
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
DATABASE_SERVER = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/portal")


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


@contextlib.contextmanager
def throwaway_database(name: str) -> Iterator[str]:
    """Database `name` on DATABASE_SERVER for one run; dropped on the way out, after
    this process's Django connections to it are closed. Yields its address."""
    admin = with_database(DATABASE_SERVER, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(DATABASE_SERVER, name)
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def production_environment(name: str, redis_url: str, **settings: str) -> Iterator[Path]:
    """A bench run's production settings in this process's environment (DEBUG off
    and the production log levels whatever the shell has; a throwaway database named
    `name`, Redis at `redis_url`, a fresh secret), plus `settings`, with a folder for
    the run's files (static, beat's schedule) that it yields, removed on the way out.
    The Procfile's commands run from this venv."""
    with (
        tempfile.TemporaryDirectory(prefix=f"{name}-") as folder,
        throwaway_database(f"{name}_{os.getpid()}") as database_url,
    ):
        tmp = Path(folder)
        (tmp / "static").mkdir()
        for variable in ("DEBUG", "CELERY_LOG_LEVEL", "LOG_LEVEL"):
            os.environ.pop(variable, None)
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            HTTPS="0",
            STATIC_ROOT=str(tmp / "static"),
            CELERY_BEAT_SCHEDULE_FILE=str(tmp / "celerybeat-schedule"),
            PYTHONUNBUFFERED="1",
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        os.environ.update(settings)
        yield tmp


def procfile() -> dict[str, str]:
    """The Procfile's process lines by name: the benchmarks run production's as written."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(m.groups() for line in lines if (m := re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server on port {port} not ready in {timeout} s")


def stop(proc: subprocess.Popen) -> None:
    """Stop a server started in its own process group, and everything it forked."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
