"""When to call the clock (tournaments.services.clock): a tick at each tournament's next
transition, and a sweep that catches up what a stopped worker missed."""

import logging
from datetime import datetime, timedelta
from functools import partial

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from tournaments.demo import sit_and_go_bots_join
from tournaments.models import Tournament
from tournaments.nodes import node_queue
from tournaments.services import tables
from tournaments.services.clock import (
    FINAL,
    structure_levels,
    tournament_advance,
    tournaments_advance,
)
from tournaments.services.integrity import integrity_scan as integrity_scan_hands
from tournaments.services.ticks import TICK_HORIZON, TICK_STEP, clock_tick_queue

logger = logging.getLogger(__name__)

# A queued task this late is taken for lost with its worker: the sweep applies its
# transition. Sooner, the sweep would race tasks merely waiting for a busy worker.
LOST_AFTER = timedelta(seconds=5)


# A tick's tournaments are advanced this many to a transaction: fewer round trips,
# while a registration waits on a tournament's row for no more than a few of them.
TICK_BATCH = 8


@shared_task
def clock_tick(tick: str) -> int:
    """Apply the transitions due in the step ending at `tick` (queued for that
    instant by clock_tick_queue), a few tournaments to a transaction; returns how many
    were advanced."""
    tick_at = datetime.fromisoformat(tick)
    if timezone.now() < tick_at:
        # A worker whose clock runs ahead of the one that queued this: wait for it.
        clock_tick.apply_async((tick,), eta=tick_at)
        return 0
    due = list(
        Tournament.objects.exclude(status__in=FINAL)
        .filter(next_transition_at__gt=tick_at - TICK_STEP, next_transition_at__lte=tick_at)
        .order_by("next_transition_at")
        .values_list("id", flat=True)
    )
    advanced = 0
    for start in range(0, len(due), TICK_BATCH):
        batch = due[start : start + TICK_BATCH]
        try:
            alone = tournaments_advance(tournament_ids=batch, now=timezone.now())
        except Exception:
            # One tournament's failure must not hold up the others' clocks: each on its own.
            logger.exception("The clock of tournaments %s failed at %s; each is advanced alone", batch, tick)
            alone = batch
        advanced += len(batch) - len(alone)
        for tournament_id in alone:
            try:
                tournament_advance(tournament_id=tournament_id, now=timezone.now())
            except Exception:
                # The sweep retries it.
                logger.exception("The clock of tournament %s failed at %s", tournament_id, tick)
            else:
                advanced += 1
    return advanced


@shared_task
def tournaments_sweep(*, starting: bool = False) -> int:
    """Advance every live tournament whose transition is well overdue (its task was
    lost with a worker), or due with no task queued for it; queue the task of every
    one whose transition is near with none queued (nothing is due yet, so nothing is
    locked or read: the task applies it). Returns how many it advanced. `starting`:
    a worker has just started, after a crash perhaps, holding none of the tasks
    queued before it: everything overdue is advanced at once."""
    now = timezone.now()
    lost = now if starting else now - LOST_AFTER
    live = Tournament.objects.exclude(status__in=FINAL)
    unqueued = Q(tick_at=None) | ~Q(tick_at=F("next_transition_at"))
    due = dict(
        live.filter(Q(next_transition_at__lte=lost) | Q(next_transition_at__lte=now) & unqueued).values_list(
            "id", "blind_structure_id"
        )
    )
    levels = structure_levels(set(due.values()))
    for tournament_id in due:
        tournament_advance(tournament_id=tournament_id, now=timezone.now(), levels=levels)
    near = live.filter(unqueued, next_transition_at__gt=now, next_transition_at__lte=now + TICK_HORIZON)
    _ticks_queue(set(near.values_list("next_transition_at", flat=True)))  # type: ignore[arg-type]  # filtered: not None
    return len(due)


def _ticks_queue(instants: set[datetime]) -> None:
    """Queue the ticks of these transitions, marking every tournament whose next
    transition is one of them as queued (one that has moved on since is left to
    the advance that moved it)."""
    if not instants:
        return
    with transaction.atomic():
        live = Tournament.objects.exclude(status__in=FINAL)
        live.filter(next_transition_at__in=instants).update(tick_at=F("next_transition_at"))
        for instant in instants:
            # robust: a broker that is down must not undo the marks; the sweep applies them once overdue.
            transaction.on_commit(partial(clock_tick_queue, instant), robust=True)


@worker_ready.connect
def _catch_up_on_start(**_):
    # Not at beat's next sweep: the clocks a dead worker left behind are seconds late already.
    tournaments_sweep.delay(starting=True)


@shared_task
def tables_tick(node: int | None, tick: str) -> int:
    """Every turn due in the step ending at `tick` at the tables `node` plays
    (tournaments.services.hands.hand_queue queues it on the node's queue); returns how
    many were played."""
    tick_at = datetime.fromisoformat(tick)
    if timezone.now() < tick_at:
        # A node whose clock runs behind the one that queued this: wait for it.
        if node is None:
            tables_tick.apply_async((node, tick), eta=tick_at)
        else:
            tables_tick.apply_async((node, tick), eta=tick_at, queue=node_queue(node))
        return 0
    return tables.hands_tick(tick=tick_at, node=node, now=timezone.now())


@shared_task
def tables_take_over(node: int) -> int:
    """The nodes alive changed: node `node` takes over the tables now its own
    (tournaments.nodes.Heartbeat queues this on its queue); returns the turns it played."""
    return tables.hands_take_over(node=node, now=timezone.now())


@shared_task
def hand_report(hand_id: int) -> bool:
    """A finished hand to the floor."""
    return tables.hand_report(hand_id=hand_id, now=timezone.now())


@shared_task
def hands_sweep() -> int:
    """The turns and reports whose task was lost with its worker: a turn well past its
    deadline, a hand finished a while ago and not yet given to the floor."""
    now = timezone.now()
    stalled = now - timedelta(seconds=settings.TABLE_STALLED_SECONDS)
    return tables.hands_catch_up(now=now, before=now - LOST_AFTER, stalled_before=stalled)


@shared_task
def integrity_scan(tournament_id: int) -> int:
    """Rule 20's scan of a tournament's reported hands (services.integrity); returns
    how many flags it created or grew."""
    return len(integrity_scan_hands(tournament_id=tournament_id, now=timezone.now()))


@shared_task
def sit_and_go_bots() -> int:
    """The demo's bots taking seats in the open Sit & Gos (beat, on the embedded default)."""
    return sit_and_go_bots_join(now=timezone.now())
