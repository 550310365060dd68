"""When to call the clock (tournaments.clock): a task at each tournament's next
transition, and a sweep that catches up what a stopped worker missed."""

from datetime import datetime, timedelta

from celery import shared_task
from celery.signals import worker_ready
from django.db.models import F, Q
from django.utils import timezone

from tournaments.clock import FINAL, TICK_HORIZON, tournament_advance
from tournaments.models import Tournament
from tournaments.simulator import simulate_round

# A queued task this late is taken for lost with its worker: the sweep applies its
# transition. Sooner, the sweep would race tasks merely waiting for a busy worker.
LOST_AFTER = timedelta(seconds=5)


@shared_task
def tournament_tick(tournament_id: int, due: str) -> None:
    """Apply the transition due at `due` (queued by the clock for that instant)."""
    due_at = datetime.fromisoformat(due)
    now = timezone.now()
    if now < due_at:
        # A worker whose clock runs ahead of the one that queued this: wait for it.
        tournament_tick.apply_async((tournament_id, due), eta=due_at)
        return
    if not Tournament.objects.filter(pk=tournament_id, next_transition_at__lte=now).exists():
        return  # applied already, by the sweep: one read instead of the clock's lock
    tournament_advance(tournament_id=tournament_id, now=now)


@shared_task
def tournaments_sweep(*, starting: bool = False) -> int:
    """Advance every live tournament whose transition is well overdue (its task was
    lost with a worker), or that is due soon with no task queued for it (advancing
    queues one); returns how many it advanced. `starting`: a worker has just started,
    after a crash perhaps, holding none of the tasks queued before it: everything
    overdue is advanced at once."""
    now = timezone.now()
    lost = now if starting else now - LOST_AFTER
    looked_at = Tournament.objects.exclude(status__in=FINAL).filter(
        Q(next_transition_at__lte=lost)
        | Q(next_transition_at__lte=now + TICK_HORIZON) & (Q(tick_at=None) | ~Q(tick_at=F("next_transition_at")))
    )
    advanced = 0
    for tournament_id in looked_at.values_list("id", flat=True):
        tournament_advance(tournament_id=tournament_id, now=timezone.now())
        advanced += 1
    return advanced


@worker_ready.connect
def _catch_up_on_start(**_):
    # Not at beat's next sweep: the clocks a dead worker left behind are seconds late already.
    tournaments_sweep.delay(starting=True)


@shared_task
def floor_simulate() -> int:
    """A hand at every table of the simulated tournaments (the demo's)."""
    return simulate_round(now=timezone.now())
