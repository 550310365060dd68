from celery import shared_task
from django.utils import timezone

from wallet.tickets import tickets_expire


@shared_task
def tickets_expire_task() -> int:
    """Expire every available ticket past its date; returns how many. Repeating it
    changes nothing, and a missed run is caught up by the next."""
    return tickets_expire(now=timezone.now())
