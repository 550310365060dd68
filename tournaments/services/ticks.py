"""The tick grid: what falls due at an instant is done by the task of the grid's next
instant, one task for everything of its kind due in the step (the clocks'
transitions: tournaments.tasks.clock_tick; a table node's turns:
tournaments.tasks.tables_tick). A thousand tournaments changing in one second cost
twenty tasks, not a thousand, and a turn queues no task of its own when the step
already has one: a task costs the worker more than most of what it does.

A tick is queued once per step (and queue), by whichever commit first brings it
something to do: the others find its mark in the shared cache. Once the tick may
have looked (its instant is near), a commit queues one of its own: a tick that finds
nothing due does nothing. A lost tick (its worker died) is caught up by the sweeps.
"""

import threading
from collections import OrderedDict
from datetime import UTC, datetime, timedelta

from celery import signature
from django.core.cache import cache
from django.utils import timezone

TICK_STEP = timedelta(milliseconds=50)
# A table node's turns fall due on a coarser grid: a bot thinks for a second or more,
# a player out of time waits a moment longer, and each tick is a task for the node.
TABLE_TICK_STEP = timedelta(milliseconds=200)
# Tasks are queued at most this far ahead: after a worker dies, a queued task can
# stay parked in the broker for an hour, so the sweep queues the rest as they near.
TICK_HORIZON = timedelta(seconds=30)
CLOCK_TICK = "tournaments.tasks.clock_tick"
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
# Clocks of the processes queuing ticks may differ by this much (NTP keeps them closer).
SKEW = timedelta(milliseconds=500)


def tick_of(due: datetime, step: timedelta = TICK_STEP) -> datetime:
    """The tick that does what is due at `due`: the next instant of the grid of `step`."""
    micros, every = (due - _EPOCH) // timedelta(microseconds=1), step // timedelta(microseconds=1)
    return _EPOCH + timedelta(microseconds=-(-micros // every) * every)


def tick_queue(
    task: str,
    due: datetime,
    *args: object,
    queue: str | None = None,
    kept: timedelta,
    step: timedelta = TICK_STEP,
) -> None:
    """Queue `task`(*args, tick) for the tick of `due` on the grid of `step` (on
    `queue`, else as Celery routes it), unless a commit queued it already; `kept`:
    longer than any tick is queued ahead. Call it once the change it is for has
    committed."""
    tick = tick_of(due, step)
    key = f"tick:{task}:{queue or ''}:{tick.isoformat()}"
    near = timezone.now() >= tick - SKEW
    if not near and _known(key):
        return  # this process saw it queued: no round trip to ask again
    if cache.add(key, True, timeout=int(kept.total_seconds())) or near:
        sent = signature(task, args=(*args, tick.isoformat()))
        try:
            if queue is None:
                sent.apply_async(eta=tick)
            else:
                sent.apply_async(eta=tick, queue=queue)
        except Exception:
            cache.delete(key)  # not queued: the step's next commit tries again
            raise
    _know(key)


def clock_tick_queue(due: datetime) -> None:
    """Once committed: the clock's tick that applies a transition due at `due`
    (tournaments.tasks.clock_tick, on the clocks' queue), unless queued already."""
    tick_queue(CLOCK_TICK, due, kept=TICK_HORIZON + timedelta(minutes=1))


# The ticks this process knows are queued: most of a table node's turns fall in steps
# it has queued itself.
_queued: OrderedDict[str, None] = OrderedDict()
_queued_lock = threading.Lock()
KNOWN = 4096


def _known(key: str) -> bool:
    with _queued_lock:
        return key in _queued


def _know(key: str) -> None:
    with _queued_lock:
        _queued[key] = None
        while len(_queued) > KNOWN:
            _queued.popitem(last=False)
