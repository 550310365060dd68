import contextlib
import os
from pathlib import Path

from celery import Celery
from celery.signals import celeryd_init
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@celeryd_init.connect
def yield_to_the_servers(*, options: dict, **_kwargs) -> None:
    """A `celery worker` of the tables (not the clock's, and not the embedded default's
    worker thread, which shares the server's process) runs settings.WORKER_NICE below
    the servers; its pool inherits it.

    Linux puts each session in a scheduling group of its own (autogroup), where nice
    only ranks a process against its own session: a worker that leads its session (as
    systemd and the benchmarks start each process) sets its group's nice too. One that
    shares its session with the servers is ranked against them by its own nice alone."""
    nice = settings.WORKER_NICE
    if nice <= 0 or settings.CLOCK_QUEUE in (options.get("queues") or []):
        return
    os.nice(nice)
    if os.getsid(0) == os.getpid():
        with contextlib.suppress(OSError):  # a kernel without autogroup
            Path("/proc/self/autogroup").write_text(f"{nice}\n")
