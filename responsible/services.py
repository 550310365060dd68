"""Deposit limits at the moment money moves: set and cancelled by the player (each
change audited), and checked by every deposit (wallet.services.deposit_create) under
the lock of the player's limits, so that two deposits at once cannot both slip under
a limit."""

from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Sum
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.services import audit_log
from responsible.models import DepositLimit, Exclusion, ExclusionKind, LimitPeriod
from responsible.register import Answer, exclusion_register
from responsible.rules import NEW_ACCOUNT_AFTER, Limit, Period, limit_changed, limit_now, period_bounds
from wallet.models import Transfer, TransferReason
from wallet.money import format_money


class ResponsibleRefusal(Exception):
    """What the player asked is not allowed him (a deposit over a limit, in a money
    the limits are not kept in, while excluded; a break's length the room does not
    offer): `message` tells him why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _limit(row: DepositLimit) -> Limit:
    return Limit(row.amount, row.pending_amount, row.pending_from)


def _store(row: DepositLimit, limit: Limit, now: datetime) -> None:
    row.amount, row.pending_amount, row.pending_from = limit.amount, limit.pending_amount, limit.pending_from
    row.changed_at = now
    row.save()


def deposit_limit_set(*, player: AbstractBaseUser, period: str, amount: int | None, now: datetime) -> DepositLimit:
    """The player's limit for `period` as he asks (None: no limit): lower at once,
    higher or removed after the cooling-off (responsible.rules)."""
    if period not in LimitPeriod.values:
        raise ValueError(f"Unknown period {period!r}.")
    if amount is not None and amount <= 0:
        raise ResponsibleRefusal(_("A limit is an amount above 0; to have none, remove it."))
    currency = getattr(player, "preferred_currency", "EUR")
    with transaction.atomic():
        row, _created = DepositLimit.objects.select_for_update().get_or_create(
            player_id=player.pk, period=period, defaults={"currency": currency, "changed_at": now}
        )
        before = limit_now(_limit(row), now)
        after = limit_changed(before, amount, now)
        _store(row, after, now)
        audit_log(
            action="responsible.deposit_limit.changed",
            subject=player,
            actor=player,
            data={
                "period": period,
                "currency": row.currency,
                "from": before.amount,
                "asked": amount,
                "now": after.amount,
                "pending": after.pending_amount,
                "pending_from": after.pending_from.isoformat() if after.pending_from else None,
            },
        )
    return row


def deposit_limit_cancel(*, player: AbstractBaseUser, period: str, now: datetime) -> DepositLimit | None:
    """The pending raise or removal of the player's limit for `period` dropped."""
    with transaction.atomic():
        row = DepositLimit.objects.select_for_update().filter(player_id=player.pk, period=period).first()
        if row is None:
            return None
        current = limit_now(_limit(row), now)
        if current.pending_from is None:
            return row
        _store(row, Limit(current.amount), now)
        audit_log(
            action="responsible.deposit_limit.pending_cancelled",
            subject=player,
            actor=player,
            data={"period": period, "kept": current.amount, "dropped": current.pending_amount},
        )
    return row


def player_lock(player_id: int) -> None:
    """The player's row, locked for the rest of the caller's transaction (no key update:
    rows that refer to him are still written). A deposit and the start of a break or
    exclusion each take it first, so of two at once the second waits for the first and
    sees it."""
    list(get_user_model().objects.select_for_update(no_key=True).filter(pk=player_id).values_list("pk", flat=True))


def deposit_allowed(*, player_id: int, currency: str, amount: int, now: datetime) -> None:
    """In the deposit's transaction, after player_lock: ResponsibleRefusal while a break
    or exclusion of his runs, or unless every limit of his in force leaves room for
    `amount` in this period. Locks his limits."""
    if (exclusion := exclusion_running(player_id, now)) is not None:
        raise ResponsibleRefusal(exclusion_message(exclusion))
    rows = list(DepositLimit.objects.select_for_update().filter(player_id=player_id).order_by("period"))
    zone = ZoneInfo(settings.ROOM_TIME_ZONE)
    for row in rows:
        limit = limit_now(_limit(row), now)
        if limit != _limit(row):
            _store(row, limit, now)  # a pending change whose time has come
        if limit.amount is None:
            continue
        if currency != row.currency:
            raise ResponsibleRefusal(
                _("Your deposit limits are kept in %(currency)s: deposit in %(currency)s.") % {"currency": row.currency}
            )
        start, resets = period_bounds(Period(row.period), now, zone)
        deposited = (
            Transfer.objects.filter(
                reason=TransferReason.DEPOSIT,
                destination__owner_id=player_id,
                destination__currency=currency,
                created_at__gte=start,
            ).aggregate(total=Sum("amount"))["total"]
            or 0
        )
        if deposited + amount > limit.amount:
            raise ResponsibleRefusal(
                _(
                    "This deposit is over your %(period)s deposit limit of %(limit)s (%(deposited)s deposited so far); "
                    "the limit resets %(resets)s."
                )
                % {
                    "period": LimitPeriod(row.period).label.lower(),
                    "limit": format_money(limit.amount, currency),
                    "deposited": format_money(deposited, currency),
                    "resets": formats.date_format(resets.astimezone(zone), "DATETIME_FORMAT"),
                }
            )


def exclusion_running(player_id: int, now: datetime) -> Exclusion | None:
    """The player's break or self-exclusion in force at `now`, the longest first."""
    running = Exclusion.objects.filter(player_id=player_id, starts_at__lte=now, lifted_at__isnull=True).exclude(
        ends_at__lte=now
    )
    return running.order_by(F("ends_at").desc(nulls_first=True)).first()


def exclusion_message(exclusion: Exclusion) -> str:
    """What the player is told when play is refused him."""
    if exclusion.ends_at is None:
        return _("You have excluded yourself from the room for good: this account is closed.")
    zone = ZoneInfo(settings.ROOM_TIME_ZONE)
    return _("You have chosen a break from play until %(until)s.") % {
        "until": formats.date_format(exclusion.ends_at.astimezone(zone), "DATETIME_FORMAT")
    }


def login_refusal(user: AbstractBaseUser, now: datetime) -> str | None:
    """Why `user` may not log in to play now, or None: his own break or exclusion,
    then the national register (responsible.register), asked at every log-in of an
    account with a national identity number; its answer is audited. A register that
    does not answer refuses too."""
    if (exclusion := exclusion_running(user.pk, now)) is not None:
        return exclusion_message(exclusion)
    national_id = getattr(user, "national_id", "")
    if not national_id:
        return None
    answer = exclusion_register().check(national_id)
    audit_log(action=f"responsible.register.{answer}", subject=user, data={"at": now.isoformat()})
    return _register_refusal(answer)


def sign_up_refusal(national_id: str, now: datetime) -> str | None:
    """Why a new account for the person with `national_id` may not be opened now, or
    None: he closed one by a permanent exclusion less than a year ago, or the national
    register excludes him or does not answer. Whoever signs up has not proved who he
    is: the refusal names no reason that would tell him about another person."""
    closed = Exclusion.objects.filter(
        national_id=national_id,
        kind=ExclusionKind.PERMANENT,
        lifted_at__isnull=True,
        starts_at__gt=now - NEW_ACCOUNT_AFTER,
    )
    if closed.exists():
        return str(NO_NEW_ACCOUNT)
    answer = exclusion_register().check(national_id)
    if answer == Answer.EXCLUDED:
        return str(NO_NEW_ACCOUNT)
    return _register_refusal(answer)


NO_NEW_ACCOUNT = gettext_lazy(
    "We cannot open an account for this national identity number. If you closed an account here less than a "
    "year ago, or are registered in ROFUS, the Danish register of excluded players, that is why; otherwise "
    "please write to support."
)


def _register_refusal(answer: Answer) -> str | None:
    if answer == Answer.EXCLUDED:
        return _("You are registered in ROFUS, the Danish register of excluded players: you cannot play here.")
    if answer == Answer.UNAVAILABLE:
        return _(
            "We cannot reach ROFUS, the Danish register of excluded players, right now, and may not let anyone "
            "play without its answer. Please try again in a few minutes."
        )
    return None
