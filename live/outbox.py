"""The transaction's outbox: services record what changed as they go, and once the
transaction commits, one delivery hands everything it recorded to the publishers
(lobby.live, deals.live), which turn it into messages for the pages. A rolled-back
change sends nothing. Zulip's send_event_on_commit, batched per transaction.

The outbox of the transaction under way is found through a weak reference: only
the transaction's on-commit callbacks hold it, so when Django discards them (a
rollback) the outbox goes with them, and the next transaction starts a new one.
"""

import logging
import threading
import weakref
from collections.abc import Callable, Sequence

from django.db import transaction

logger = logging.getLogger(__name__)

Publisher = Callable[[Sequence[object]], None]
_publishers: list[Publisher] = []
_local = threading.local()


def publisher(function: Publisher) -> Publisher:
    """Register `function` to receive every committed transaction's events, in the
    order they were recorded (an app's ready())."""
    if function not in _publishers:
        _publishers.append(function)
    return function


class Outbox:
    def __init__(self) -> None:
        self.events: list[object] = []

    def send(self) -> None:
        # Every record() of the transaction registered this; the first call sends all.
        events, self.events = self.events, []
        if events:
            deliver(events)


def record(event: object) -> None:
    """Deliver `event` once the current transaction commits, with every other event
    it records; never if it rolls back. Outside a transaction, at once."""
    if not transaction.get_connection().in_atomic_block:
        deliver([event])
        return
    outbox = _local.outbox() if getattr(_local, "outbox", None) else None
    if outbox is None:
        outbox = Outbox()
        _local.outbox = weakref.ref(outbox)
    outbox.events.append(event)
    # One callback per event keeps the outbox alive exactly as long as any of the
    # transaction's (or its savepoints') callbacks is; the first to run sends them all.
    transaction.on_commit(outbox.send, robust=True)


def deliver(events: Sequence[object]) -> None:
    """Hand committed `events` to every publisher. A live update that fails (Redis
    down) must not turn a committed change into an error: pages are right on their
    next load regardless."""
    for function in _publishers:
        try:
            function(events)
        except Exception:
            logger.exception("Live updates for %d events were not published", len(events))
