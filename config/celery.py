import os

from celery import Celery
from celery.signals import celeryd_init, worker_process_init, worker_ready, worker_shutdown

from config.collector import collector_tuned
from tournaments.nodes import Heartbeat, node_of_queues

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_node: dict[str, int] = {}


@celeryd_init.connect
def _table_node(*, options: dict, **_kwargs) -> None:
    """A worker consuming a table node's queue (`tables-<index>`) is that node."""
    queues = options.get("queues") or []
    index = node_of_queues(queues.split(",") if isinstance(queues, str) else list(queues))
    if index is not None:
        _node["index"] = index


@worker_process_init.connect
def _pool_process_started(**_kwargs) -> None:
    collector_tuned()  # a pool's child (the clock's), once it has loaded the tasks


@worker_ready.connect
def _node_alive(**_kwargs) -> None:
    collector_tuned()  # a solo worker (a table node) plays in this process
    # Once it consumes: from now on the table's turns are queued to it (tournaments.nodes).
    if "index" in _node:
        heartbeat = Heartbeat(_node["index"])
        heartbeat.start()
        worker_shutdown.connect(lambda **_: heartbeat.stop(), weak=False)
