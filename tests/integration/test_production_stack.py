"""The production set-up, started for real: the Procfile's processes against PostgreSQL
and Redis (a fresh database, Redis database 14), exercised over real sockets.

Each long-running Procfile line runs under bash as written, in its own process group
that the fixture's finalizer ends; every wait here is bounded.
"""

# ruff: noqa: S603, S607  (runs the repository's own Procfile and manage.py)

import contextlib
import http.client
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from django.core.cache.backends.redis import RedisCache
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tournaments.models import Tournament
from tournaments.nodes import alive_key

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
REDIS_URL = "redis://127.0.0.1:6379/14"
BOOT_SECONDS = 60
SWEEP_SECONDS = 20  # beat sends the sweep every 5 s; allow for a loaded machine
# The suite's own settings (tests.settings) and anything a developer exported must not
# leak into the production processes.
SCRUBBED = {"DJANGO_SETTINGS_MODULE", "DEBUG", "HTTPS", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS"}


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(m.groups() for line in lines if (m := re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def tail(path: Path, lines: int = 40) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def drop_stale_databases(admin_url: str) -> None:
    """Databases left by a run that was killed (its pid is gone)."""
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn:
        names = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'portal_prodstack_%'")]
        for name in names:
            pid = name.rsplit("_", 1)[-1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Stack:
    def __init__(self, tmp: Path, env: dict[str, str], database_url: str):
        self.tmp = tmp
        self.env = env
        self.database_url = database_url
        self.web_port = int(env["PORT"])
        self.ws_port = int(env["WS_PORT"])
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, command: str) -> None:
        log = (self.tmp / f"{name}.log").open("wb")
        self.procs[name] = subprocess.Popen(
            ["bash", "-c", f"exec {command}"],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the finalizer ends workers too
        )
        log.close()

    def logs(self) -> str:
        return "\n".join(f"--- {name}.log ---\n{tail(self.tmp / f'{name}.log')}" for name in self.procs)

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            assert proc.poll() is None, f"{name} exited with {proc.returncode}\n{self.logs()}"

    def wait_healthy(self, port: int) -> None:
        deadline = time.monotonic() + BOOT_SECONDS
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                if get(port, "/healthz", timeout=5)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        pytest.fail(f"no healthy server on port {port} after {BOOT_SECONDS} s\n{self.logs()}")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ProcessLookupError):  # what is left of the group: a worker child, a stuck server
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("prodstack")
    suite_url = os.environ["DATABASE_URL"]  # set by tests.settings or the caller
    admin_url = with_database(suite_url, "postgres")
    database = f"portal_prodstack_{os.getpid()}"
    database_url = with_database(suite_url, database)
    drop_stale_databases(admin_url)
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}"')

    env = base_env()
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=REDIS_URL,
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        HTTPS="0",
        STATIC_ROOT=str(tmp / "static"),
        CELERY_BEAT_SCHEDULE_FILE=str(tmp / "celerybeat-schedule"),
        BIND_ADDRESS="127.0.0.1",
        PORT=str(free_port()),
        WS_PORT=str(free_port()),
        WEB_CONCURRENCY="2",
        CELERY_CONCURRENCY="1",
        CELERY_LOG_LEVEL="INFO",  # each sweep in worker.log, for a failure's report
    )
    processes = procfile()
    stack = Stack(tmp, env, database_url)
    try:
        release = subprocess.run(
            ["bash", "-c", processes["release"]],
            check=False,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert release.returncode == 0, f"release failed:\n{release.stdout[-3000:]}\n{release.stderr[-3000:]}"
        for name in ("web", "ws", "worker", "clock", "beat"):
            stack.start(name, processes[name])
        stack.wait_healthy(stack.web_port)
        stack.wait_healthy(stack.ws_port)
        yield stack
    finally:
        stack.stop()
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def test_procfile_names_the_production_processes():
    assert {"release", "web", "ws", "worker", "clock", "beat"} <= procfile().keys()
    assert "gunicorn config.wsgi" in procfile()["web"]
    assert "uvicorn config.asgi" in procfile()["ws"]


def test_healthz_on_both_servers(stack):
    assert get(stack.web_port, "/healthz") == (200, b"ok")
    assert get(stack.ws_port, "/healthz") == (200, b"ok")


def test_lobby_on_the_wsgi_server(stack):
    status, _ = get(stack.web_port, "/")
    assert status == 200, stack.logs()


def test_static_files_are_served_by_the_wsgi_server(stack):
    manifest = Path(stack.env["STATIC_ROOT"]) / "staticfiles.json"
    assert manifest.exists()
    status, body = get(stack.web_port, "/static/admin/css/base.css")
    assert status == 200
    assert len(body) > 1000


def test_websocket_to_an_unknown_path_is_refused_cleanly(stack):
    url = f"ws://127.0.0.1:{stack.ws_port}/ws/no-such-route/"
    origin = f"http://127.0.0.1:{stack.ws_port}"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, origin=origin, open_timeout=10, close_timeout=5)
    assert refused.value.response.status_code == 403
    # The server is still up and serving after the refused handshake.
    assert get(stack.ws_port, "/healthz") == (200, b"ok")
    stack.check_alive()


def children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def command_line(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_text().rstrip("\0").split("\0")


def test_the_worker_runs_its_table_nodes_each_one_process_on_its_own_queue_and_alive(stack):
    """The Procfile's `worker` runs TABLE_NODES (2 by default) table nodes: each a Celery
    worker of one process (the solo pool: the hands it plays stay warm in it), on its
    own queue and Celery's default one, each marked alive for every process that
    queues a turn (tournaments.nodes), all at the servers' priority."""
    shell = stack.procs["worker"].pid
    deadline = time.monotonic() + BOOT_SECONDS
    while len(children(shell)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    nodes = children(shell)
    assert len(nodes) == 2, stack.logs()
    queues = set()
    for pid in nodes:
        line = command_line(pid)
        assert line[line.index("--pool") + 1] == "solo"
        queues.add(line[line.index("--queues") + 1])
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0)
    assert queues == {"tables-0,tables", "tables-1,tables"}
    shared = RedisCache(REDIS_URL, {})
    while len(shared.get_many([alive_key(0), alive_key(1)])) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert shared.get_many([alive_key(0), alive_key(1)]) == {alive_key(0): True, alive_key(1): True}, stack.logs()
    assert [children(pid) for pid in nodes] == [[], []]  # one process each, once they answer


def test_worker_and_beat_open_registration(stack):
    script = (
        "from datetime import timedelta\n"
        "from django.utils import timezone\n"
        "from tests.factories import TournamentFactory\n"
        "now = timezone.now()\n"
        "t = TournamentFactory(status='announced', registration_opens_at=now - timedelta(minutes=1),"
        " scheduled_start=now + timedelta(hours=2))\n"
        "print('TOURNAMENT', t.pk)\n"
    )
    created = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        check=False,
        cwd=ROOT,
        env=stack.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert created.returncode == 0, created.stderr[-3000:]
    tournament_id = int(re.search(r"^TOURNAMENT (\d+)$", created.stdout, re.M).group(1))

    table = Tournament._meta.db_table
    deadline = time.monotonic() + SWEEP_SECONDS
    status = None
    with psycopg.connect(stack.database_url, autocommit=True, connect_timeout=10) as conn:
        while time.monotonic() < deadline:
            status = conn.execute(f"SELECT status FROM {table} WHERE id = %s", [tournament_id]).fetchone()[0]  # noqa: S608
            if status == "registering":
                break
            stack.check_alive()
            time.sleep(0.5)
    assert status == "registering", f"still {status!r} after {SWEEP_SECONDS} s\n{stack.logs()}"
    # The clocks' queue is the clock's alone: the tables' worker never runs the sweep.
    assert "tournaments.tasks.tournaments_sweep[" in (stack.tmp / "clock.log").read_text()
    assert "tournaments.tasks.tournaments_sweep[" not in (stack.tmp / "worker.log").read_text()


def production_env(**extra: str) -> dict[str, str]:
    env = base_env()
    env.update(
        DATABASE_URL=os.environ["DATABASE_URL"],
        REDIS_URL=os.environ["REDIS_URL"],
        SECRET_KEY=secrets.token_urlsafe(60),
        ALLOWED_HOSTS="portal.example.com",
        **extra,
    )
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        check=False,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_deploy_check_is_clean_with_production_settings():
    result = manage(production_env(), "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr


def test_embedded_default_needs_no_environment():
    result = manage(base_env(), "check")
    assert result.returncode == 0, result.stdout + result.stderr
