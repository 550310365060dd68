"""Use cases that move value. Every one runs in one transaction."""

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext as _

from audit.services import audit_log
from wallet.models import Account, AccountKind, Currency, Transfer, TransferReason


class WalletError(Exception):
    """A money movement that cannot happen; the message is for a person."""

    code = "wallet_error"


class InsufficientFunds(WalletError):
    code = "insufficient_funds"


def account_get(*, kind: str, currency: str, owner=None, ref: str = "") -> Account:
    """The account of that kind, currency and owner, created empty on first use."""
    try:
        account, _ = Account.objects.get_or_create(kind=kind, currency=currency, owner=owner, ref=ref)
    except IntegrityError:  # created concurrently
        account = Account.objects.get(kind=kind, currency=currency, owner=owner, ref=ref)
    return account


def player_cash_account(user, currency: str) -> Account:
    return account_get(kind=AccountKind.PLAYER_CASH, currency=currency, owner=user)


def player_tmoney_account(user) -> Account:
    return account_get(kind=AccountKind.PLAYER_TMONEY, currency=Currency.TMONEY, owner=user)


def transfer_create(
    *,
    source: Account,
    destination: Account,
    amount: int,
    reason: TransferReason,
    idempotency_key: str,
    actor=None,
    memo: str = "",
) -> Transfer:
    """Move `amount` minor units from `source` to `destination`.

    Locks both accounts (in id order) for the rest of the caller's transaction and
    re-checks the source balance under the lock. A retry with the same idempotency
    key returns the first transfer and moves nothing, even when the two race.
    """
    if amount <= 0:
        raise WalletError(_("An amount to move must be positive."))
    if source.currency != destination.currency:
        raise WalletError(_("Money moves only between accounts of the same currency."))
    if source.pk == destination.pk:
        raise WalletError(_("A transfer needs two different accounts."))
    existing = Transfer.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return _same_transfer(existing, source=source, destination=destination, amount=amount)
    try:
        with transaction.atomic():
            locked = {
                a.pk: a
                for a in Account.objects.select_for_update().filter(pk__in=[source.pk, destination.pk]).order_by("pk")
            }
            if locked[source.pk].kind not in MAY_GO_NEGATIVE and locked[source.pk].balance < amount:
                raise InsufficientFunds(_("Not enough money in the account for this."))
            Account.objects.filter(pk=source.pk).update(balance=F("balance") - amount)
            Account.objects.filter(pk=destination.pk).update(balance=F("balance") + amount)
            transfer = Transfer.objects.create(
                source=source,
                destination=destination,
                amount=amount,
                reason=reason,
                idempotency_key=idempotency_key,
                actor=actor,
                memo=memo,
            )
            audit_log(
                action=f"wallet.transfer.{reason}",
                subject=transfer,
                actor=actor,
                reason=memo,
                data={"amount": amount, "currency": source.currency, "from": source.pk, "to": destination.pk},
            )
    except IntegrityError:
        # The same request won a race for the key: its transfer is the answer.
        existing = Transfer.objects.filter(idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return _same_transfer(existing, source=source, destination=destination, amount=amount)
    return transfer


MAY_GO_NEGATIVE = frozenset({AccountKind.EXTERNAL, AccountKind.HOUSE})


def _same_transfer(existing: Transfer, *, source: Account, destination: Account, amount: int) -> Transfer:
    if (existing.source_id, existing.destination_id, existing.amount) != (source.pk, destination.pk, amount):
        raise WalletError(_("This request key was already used for a different payment."))
    return existing


def house_account(currency: str) -> Account:
    return account_get(kind=AccountKind.HOUSE, currency=currency)


def wallet_account(user, currency: str) -> Account:
    """A player's own money in `currency`: cash, or T-Money for TMY."""
    if currency == Currency.TMONEY:
        return player_tmoney_account(user)
    return player_cash_account(user, currency)


def deposit_create(*, user, currency: str, amount: int, idempotency_key: str, actor=None) -> Transfer:
    """Credit money that arrived from outside the room to a player's account."""
    outside = account_get(kind=AccountKind.EXTERNAL, currency=currency)
    return transfer_create(
        source=outside,
        destination=wallet_account(user, currency),
        amount=amount,
        reason=TransferReason.DEPOSIT,
        idempotency_key=idempotency_key,
        actor=actor,
    )


def staff_adjust(*, user, currency: str, amount: int, reason: str, actor, idempotency_key: str) -> Transfer:
    """Credit (amount > 0) or debit (amount < 0) a player's cash or T-Money against
    the house, with the staff member's reason (rule 1)."""
    if not reason.strip():
        raise WalletError(_("A staff adjustment needs a reason."))
    if amount == 0:
        raise WalletError(_("An adjustment of zero changes nothing."))
    player, house = wallet_account(user, currency), house_account(currency)
    source, destination = (house, player) if amount > 0 else (player, house)
    return transfer_create(
        source=source,
        destination=destination,
        amount=abs(amount),
        reason=TransferReason.STAFF_ADJUSTMENT,
        idempotency_key=idempotency_key,
        actor=actor,
        memo=reason.strip()[:200],
    )


def tmoney_issue(*, user, amount: int, reason: str, actor, idempotency_key: str) -> Transfer:
    """Give a player `amount` of T-Money from the house, with the staff member's
    reason (compensation, a promotion, rule 1).

    A staff credit like any other, so it is booked as a STAFF_ADJUSTMENT: the
    player's history and the audit log show it beside the other staff
    corrections, and TMONEY_CONVERSION keeps its one meaning (T-Money changed
    into a cash event's money). The transfer and its audit row commit together.
    """
    if amount <= 0:
        raise WalletError(_("Issue a positive amount of T-Money."))
    with transaction.atomic():
        return staff_adjust(
            user=user,
            currency=Currency.TMONEY,
            amount=amount,
            reason=reason,
            actor=actor,
            idempotency_key=idempotency_key,
        )
