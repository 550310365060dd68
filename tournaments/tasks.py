from celery import shared_task
from django.db.models import Q
from django.utils import timezone

from tournaments.models import Status, Tournament
from tournaments.services import tournament_advance

LIVE = [Status.ANNOUNCED, Status.REGISTERING, Status.LATE_REGISTRATION, Status.RUNNING, Status.ON_BREAK]


@shared_task
def tournaments_sweep() -> int:
    """Bring every live tournament's status up to the clock; returns how many changed."""
    now = timezone.now()
    changed = 0
    due = Tournament.objects.filter(
        Q(status=Status.ANNOUNCED, registration_opens_at=None)
        | Q(status=Status.ANNOUNCED, registration_opens_at__lte=now)
        | Q(status__in=LIVE, scheduled_start__lte=now)
    )
    for tournament_id, status in due.values_list("id", "status"):
        if tournament_advance(tournament_id=tournament_id, now=now) != status:
            changed += 1
    return changed
