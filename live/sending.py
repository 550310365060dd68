"""Sending to a group's sockets from synchronous code (a request's or a worker's
thread, once a transaction commits) without waiting for the channel layer.

A message is queued and the caller returns; one event loop sends the queue in order,
a burst of messages on one wake-up (each wake-up costs the caller's thread more than
the sending). The names a group is told to fetch again (send_refresh) are gathered
until that loop takes them, so several commits' refreshes for one player leave in
one message.

The loop: the one this process's sockets are served on, if any (the in-memory
layer's queues belong to it), else one kept running in a thread of its own, made
again after a fork (a worker's pool). async_to_sync would start a loop, and the
Redis layer a connection, for every message.
"""

import asyncio
import collections
import json
import logging
import os
import threading
from collections.abc import Iterable

from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


class _SendingLoop:
    """The event loop that group_send runs on for synchronous callers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.served: asyncio.AbstractEventLoop | None = None
        self._own: asyncio.AbstractEventLoop | None = None
        self._own_pid = 0

    def get(self) -> asyncio.AbstractEventLoop:
        if self.served is not None and self.served.is_running():
            return self.served
        with self._lock:
            if self._own is None or self._own_pid != os.getpid():
                self._own, self._own_pid = asyncio.new_event_loop(), os.getpid()
                threading.Thread(target=self._own.run_forever, name="live-send", daemon=True).start()
            return self._own


_loop = _SendingLoop()
_texts: collections.deque[tuple[str, str]] = collections.deque()
# By group: the names of what to fetch again, gathered until the sending loop takes them.
_refreshes: dict[str, dict[str, None]] = {}
_refreshes_lock = threading.Lock()
_flushing = threading.Lock()  # held from the moment a flush is asked for until it has begun
_draining = False  # only touched on the sending loop


def serve_on_running_loop() -> None:
    """Send on the loop that serves this process's sockets (a consumer's connect)."""
    _loop.served = asyncio.get_running_loop()


def send(group: str, text: str) -> None:
    """Send `text` to every socket of `group`, without waiting; messages leave in the
    order given."""
    _texts.append((group, text))
    _wake()


def send_refresh(group: str, names: Iterable[str]) -> None:
    """Tell the sockets of `group` to fetch the parts `names` again, without waiting:
    `{"refresh": [names]}`, with any other names asked for the group before the
    sending loop wakes up."""
    with _refreshes_lock:
        _refreshes.setdefault(group, {}).update(dict.fromkeys(names))
    _wake()


def _wake() -> None:
    if _flushing.acquire(blocking=False):
        asyncio.run_coroutine_threadsafe(_flush(), _loop.get())


async def _flush() -> None:
    global _draining  # noqa: PLW0603  (the loop's own state; one loop a process)
    _flushing.release()  # from here on, a message added asks for another flush
    if _draining:
        return  # the drain under way sends it, in order
    _draining = True
    try:
        layer = get_channel_layer()
        while _texts or _refreshes:
            if _texts:
                group, text = _texts.popleft()
                await _group_send(layer, group, text)
                continue
            with _refreshes_lock:
                asked = list(_refreshes.items())
                _refreshes.clear()
            for group, names in asked:
                await _group_send(layer, group, json.dumps({"refresh": list(names)}))
    finally:
        _draining = False


async def _group_send(layer, group: str, text: str) -> None:
    try:
        await layer.group_send(group, {"type": "live.message", "text": text})
    except Exception:
        logger.exception("A live message to %s was not sent", group)
