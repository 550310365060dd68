"""Each browser session a player logs in is kept (PlayerSession), so that a break or
an exclusion ends all of them at once; its start is what the reality check counts
from (responsible.reality)."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.dispatch import receiver
from django.utils import timezone

from responsible.models import PlayerSession

SIGNED_IN_AT = "responsible.signed_in_at"


@receiver(user_logged_in, dispatch_uid="responsible.session_started")
def session_started(sender, request, user, **kwargs) -> None:
    session = getattr(request, "session", None)
    if session is None:
        return
    now = timezone.now()
    session[SIGNED_IN_AT] = now.isoformat()
    if session.session_key is None:
        session.save()
    # Sessions that expired on their own are forgotten here, one player's at a time.
    old = now - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    PlayerSession.objects.filter(player_id=user.pk, started_at__lt=old).delete()
    PlayerSession.objects.update_or_create(
        session_key=session.session_key, defaults={"player_id": user.pk, "started_at": now}
    )


@receiver(user_logged_out, dispatch_uid="responsible.session_ended")
def session_ended(sender, request, user, **kwargs) -> None:
    session = getattr(request, "session", None)
    if session is not None and session.session_key is not None:
        PlayerSession.objects.filter(session_key=session.session_key).delete()
