"""The ledger: the only way value moves (ARCHITECTURE.md, Money).

Every movement is a batch of legs that moves together or not at all, in the caller's
transaction or its own: the accounts are locked in id order, every source is checked
to hold what leaves it, the balances move with F() updates, and each leg leaves one
Transfer and one audit row. A batch's idempotency keys make a retry return the first
transfers and move nothing. The database's constraints are the backstop: a balance
that may not go negative cannot (wallet.models).

transfers_create does it all at once. A caller that must hold a busy lock for as
little as possible (a registration, under its event's row lock) writes the rows
first (transfers_journal) and moves the money under its lock (transfers_settle), in
one transaction; the accounts' lock is FOR NO KEY UPDATE, which the new rows'
foreign keys do not wait for.
"""

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import BigIntegerField, Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import AuditRecord, audit_log_many
from live.outbox import record
from responsible.services import ResponsibleRefusal, deposit_allowed, player_lock
from wallet.events import BalancesChanged
from wallet.models import Account, AccountKind, Currency, Transfer, TransferReason


class WalletError(Exception):
    """A money movement that cannot happen; the message is for a person."""

    code = "wallet_error"


class InsufficientFunds(WalletError):
    code = "insufficient_funds"


def _account_get_or_create(*, kind: str, currency: str, owner_id: int | None, ref: str) -> Account:
    try:
        account, _created = Account.objects.get_or_create(kind=kind, currency=currency, owner_id=owner_id, ref=ref)
    except IntegrityError:  # created concurrently
        account = Account.objects.get(kind=kind, currency=currency, owner_id=owner_id, ref=ref)
    return account


@dataclass(frozen=True)
class AccountSpec:
    """Names one account, by owner id so that no user need be loaded to find it."""

    kind: str
    currency: str
    owner_id: int | None = None
    ref: str = ""


def wallet_account_spec(owner_id: int, currency: str) -> AccountSpec:
    """A player's own money in `currency`: cash, or T-Money for TMY."""
    kind = AccountKind.PLAYER_TMONEY if currency == Currency.TMONEY else AccountKind.PLAYER_CASH
    return AccountSpec(kind, currency, owner_id=owner_id)


def house_account_spec(currency: str) -> AccountSpec:
    """The room's own money in `currency`."""
    return AccountSpec(AccountKind.HOUSE, currency)


def external_account_spec(currency: str) -> AccountSpec:
    """Money outside the room: where deposits come from and withdrawals go."""
    return AccountSpec(AccountKind.EXTERNAL, currency)


def accounts_get(
    specs: Iterable[AccountSpec], *, known: Mapping[AccountSpec, Account] | None = None
) -> dict[AccountSpec, Account]:
    """The accounts `specs` name: from `known` (see accounts_for) when there, else
    read with one query; those missing are created empty."""
    known = known or {}
    named = set(specs)
    found = {spec: known[spec] for spec in named & known.keys()}
    wanted = named - found.keys()
    if not wanted:
        return found
    match = Q()
    for spec in wanted:
        match |= Q(kind=spec.kind, currency=spec.currency, owner_id=spec.owner_id, ref=spec.ref)
    found |= {account_spec(account): account for account in Account.objects.filter(match)}
    # In one order everywhere: two first uses of the same accounts then never wait
    # for each other's new rows in a circle.
    for spec in sorted(
        wanted - found.keys(), key=lambda spec: (spec.kind, spec.currency, spec.owner_id or 0, spec.ref)
    ):
        found[spec] = _account_get_or_create(
            kind=spec.kind, currency=spec.currency, owner_id=spec.owner_id, ref=spec.ref
        )
    return found


def account_get(spec: AccountSpec) -> Account:
    """The account `spec` names, created empty on first use: the one way to get an
    account (accounts_get: several at once, in one query)."""
    return accounts_get([spec])[spec]


def accounts_for(*, owner_id: int, ref: str) -> dict[AccountSpec, Account]:
    """The accounts of a player, of `ref` (an event's pool, fees and bounties) and
    the room's own, by spec: read before a lock for accounts_get to take from, so
    that the lock is held for less. Safe to read early: an account's identity never
    changes, and the ledger reads its balance again under the account's own lock."""
    around = Account.objects.filter(Q(owner_id=owner_id) | Q(owner=None, ref__in=[ref, ""]))
    return {account_spec(account): account for account in around}


def account_spec(account: Account) -> AccountSpec:
    """The spec that names `account`."""
    return AccountSpec(account.kind, account.currency, account.owner_id, account.ref)


@dataclass(frozen=True)
class Leg:
    """One movement of a batch; `name` tells it from the batch's other legs in its
    idempotency key (f"{prefix}:{name}", or the prefix alone when unnamed)."""

    source: Account
    destination: Account
    amount: int
    reason: str
    name: str = ""


def transfer_create(
    *,
    source: Account,
    destination: Account,
    amount: int,
    reason: str,
    idempotency_key: str,
    actor: AbstractBaseUser | None = None,
    memo: str = "",
) -> Transfer:
    """Move `amount` minor units from `source` to `destination` (transfers_create
    with one leg, whose key is `idempotency_key` itself)."""
    (transfer,) = transfers_create(
        legs=[Leg(source, destination, amount, reason)], idempotency_key_prefix=idempotency_key, actor=actor, memo=memo
    )
    return transfer


def transfers_create(
    *,
    legs: list[Leg],
    idempotency_key_prefix: str,
    actor: AbstractBaseUser | None = None,
    memo: str = "",
    keys_are_new: bool = False,
    audit: Iterable[AuditRecord] = (),
) -> list[Transfer]:
    """Move every leg or none, in the legs' order; each leg is one Transfer with one
    audit row.

    Locks every account involved (in id order) for the rest of the caller's
    transaction and checks, under the lock, that each source holds all its legs
    take from it (HOUSE and EXTERNAL may go negative). A retry with the same keys
    returns the first transfers and moves nothing, even when the two race.

    `keys_are_new`: the caller vouches that no transfer has these keys yet (they
    name a row it created, or first refunded, under a lock in its transaction), so
    neither the look-up for a retry nor the savepoint that lets a race on the keys
    end in the first transfers is needed; a duplicate key then fails the caller's
    transaction. Honoured only inside a transaction.

    `audit`: the caller's own records of what the legs pay, appended (by
    audit.services, as every audit row) in the one INSERT of the transfers' rows, a
    round trip less under the caller's locks; also when there are no legs, never on
    a retry or a refusal.

    Records BalancesChanged for the players whose accounts moved.
    """
    if not legs:
        audit_log_many(audit)
        return []
    keys = _keys(legs, idempotency_key_prefix)
    keys_are_new = keys_are_new and transaction.get_connection().in_atomic_block
    if not keys_are_new:
        existing = list(Transfer.objects.filter(idempotency_key__in=keys))
        if existing:
            return _same_transfers(existing, keys=keys, legs=legs)
    try:
        # Without a savepoint an error inside marks the caller's transaction for
        # rollback: so a refusal is raised after the block, which then wrote nothing.
        with transaction.atomic(savepoint=not keys_are_new):
            moved = _balances_move(legs)
            transfers = _journal(legs, keys=keys, actor=actor, memo=memo, audit=audit) if moved else []
    except IntegrityError:
        if keys_are_new:
            raise
        # The same request won a race for the keys: its transfers are the answer.
        existing = list(Transfer.objects.filter(idempotency_key__in=keys))
        if not existing:
            raise
        return _same_transfers(existing, keys=keys, legs=legs)
    if not moved:
        raise InsufficientFunds(_("Not enough money in the account for this."))
    _tell_owners(legs)
    return transfers


@dataclass(frozen=True)
class Journaled:
    """Transfers written and not yet moved (transfers_journal): their transaction
    must settle them (transfers_settle) before it commits."""

    legs: list[Leg]
    transfers: list[Transfer]


def transfers_journal(
    *,
    legs: list[Leg],
    idempotency_key_prefix: str,
    actor: AbstractBaseUser | None = None,
    memo: str = "",
    audit: Iterable[AuditRecord] = (),
) -> Journaled:
    """The first half of transfers_create with new keys, for a caller that writes
    its rows before it takes a lock that others wait for: the legs' Transfer and
    audit rows (with the caller's `audit`), and no balance moved. Their accounts are
    not locked: the rows' foreign keys take only a key-share lock, which the
    ledger's own lock (FOR NO KEY UPDATE) does not wait for.

    The caller vouches that the keys are new (as keys_are_new) and, in the same
    atomic block, calls transfers_settle before the block ends; a refusal there
    rolls the rows back with the rest. Only inside a transaction."""
    if not transaction.get_connection().in_atomic_block:
        raise WalletError(_("Transfers are written and settled in one transaction."))
    keys = _keys(legs, idempotency_key_prefix)
    if not legs:
        audit_log_many(audit)
        return Journaled([], [])
    return Journaled(legs, _journal(legs, keys=keys, actor=actor, memo=memo, audit=audit))


def transfers_settle(journaled: Journaled) -> list[Transfer]:
    """Move the balances of journaled transfers: the second half of transfers_create,
    with its lock of every account in id order and its check of every source. A
    source that holds too little raises InsufficientFunds and marks the caller's
    atomic block for rollback, so that the journaled rows cannot commit without
    their money. Records BalancesChanged for the players whose accounts moved."""
    if not journaled.legs:
        return []
    if not _balances_move(journaled.legs):
        transaction.set_rollback(True)
        raise InsufficientFunds(_("Not enough money in the account for this."))
    _tell_owners(journaled.legs)
    return journaled.transfers


def _tell_owners(legs: list[Leg]) -> None:
    owners = frozenset(
        account.owner_id for leg in legs for account in (leg.source, leg.destination) if account.owner_id is not None
    )
    if owners:
        record(BalancesChanged(owners))


def _keys(legs: list[Leg], prefix: str) -> list[str]:
    """Each leg's idempotency key, once the legs are checked to be movable."""
    for leg in legs:
        if leg.amount <= 0:
            raise WalletError(_("An amount to move must be positive."))
        if leg.source.currency != leg.destination.currency:
            raise WalletError(_("Money moves only between accounts of the same currency."))
        if leg.source.pk == leg.destination.pk:
            raise WalletError(_("A transfer needs two different accounts."))
    keys = [f"{prefix}:{leg.name}" if leg.name else prefix for leg in legs]
    if len(set(keys)) != len(keys):
        raise WalletError(_("Each leg of a payment needs its own name."))
    return keys


MAY_GO_NEGATIVE = frozenset({AccountKind.EXTERNAL, AccountKind.HOUSE})


def _balances_move(legs: list[Leg]) -> bool:
    """Lock the legs' accounts in id order and, if every source holds all its legs
    take from it (only what leaves counts: no leg is paid with money another leg of
    the batch brings in), add each leg to their balances; whether it did. A refusal
    changes nothing (and keeps the locks)."""
    deltas: dict[int, int] = defaultdict(int)
    needed: dict[int, int] = defaultdict(int)
    for leg in legs:
        deltas[leg.source.pk] -= leg.amount
        deltas[leg.destination.pk] += leg.amount
        if leg.source.kind not in MAY_GO_NEGATIVE:
            needed[leg.source.pk] += leg.amount
    balances = dict(
        Account.objects.select_for_update(no_key=True).filter(pk__in=deltas).order_by("pk").values_list("pk", "balance")
    )
    if any(balances[pk] < amount for pk, amount in needed.items()):
        return False
    # Every account in one UPDATE: each is a round trip under the locks the caller holds.
    moved = {pk: delta for pk, delta in deltas.items() if delta}
    if moved:
        by_account = Case(
            *(When(pk=pk, then=Value(delta)) for pk, delta in moved.items()), output_field=BigIntegerField()
        )
        Account.objects.filter(pk__in=moved).update(balance=F("balance") + by_account)
    return True


def _journal(
    legs: list[Leg], *, keys: list[str], actor: AbstractBaseUser | None, memo: str, audit: Iterable[AuditRecord]
) -> list[Transfer]:
    """The legs' Transfer rows, and an audit row for each, with the caller's `audit`."""
    transfers = Transfer.objects.bulk_create(
        Transfer(
            source=leg.source,
            destination=leg.destination,
            amount=leg.amount,
            reason=leg.reason,
            idempotency_key=key,
            actor_id=actor.pk if actor is not None else None,
            memo=memo,
        )
        for leg, key in zip(legs, keys, strict=True)
    )
    own = [
        AuditRecord(
            action=f"wallet.transfer.{leg.reason}",
            subject=transfer,
            actor=actor,
            reason=memo,
            data={
                "amount": leg.amount,
                "currency": leg.source.currency,
                "from": leg.source.pk,
                "to": leg.destination.pk,
            },
        )
        for leg, transfer in zip(legs, transfers, strict=True)
    ]
    audit_log_many([*own, *audit])
    return transfers


def _same_transfers(existing: list[Transfer], *, keys: list[str], legs: list[Leg]) -> list[Transfer]:
    by_key = {transfer.idempotency_key: transfer for transfer in existing}
    same = []
    for key, leg in zip(keys, legs, strict=True):
        transfer = by_key.get(key)
        expected = (leg.source.pk, leg.destination.pk, leg.amount)
        if transfer is None or (transfer.source_id, transfer.destination_id, transfer.amount) != expected:
            raise WalletError(_("This request key was already used for a different payment."))
        same.append(transfer)
    return same


def deposit_create(
    *, user: AbstractBaseUser, currency: str, amount: int, idempotency_key: str, actor: AbstractBaseUser | None = None
) -> Transfer:
    """Credit money that arrived from outside the room to a player's account, within
    his deposit limits (responsible.services: a deposit over one is refused with a
    WalletError that says which and when it resets); a retry returns the first."""
    with transaction.atomic():
        if not Transfer.objects.filter(idempotency_key=idempotency_key).exists():
            player_lock(user.pk)  # then the time: a break that began while this waited is running by then
            try:
                deposit_allowed(player_id=user.pk, currency=currency, amount=amount, now=timezone.now())
            except ResponsibleRefusal as refused:
                raise WalletError(refused.message) from refused
        outside = account_get(external_account_spec(currency))
        return transfer_create(
            source=outside,
            destination=account_get(wallet_account_spec(user.pk, currency)),
            amount=amount,
            reason=TransferReason.DEPOSIT,
            idempotency_key=idempotency_key,
            actor=actor,
        )


def staff_adjust(
    *, user: AbstractBaseUser, currency: str, amount: int, reason: str, actor: AbstractBaseUser, idempotency_key: str
) -> Transfer:
    """Credit (amount > 0) or debit (amount < 0) a player's cash or T-Money against
    the house, with the staff member's reason (rule 1)."""
    if not reason.strip():
        raise WalletError(_("A staff adjustment needs a reason."))
    if amount == 0:
        raise WalletError(_("An adjustment of zero changes nothing."))
    # One transaction: a debit refused below zero leaves no account opened for it.
    with transaction.atomic():
        player, house = account_get(wallet_account_spec(user.pk, currency)), account_get(house_account_spec(currency))
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


def tmoney_issue(
    *, user: AbstractBaseUser, amount: int, reason: str, actor: AbstractBaseUser, idempotency_key: str
) -> Transfer:
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
