"""Use cases that move value. Every one runs in one transaction."""

from django.db import IntegrityError, transaction
from django.db.models import F

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
    key returns the first transfer and moves nothing.
    """
    if amount <= 0:
        raise WalletError("An amount to move must be positive.")
    if source.currency != destination.currency:
        raise WalletError("Money moves only between accounts of the same currency.")
    if source.pk == destination.pk:
        raise WalletError("A transfer needs two different accounts.")
    with transaction.atomic():
        existing = Transfer.objects.filter(idempotency_key=idempotency_key).first()
        if existing is not None:
            return existing
        locked = {
            a.pk: a
            for a in Account.objects.select_for_update().filter(pk__in=[source.pk, destination.pk]).order_by("pk")
        }
        if locked[source.pk].kind != AccountKind.EXTERNAL and locked[source.pk].balance < amount:
            raise InsufficientFunds("Not enough money in the account for this.")
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
        return transfer


def deposit_create(*, user, currency: str, amount: int, idempotency_key: str, actor=None) -> Transfer:
    """Credit money that arrived from outside the room to a player's account."""
    outside = account_get(kind=AccountKind.EXTERNAL, currency=currency)
    destination = player_tmoney_account(user) if currency == Currency.TMONEY else player_cash_account(user, currency)
    return transfer_create(
        source=outside,
        destination=destination,
        amount=amount,
        reason=TransferReason.DEPOSIT,
        idempotency_key=idempotency_key,
        actor=actor,
    )
