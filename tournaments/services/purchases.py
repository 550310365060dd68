"""Purchases: what an entry, a rebuy or an add-on costs is paid through the ledger,
and paid back exactly, in the form paid (rules 8, 9, 10).

A purchase's plan names its movements between accounts (purchase_plan; a refund's,
refund_plan); purchase_record records the purchase and its transfers,
purchase_settle pays it, purchases_refund reverses an entry's purchases in one
batch of the ledger. The use cases that buy
(tournaments.services.entries: register, rebuy, add-on; satellites' seats) and
those that refund (unregistration, cancellation) call these under the tournament's
row lock (purchase_settle and purchases_refund under it; a registration records
its purchase before it takes the lock, so that the lock is held for the money
alone); nothing here takes it.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import IntegrityError

from audit.services import AuditRecord
from tournaments.models import Entry, PaymentForm, Purchase, PurchaseKind, Tournament
from tournaments.rules.pricing import EntryPrice
from tournaments.services.refusals import TournamentError, refuse
from wallet.models import Account, AccountKind, Currency, TransferReason
from wallet.services import (
    AccountSpec,
    InsufficientFunds,
    Journaled,
    Leg,
    WalletError,
    accounts_get,
    house_account_spec,
    transfers_create,
    transfers_journal,
    transfers_settle,
    wallet_account_spec,
)
from wallet.tickets import ticket_check, ticket_release, ticket_reserve

if TYPE_CHECKING:
    from accounts.models import User


def tournament_accounts_ref(tournament_id: int) -> str:
    """What the event's own accounts (prize pool, fees, bounties) are kept under."""
    return f"tournament:{tournament_id}"


@dataclass(frozen=True)
class PlannedLeg:
    """One movement that pays or refunds a purchase, between named accounts; `name`
    tells it from the purchase's other legs in its idempotency key."""

    name: str
    source: AccountSpec
    destination: AccountSpec
    amount: int
    reason: str


@dataclass(frozen=True)
class RecordedPurchase:
    """A purchase written with its transfers, its money not moved yet (purchase_record)."""

    purchase: Purchase
    journaled: Journaled


def purchase_record(
    *,
    tournament: Tournament,
    entry: Entry,
    kind: str,
    form: str,
    price: EntryPrice,
    chips: int,
    idempotency_key: str,
    now: datetime,
    actor: "User",
    ticket_id: int | None = None,
    payer: AccountSpec | None = None,
    accounts: Mapping[AccountSpec, Account] | None = None,
    audit: Iterable[AuditRecord] = (),
) -> RecordedPurchase:
    """What a purchase writes before its money moves, none of which needs the
    tournament's row lock: a ticket reserved, the purchase, and its transfers and
    audit rows (transfers_journal; `audit`: the caller's records, written with the
    ledger's). `payer`: a satellite seat's (see purchase_plan); `accounts`: those read
    before the lock. Its transaction settles it (purchase_settle) in the same atomic
    block, under the lock."""
    ticket = None
    if form == PaymentForm.TICKET:
        try:
            ticket = ticket_reserve(
                ticket_id=ticket_id,
                owner=entry.player,
                tournament_id=tournament.pk,
                value=price.ticket_value,
                currency=tournament.pool_currency,
                now=now,
            )
        except WalletError as error:
            raise TournamentError(str(error), "no_ticket") from error
    try:
        purchase = Purchase.objects.create(
            entry=entry,
            kind=kind,
            form=form,
            currency=tournament.pool_currency,
            price=price.prize,
            fee=price.fee,
            bounty=price.bounty,
            chips=chips,
            ticket=ticket,
            idempotency_key=idempotency_key,
        )
    except IntegrityError as error:  # its key's unique constraint
        raise refuse("duplicate_request") from error
    legs = plan_legs(purchase_plan(purchase, payer=payer), accounts)
    try:
        # The keys name the purchase made just now: no earlier transfer can hold them.
        journaled = transfers_journal(
            legs=legs, idempotency_key_prefix=f"purchase:{purchase.pk}", actor=actor, audit=audit
        )
    except WalletError as error:
        raise TournamentError(str(error), error.code) from error
    return RecordedPurchase(purchase, journaled)


def purchase_settle(recorded: RecordedPurchase) -> Purchase:
    """Move a recorded purchase's money (transfers_settle: the accounts' locks, the
    balance checked); under the tournament's row lock, so that the event's accounts
    are locked in the one order. Too little money refuses, and rolls back the block."""
    try:
        transfers_settle(recorded.journaled)
    except InsufficientFunds as error:
        raise refuse("insufficient_funds") from error
    return recorded.purchase


def purchase_plan(purchase: Purchase, *, payer: AccountSpec | None = None) -> list[PlannedLeg]:
    """How `purchase` is paid: from the account its form names to the event's prize
    pool, fees and bounties. T-Money paying a cash event goes to the house, which
    pays the event in its money; so does a ticket's house. `payer`: who paid a
    satellite seat (the satellite's pool; in another money than the event's, the
    house takes it and pays the event in its own)."""
    currency = purchase.currency
    player_id = purchase.entry.player_id
    legs: list[PlannedLeg] = []
    if purchase.form == PaymentForm.FREE:
        return legs
    if purchase.form == PaymentForm.CASH:
        payer = wallet_account_spec(player_id, currency)
    elif purchase.form == PaymentForm.TMONEY and currency != Currency.TMONEY:
        tmoney = wallet_account_spec(player_id, Currency.TMONEY)
        house_tmoney = house_account_spec(Currency.TMONEY)
        legs.append(PlannedLeg("tmoney", tmoney, house_tmoney, purchase.total, TransferReason.TMONEY_CONVERSION))
        payer = house_account_spec(currency)
    elif purchase.form == PaymentForm.TMONEY:
        payer = wallet_account_spec(player_id, Currency.TMONEY)
    elif purchase.form == PaymentForm.TICKET:
        payer = house_account_spec(currency)
    elif payer is None:
        raise ValueError("A satellite seat's purchase needs its payer.")
    elif payer.currency != currency:
        # A T-Money satellite into a cash event (or the reverse): the house takes the
        # seat in the satellite's money and pays the entry in the event's.
        house = house_account_spec(payer.currency)
        legs.append(PlannedLeg("conversion", payer, house, purchase.total, TransferReason.TMONEY_CONVERSION))
        payer = house_account_spec(currency)
    reason = {PurchaseKind.ENTRY: TransferReason.BUY_IN, PurchaseKind.REBUY: TransferReason.REBUY}.get(
        PurchaseKind(purchase.kind), TransferReason.ADDON
    )
    ref = tournament_accounts_ref(purchase.entry.tournament_id)
    for name, kind, amount, why in (
        ("pool", AccountKind.PRIZE_POOL, purchase.price, reason),
        ("fee", AccountKind.FEES, purchase.fee, TransferReason.FEE),
        ("bounty", AccountKind.BOUNTIES, purchase.bounty, TransferReason.BOUNTY),
    ):
        if amount:
            legs.append(PlannedLeg(name, payer, AccountSpec(kind, currency, ref=ref), amount, why))
    return legs


def refund_plan(purchase: Purchase) -> list[PlannedLeg]:
    """What reverses `purchase`, in the form it was paid; a satellite seat's money
    goes to the house, and the player gets T-Money of its value, never cash (rule 10)."""
    house = house_account_spec(purchase.currency)
    seat = purchase.form == PaymentForm.SEAT
    legs = [
        PlannedLeg(
            f"refund:{leg.name}", leg.destination, house if seat else leg.source, leg.amount, TransferReason.REFUND
        )
        for leg in purchase_plan(purchase, payer=house)
    ]
    if seat:
        house_tmoney = house_account_spec(Currency.TMONEY)
        player_tmoney = wallet_account_spec(purchase.entry.player_id, Currency.TMONEY)
        legs.append(PlannedLeg("refund:seat", house_tmoney, player_tmoney, purchase.total, TransferReason.REFUND))
    return legs


def fees_refund_plan(purchase: Purchase) -> list[PlannedLeg]:
    """What gives back the fee and own knockout bounty of `purchase` when its event is
    cancelled after the start (a roll forward): to the player's own account when he
    paid from it, else (a ticket, a satellite seat, T-Money the house converted) as
    T-Money through the house."""
    player_id = purchase.entry.player_id
    house = house_account_spec(purchase.currency)
    house_tmoney = house_account_spec(Currency.TMONEY)
    player_tmoney = wallet_account_spec(player_id, Currency.TMONEY)
    plan = []
    # A seat's payer (its satellite's pool, or the house) is not the player: any but theirs will do.
    for leg in purchase_plan(purchase, payer=house):
        if leg.name not in ("fee", "bounty"):
            continue
        if leg.source.owner_id == player_id:
            plan.append(PlannedLeg(leg.name, leg.destination, leg.source, leg.amount, TransferReason.REFUND))
        else:
            plan.append(PlannedLeg(leg.name, leg.destination, house, leg.amount, TransferReason.REFUND))
            plan.append(
                PlannedLeg(f"{leg.name}:tmoney", house_tmoney, player_tmoney, leg.amount, TransferReason.REFUND)
            )
    return plan


def entry_accounts(
    tournament: Tournament,
    *,
    player: "User",
    form: str,
    now: datetime,
    ticket_id: int | None = None,
    known: Mapping[AccountSpec, Account] | None = None,
) -> dict[AccountSpec, Account]:
    """The accounts an entry into `tournament` paid in `form` moves money between
    (purchase_plan), from `known` (accounts_for), else read; those missing (an event's
    pool at its first entry) are created here, each in its own transaction. Called
    before a registration's transaction: its new rows then never include an account
    that another registration, holding the event's lock, would wait for in a circle.
    A player whose accounts, as read, hold too little, or whose ticket cannot pay, is
    refused first, with nothing created (the ledger and ticket_reserve check again
    under their locks)."""
    price = tournament.entry_price
    player_id = player.pk
    if form == PaymentForm.TICKET:
        try:
            ticket_check(
                ticket_id=ticket_id,
                owner=player,
                tournament_id=tournament.pk,
                value=price.ticket_value,
                currency=tournament.pool_currency,
                now=now,
            )
        except WalletError as error:
            raise TournamentError(str(error), "no_ticket") from error
    purchase = Purchase(
        entry=Entry(tournament_id=tournament.pk, player_id=player_id),
        kind=PurchaseKind.ENTRY,
        form=form,
        currency=tournament.pool_currency,
        price=price.prize,
        fee=price.fee,
        bounty=price.bounty,
    )
    plan = purchase_plan(purchase)
    known = known or {}
    owed: dict[AccountSpec, int] = {}
    for leg in plan:
        if leg.source.owner_id == player_id:
            owed[leg.source] = owed.get(leg.source, 0) + leg.amount
    if any(spec not in known or known[spec].balance < amount for spec, amount in owed.items()):
        raise refuse("insufficient_funds")
    return accounts_get((spec for leg in plan for spec in (leg.source, leg.destination)), known=known)


def plan_legs(plan: list[PlannedLeg], accounts: Mapping[AccountSpec, Account] | None = None) -> list[Leg]:
    """The ledger's legs for `plan`; its accounts from `accounts` or read with one query."""
    found = accounts_get((spec for leg in plan for spec in (leg.source, leg.destination)), known=accounts)
    return [Leg(found[leg.source], found[leg.destination], leg.amount, leg.reason, leg.name) for leg in plan]


def purchases_refund(
    *,
    tournament: Tournament,
    entry: Entry,
    now: datetime,
    actor: "User",
    accounts: Mapping[AccountSpec, Account] | None = None,
    audit: Iterable[AuditRecord] = (),
    purchases: list[Purchase] | None = None,
) -> list[Purchase]:
    """Reverse every purchase of the entry not refunded yet, in the form it was paid
    (refund_plan), and give its reserved tickets back; returns those purchases,
    marked refunded. The caller holds the tournament's row lock and the entry's.

    One batch of the ledger (one lock over every account, in id order), each
    transfer keyed f"purchase:{id}:refund:{leg}"; `accounts`: those read before the
    lock, else one query; `audit`: the caller's records, written with the ledger's;
    `purchases`: those not refunded yet, oldest first, when the caller read them
    with the entry, else one query.
    """
    if purchases is None:
        purchases = list(entry.purchases.filter(refunded_at=None).order_by("pk"))
    plan = [replace(leg, name=f"{purchase.pk}:{leg.name}") for purchase in purchases for leg in refund_plan(purchase)]
    # Under the tournament's lock an unrefunded purchase has no refund transfers yet.
    transfers_create(
        legs=plan_legs(plan, accounts), idempotency_key_prefix="purchase", actor=actor, keys_are_new=True, audit=audit
    )
    for purchase in purchases:
        if purchase.ticket_id is not None:
            ticket_release(ticket_id=purchase.ticket_id)
        purchase.refunded_at = now
    Purchase.objects.filter(pk__in=[purchase.pk for purchase in purchases]).update(refunded_at=now)
    return purchases
