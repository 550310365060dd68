"""The transaction's outbox: services record what changed as they go, and once the
transaction commits, one delivery (live.delivery) turns everything it recorded into
messages for the pages. A rolled-back change sends nothing. Zulip's
send_event_on_commit, batched per transaction.

The outbox of the transaction under way is found through a weak reference: only
the transaction's on-commit callbacks hold it, so when Django discards them (a
rollback) the outbox goes with them, and the next transaction starts a new one.
"""

import threading
import weakref

from django.db import transaction

from live.delivery import deliver

_local = threading.local()


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
