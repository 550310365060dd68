"""Which worker node plays a table: its turns go to one node's queue, so the hand's
state stays warm in that node's memory (tournaments.services.hands); the database
stays the record, and its row locks, not the routing, keep a table from being played
twice at once.

The room runs `settings.TABLE_NODES` table nodes, each a Celery worker of one
process consuming its own queue, `tables-<index>`, and the nodes' shared queue,
`tables` (the hands' sweep, and every turn while no node is known alive). A node says it is alive by a
key in the shared cache that it renews every NODE_RENEW_SECONDS and that lapses
NODE_LEASE_SECONDS after its last renewal (a node killed, or cut off). A table's turns
go to the live node that ranks highest for it by rendezvous hashing: when a node
dies, only its own tables move, each to the next node in its ranking; when it comes
back, they return to it. Turns queued to a node that died are played by the sweep
(tournaments.tasks.hands_sweep) once they are overdue, from the hand's record.
"""

import hashlib
import logging
import threading
import time

from celery import signature
from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

NODE_LEASE_SECONDS = 2
NODE_RENEW_SECONDS = 0.5
# How long a process trusts the live nodes it read: a dead node is routed to for at
# most the lease and this.
NODES_READ_SECONDS = 1.0

QUEUE_PREFIX = "tables-"
TAKE_OVER_TASK = "tournaments.tasks.tables_take_over"


def node_queue(index: int) -> str:
    return f"{QUEUE_PREFIX}{index}"


def node_of_queues(queues: list[str]) -> int | None:
    """The node a worker consuming `queues` is, if it is a table node."""
    for queue in queues:
        if queue.startswith(QUEUE_PREFIX) and queue[len(QUEUE_PREFIX) :].isdigit():
            return int(queue[len(QUEUE_PREFIX) :])
    return None


def alive_key(index: int) -> str:
    """The shared cache's key that says node `index` is alive."""
    return f"tables:node:{index}"


class _Nodes:
    """The live nodes as this process last read them."""

    def __init__(self) -> None:
        self.read_at = -NODES_READ_SECONDS
        self.alive: tuple[int, ...] = ()
        self.lock = threading.Lock()

    def get(self, *, fresh: bool = False) -> tuple[int, ...]:
        now = time.monotonic()
        if now - self.read_at < NODES_READ_SECONDS and not fresh:
            return self.alive
        with self.lock:
            if now - self.read_at >= NODES_READ_SECONDS or fresh:
                count = settings.TABLE_NODES
                found = cache.get_many([alive_key(index) for index in range(count)]) if count else {}
                self.alive = tuple(index for index in range(count) if alive_key(index) in found)
                self.read_at = now
        return self.alive


_nodes = _Nodes()


def nodes_alive(*, fresh: bool = False) -> tuple[int, ...]:
    """The table nodes alive, as this process last read them (at most NODES_READ_SECONDS
    ago), or as they are now if `fresh`."""
    return _nodes.get(fresh=fresh)


def _rank(table_id: int, index: int) -> bytes:
    return hashlib.blake2b(f"{table_id}:{index}".encode(), digest_size=8).digest()


def table_node(table_id: int, alive: tuple[int, ...]) -> int | None:
    """The node among `alive` that plays the table (rendezvous hashing), or None."""
    return max(alive, key=lambda index: _rank(table_id, index)) if alive else None


def table_queue(table_id: int) -> str | None:
    """The queue of the node that plays the table; None (Celery's default queue, which
    every node consumes) if no table node is alive or the room runs none."""
    node = table_node(table_id, nodes_alive())
    return None if node is None else node_queue(node)


class Heartbeat:
    """A node's life, renewed in a thread of its own until it stops. When the nodes alive
    change (this one has just started, another died or joined), the node takes over
    the tables that are now its own (TAKE_OVER_TASK, on its own queue): turns queued on
    a node that died, or on the node that played them before this one joined."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"tables-node-{index}", daemon=True)
        self.seen: tuple[int, ...] = ()

    def start(self) -> None:
        self.renew()
        self.thread.start()

    def look(self) -> None:
        """Take the tables over if the nodes alive are not the ones seen last."""
        alive = nodes_alive(fresh=True)
        if alive != self.seen:
            self.seen = alive
            signature(TAKE_OVER_TASK, args=(self.index,)).apply_async(queue=node_queue(self.index))

    def renew(self) -> None:
        cache.set(alive_key(self.index), True, timeout=NODE_LEASE_SECONDS)

    def stop(self) -> None:
        """A node shutting down hands its tables on at once."""
        self.stopped.set()
        try:
            cache.delete(alive_key(self.index))
        except Exception:
            logger.exception("Table node %s could not say it stopped; its lease lapses", self.index)

    def _run(self) -> None:
        while not self.stopped.wait(NODE_RENEW_SECONDS):
            try:
                self.renew()
                self.look()
            except Exception:
                # The next renewal tries again; a lease that lapses meanwhile moves the tables on.
                logger.exception("Table node %s could not renew its lease", self.index)
