"""Reads of a player's wallet: what they hold, and what moved in and out.

Only the owner's own accounts are ever read here; a page that shows a wallet passes
the user whose wallet it is, never an id from the request.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Case, F, Q, QuerySet, When
from django.utils import timezone

from wallet.models import Account, AccountKind, Currency, Ticket, TicketStatus, Transfer

PLAYER_KINDS = (AccountKind.PLAYER_CASH, AccountKind.PLAYER_TMONEY)
# Tickets a player still holds: usable now, or held by a registration that
# unregistering would give back.
HELD_TICKETS = (TicketStatus.AVAILABLE, TicketStatus.RESERVED)


@dataclass(frozen=True)
class WalletBalance:
    currency: str
    amount: int

    @property
    def is_tmoney(self) -> bool:
        return self.currency == Currency.TMONEY


@dataclass(frozen=True)
class WalletSummary:
    balances: list[WalletBalance]
    tickets: list[Ticket]


def wallet_summary(user, *, now: datetime | None = None) -> WalletSummary:
    """The player's balances and the tickets they hold, each read in one go.

    Balances: cash per currency and T-Money, the preferred currency first (shown
    even at zero, and even before its account exists), other cash by currency,
    T-Money last; other zero balances are left out. Tickets: available (not past
    their expiry) or reserved by a registration, soonest expiry first.
    """
    now = now or timezone.now()
    held = dict(Account.objects.filter(owner=user, kind__in=PLAYER_KINDS).values_list("currency", "balance"))
    preferred = user.preferred_currency
    held.setdefault(preferred, 0)
    shown = [WalletBalance(currency, amount) for currency, amount in held.items() if amount or currency == preferred]
    shown.sort(key=lambda b: (b.currency != preferred, b.is_tmoney, b.currency))
    tickets = list(
        Ticket.objects.filter(owner=user, status__in=HELD_TICKETS)
        .exclude(status=TicketStatus.AVAILABLE, expires_at__lte=now)
        .order_by("expires_at", "pk")
    )
    return WalletSummary(balances=shown, tickets=tickets)


def wallet_balance(user, currency: str) -> int:
    """The player's balance in `currency` (T-Money for TMY), 0 without an account;
    reads only, unlike wallet.services.account_get, which creates it."""
    kind = AccountKind.PLAYER_TMONEY if currency == Currency.TMONEY else AccountKind.PLAYER_CASH
    balance = Account.objects.filter(owner=user, kind=kind, currency=currency).values_list("balance", flat=True).first()
    return balance or 0


def wallet_history(user) -> QuerySet:
    """Every transfer into or out of the player's own accounts, newest first, as
    dicts: pk, created_at, reason, signed_amount (+ in, - out), currency, memo, and
    counterpart_ref (the other account's ref, e.g. "tournament:42", or ""), and
    idempotency_key (which the paying service makes, e.g. "purchase:17:fee").

    A query per slice and one to count, whose cost does not grow with the length of
    the history: it suits a Paginator.
    """
    mine = Account.objects.filter(owner=user, kind__in=PLAYER_KINDS).values("pk")
    incoming = Q(destination__in=mine)
    return (
        Transfer.objects.filter(incoming | Q(source__in=mine))
        .annotate(
            signed_amount=Case(When(incoming, then=F("amount")), default=-F("amount")),
            currency=F("source__currency"),
            counterpart_ref=Case(When(incoming, then=F("source__ref")), default=F("destination__ref")),
        )
        .order_by("-created_at", "-pk")
        .values("pk", "created_at", "reason", "signed_amount", "currency", "memo", "counterpart_ref", "idempotency_key")
    )


def wallet_net(user, *, since: datetime, reasons: Iterable[str]) -> dict[str, int]:
    """What the transfers for `reasons` since `since` moved into (+) and out of (-)
    the player's own accounts, per currency; a currency they left even is kept."""
    net: dict[str, int] = {}
    for row in wallet_history(user).filter(created_at__gte=since, reason__in=list(reasons)):
        net[row["currency"]] = net.get(row["currency"], 0) + row["signed_amount"]
    return net
