"""The reality check: a reminder the player chooses, every N minutes of a session,
of how long he has been logged in and his net result since (what play moved in and
out of his wallet: buy-ins, fees, rebuys and add-ons out; prizes, bounties and
refunds in; deposits and withdrawals are not play). Each page of his schedules the
next reminder (the `reality_check` template tag); dismissing one schedules the one
after."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from math import ceil

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import caches
from django.db import transaction
from django.utils import timezone

from audit.services import audit_log
from responsible.models import RealityCheck
from responsible.rules import reminder_due
from responsible.signals import SHOWN, SIGNED_IN_AT
from wallet.models import TransferReason
from wallet.selectors import wallet_net

EVERY_CHOICES = (15, 30, 45, 60, 90, 120)
PLAY_REASONS = (
    TransferReason.BUY_IN,
    TransferReason.FEE,
    TransferReason.REBUY,
    TransferReason.ADDON,
    TransferReason.REFUND,
    TransferReason.PRIZE,
    TransferReason.BOUNTY,
    TransferReason.CONFISCATION,
)
# Read on every page a signed-in player opens: kept in each process for a minute, so
# that a page costs no round trip; a change shows in the other processes within it.
_CACHE_SECONDS = 60


def _cache_key(player_id: int) -> str:
    return f"responsible:reality-check:{player_id}"


def reality_check_minutes(player_id: int) -> int | None:
    """Every how many minutes the player is reminded, or None: no reminder."""
    cache = caches["local"]
    minutes = cache.get(_cache_key(player_id))
    if minutes is None:
        found = RealityCheck.objects.filter(player_id=player_id).values_list("minutes", flat=True).first()
        minutes = found or 0
        cache.set(_cache_key(player_id), minutes, _CACHE_SECONDS)
    return minutes or None


def reality_check_set(*, player: AbstractBaseUser, minutes: int | None) -> None:
    """The player's choice (None: no reminder), audited."""
    if minutes is not None and minutes not in EVERY_CHOICES:
        raise ValueError(f"Not an offered interval: {minutes!r}.")
    with transaction.atomic():
        if minutes is None:
            RealityCheck.objects.filter(player_id=player.pk).delete()
        else:
            RealityCheck.objects.update_or_create(player_id=player.pk, defaults={"minutes": minutes})
        audit_log(action="responsible.reality_check.changed", subject=player, actor=player, data={"every": minutes})
    caches["local"].delete(_cache_key(player.pk))


@dataclass(frozen=True)
class Reminder:
    played: timedelta
    net: dict[str, int]  # per currency, + won, - lost


def reminder(player: AbstractBaseUser, signed_in_at: datetime, now: datetime) -> Reminder:
    return Reminder(now - signed_in_at, wallet_net(player, since=signed_in_at, reasons=PLAY_REASONS))


def reminder_delay(request) -> int | None:
    """Seconds until the player's next reality check, or None: he asked for none."""
    user = request.user
    signed_in_at = request.session.get(SIGNED_IN_AT)
    if not user.is_authenticated or signed_in_at is None:
        return None
    minutes = reality_check_minutes(user.pk)
    if minutes is None:
        return None
    _number, seconds = reminder_due(
        datetime.fromisoformat(signed_in_at), minutes, request.session.get(SHOWN, 0), timezone.now()
    )
    return max(0, ceil(seconds))
