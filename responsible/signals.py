"""Each browser session a player logs in is kept (PlayerSession), so that a break or
an exclusion ends all of them at once; its start is what the reality check counts
from (responsible.reality)."""

from importlib import import_module

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.dispatch import receiver
from django.utils import timezone

from responsible.models import PlayerSession

SIGNED_IN_AT = "responsible.signed_in_at"
# The session's count of the reality checks shown so far (responsible.reality).
SHOWN = "responsible.reality_shown"


@receiver(user_logged_in, dispatch_uid="responsible.session_started")
def session_started(sender, request, user, **kwargs) -> None:
    session = getattr(request, "session", None)
    if session is None:
        return
    now = timezone.now()
    session[SIGNED_IN_AT] = now.isoformat()
    session.pop(SHOWN, None)  # a new session's reminders count from its log-in
    if session.session_key is None:
        session.save()
    # His sessions that ended without a log-out (expired, flushed) are forgotten here.
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    kept = PlayerSession.objects.filter(player_id=user.pk).values_list("session_key", flat=True)
    PlayerSession.objects.filter(session_key__in=[key for key in kept if not store.exists(key)]).delete()
    PlayerSession.objects.update_or_create(
        session_key=session.session_key, defaults={"player_id": user.pk, "started_at": now}
    )


@receiver(user_logged_out, dispatch_uid="responsible.session_ended")
def session_ended(sender, request, user, **kwargs) -> None:
    session = getattr(request, "session", None)
    if session is not None and session.session_key is not None:
        PlayerSession.objects.filter(session_key=session.session_key).delete()


def session_key_changed(old_key: str | None, new_key: str | None) -> None:
    """A signed-in session given a new key (a password change): its record follows."""
    if old_key and new_key and old_key != new_key:
        PlayerSession.objects.filter(session_key=old_key).update(session_key=new_key)
