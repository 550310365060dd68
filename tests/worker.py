"""Real Celery workers for the tests that need them, in subprocesses, on the test's own
database and Redis, with the tests' settings: `celery -A config worker -B` on every
queue (Worker), a table node as the Procfile runs it (Node), and beat alone (Beat)."""

# ruff: noqa: S603  (starts the project's own Celery worker)

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
BOOT_SECONDS = 60


class Worker:
    """`celery -A config worker -B` against this test's database and Redis; `env`
    adds to (or overrides) the environment its settings read."""

    def __init__(self, tmp: Path, *, env: dict[str, str] | None = None):
        self.tmp = tmp
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "PYTHONUNBUFFERED": "1",
            "CELERY_LOG_LEVEL": "INFO",  # "ready", and each task, for a failure's report
            **(env or {}),
        }

    name = "worker"

    def command(self) -> list[str]:
        return [
            *(sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "--loglevel", "INFO"),
            # The tables' shared queue (no table node is alive), the clocks' and the rest.
            *("--queues", f"{settings.TABLES_QUEUE},{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CLOCK_QUEUE}"),
            *("--concurrency", "2", "--without-gossip", "--without-mingle", "--without-heartbeat"),
            *("--schedule", str(self.tmp / f"celerybeat-schedule-{self.starts}")),
        ]

    def start(self) -> None:
        self.starts += 1
        log = self.log_path().open("wb")
        self.proc = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: a kill takes the pool's children too
        )
        log.close()
        deadline = time.monotonic() + BOOT_SECONDS
        while " ready." not in self.log_path().read_text(errors="replace"):
            assert self.proc.poll() is None, f"the worker exited\n{self.log()}"
            assert time.monotonic() < deadline, f"the worker did not start\n{self.log()}"
            time.sleep(0.1)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=15)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_path(self) -> Path:
        return self.tmp / f"{self.name}-{self.starts}.log"

    def log(self) -> str:
        return "\n".join(
            (self.tmp / f"{self.name}-{n}.log").read_text(errors="replace")[-3000:] for n in range(1, self.starts + 1)
        )


class Node(Worker):
    """A table node as the Procfile's `worker` runs it: one process (the solo pool) on
    its own queue `tables-<index>` and the nodes' shared one (tournaments.nodes)."""

    def __init__(self, tmp: Path, index: int, *, env: dict[str, str] | None = None):
        super().__init__(tmp, env=env)
        self.index = index
        self.name = f"node-{index}"

    def command(self) -> list[str]:
        return [
            *(sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "INFO"),
            *("--hostname", f"tables-{self.index}@%h", "--queues", f"tables-{self.index},{settings.TABLES_QUEUE}"),
            *("--without-gossip", "--without-mingle"),
        ]


class Beat(Worker):
    """`celery -A config beat`: the sweeps, as the Procfile's `beat` sends them."""

    name = "beat"

    def command(self) -> list[str]:
        return [
            *(sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO"),
            *("--schedule", str(self.tmp / f"celerybeat-schedule-{self.starts}")),
        ]

    def start(self) -> None:
        self.starts += 1
        with self.log_path().open("wb") as log:
            self.proc = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
