"""The reality check: a reminder the player chooses, every N minutes of a session,
of how long he has been logged in and his net result since (what play moved in and
out of his wallet: buy-ins, fees, rebuys and add-ons out; prizes, bounties and
refunds in; deposits and withdrawals are not play). Each page of his shows the reminder
when it is due, open without JavaScript, or schedules it (the `reality_check`
template tag); dismissing one schedules the one after."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from math import ceil

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from audit.services import audit_log
from responsible.rules import reminder_due
from responsible.signals import SHOWN, SIGNED_IN_AT
from wallet.models import TransferReason
from wallet.money import format_money, format_money_change
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


def reality_check_set(*, player: User, minutes: int | None) -> None:
    """The player's choice (None: no reminder), audited."""
    if minutes is not None and minutes not in EVERY_CHOICES:
        raise ValueError(f"Not an offered interval: {minutes!r}.")
    with transaction.atomic():
        User.objects.filter(pk=player.pk).update(reality_check_minutes=minutes)
        audit_log(action="responsible.reality_check.changed", subject=player, actor=player, data={"every": minutes})
    player.reality_check_minutes = minutes


@dataclass(frozen=True)
class Reminder:
    played: timedelta
    net: dict[str, int]  # per currency, + won, - lost


def reminder(player: AbstractBaseUser, signed_in_at: datetime, now: datetime) -> Reminder:
    return Reminder(now - signed_in_at, wallet_net(player, since=signed_in_at, reasons=PLAY_REASONS))


@dataclass(frozen=True)
class Next:
    number: int  # the session's how-many-th reminder
    delay: int  # seconds until it, 0 when due
    signed_in_at: datetime


def next_reminder(request) -> Next | None:
    """The player's next reality check in this session, or None: he asked for none."""
    user = request.user
    signed_in_at = request.session.get(SIGNED_IN_AT)
    if not user.is_authenticated or signed_in_at is None or user.reality_check_minutes is None:
        return None
    since = datetime.fromisoformat(signed_in_at)
    number, seconds = reminder_due(since, user.reality_check_minutes, request.session.get(SHOWN, 0), timezone.now())
    return Next(number, max(0, ceil(seconds)), since)


def reminder_shown(request, upcoming: Next) -> dict[str, str]:
    """The due reminder, counted as shown in this session (it is shown once, however
    it is dismissed): what the dialog says."""
    request.session[SHOWN] = upcoming.number
    shown = reminder(request.user, upcoming.signed_in_at, timezone.now())
    return {"played": played_text(shown.played), "net": net_text(shown.net, request.user.preferred_currency)}


def played_text(played: timedelta) -> str:
    hours, minutes = divmod(int(played.total_seconds()) // 60, 60)
    if hours:
        return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": minutes}
    return _("%(minutes)d min") % {"minutes": minutes}


def net_text(net: dict[str, int], currency: str) -> str:
    if not net:
        return format_money(0, currency)
    return ", ".join(
        format_money_change(amount, code) if amount else format_money(0, code) for code, amount in sorted(net.items())
    )
