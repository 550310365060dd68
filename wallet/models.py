"""The ledger: the only way value moves (see ARCHITECTURE.md, Money).

An account holds one currency. A transfer moves an amount between two accounts of
the same currency and is never updated or deleted (audit.models.AppendOnlyModel, and
a trigger on PostgreSQL). `Account.balance` is the sum of the account's transfers,
kept beside them under the account's row lock so that a balance can be checked (and
constrained to stay >= 0) without summing the journal; `wallet_audit` proves the two
agree.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from audit.models import AppendOnlyModel


class Currency(models.TextChoices):
    EUR = "EUR", "EUR"
    USD = "USD", "USD"
    DKK = "DKK", "DKK"
    TMONEY = "TMY", _("T-Money")


class AccountKind(models.TextChoices):
    PLAYER_CASH = "player_cash", _("player cash")
    PLAYER_TMONEY = "player_tmoney", _("player T-Money")
    # The room's own money: it pays overlays and converts T-Money and tickets into
    # prize-pool money, so it is the one account (with EXTERNAL) that may go negative.
    HOUSE = "house", _("house")
    PRIZE_POOL = "prize_pool", _("prize pool")
    FEES = "fees", _("fees")
    BOUNTIES = "bounties", _("bounties")
    # Money outside the room: deposits come from here, withdrawals go back.
    EXTERNAL = "external", _("outside the room")


class TransferReason(models.TextChoices):
    DEPOSIT = "deposit", _("deposit")
    BUY_IN = "buy_in", _("buy-in")
    FEE = "fee", _("fee")
    BOUNTY = "bounty", _("bounty")
    REFUND = "refund", _("refund")
    REBUY = "rebuy", _("rebuy")
    ADDON = "addon", _("add-on")
    PRIZE = "prize", _("prize")
    TMONEY_CONVERSION = "tmoney_conversion", _("T-Money conversion")
    STAFF_ADJUSTMENT = "staff_adjustment", _("staff adjustment")
    # Rule 20: a withheld prize the room keeps after its review.
    CONFISCATION = "confiscation", _("prize confiscated")


class Account(models.Model):
    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="accounts"
    )
    # What a non-player account belongs to, e.g. "tournament:42".
    ref = models.CharField(max_length=64, blank=True, default="")
    balance = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "currency", "owner", "ref"], name="account_unique_per_owner"),
            models.UniqueConstraint(
                fields=["kind", "currency", "ref"], condition=Q(owner=None), name="account_unique_without_owner"
            ),
            models.CheckConstraint(
                condition=Q(balance__gte=0) | Q(kind__in=["external", "house"]), name="account_balance_never_negative"
            ),
        ]

    def __str__(self) -> str:
        who = self.owner or self.ref or "room"
        return f"{self.get_kind_display()} {self.currency} ({who})"


class Transfer(AppendOnlyModel):
    # Every registration writes transfers: no index that another already covers
    # (the accounts' by (account, created_at); the key's unique one, without the
    # pattern index a unique=True CharField gets on PostgreSQL).
    source = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="outgoing", db_index=False)
    destination = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="incoming", db_index=False)
    amount = models.BigIntegerField()
    reason = models.CharField(max_length=24, choices=TransferReason.choices)
    idempotency_key = models.CharField(max_length=128)
    memo = models.CharField(max_length=200, blank=True, default="")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="transfer_amount_positive"),
            models.CheckConstraint(condition=~Q(source=models.F("destination")), name="transfer_between_two_accounts"),
            models.UniqueConstraint(fields=["idempotency_key"], name="transfer_idempotency_key_unique"),
        ]
        indexes = [models.Index(fields=["source", "created_at"]), models.Index(fields=["destination", "created_at"])]

    def __str__(self) -> str:
        return f"{self.amount} {self.source.currency} {self.reason}"


class TicketStatus(models.TextChoices):
    AVAILABLE = "available", _("available")
    RESERVED = "reserved", _("reserved by a registration")
    CONSUMED = "consumed", _("used")
    EXPIRED = "expired", _("expired")


class Ticket(models.Model):
    """An entry voucher: for one tournament, or for any event of its buy-in level.

    `value` is the buy-in plus fee it covers, in minor units of `currency`. A
    registration reserves it, unregistration returns it, the start consumes it.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tickets")
    # A tournament id (wallet knows nothing of tournaments); empty: any event of this value.
    tournament_ref = models.PositiveBigIntegerField(null=True, blank=True)
    value = models.PositiveBigIntegerField()
    currency = models.CharField(max_length=3, choices=Currency.choices)
    status = models.CharField(max_length=10, choices=TicketStatus.choices, default=TicketStatus.AVAILABLE)
    expires_at = models.DateTimeField()
    reason = models.CharField(max_length=200, blank=True, default="")
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The issuing request's key: a retried request issues no second ticket.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True, unique=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "status"])]
        constraints = [models.CheckConstraint(condition=Q(value__gt=0), name="ticket_value_positive")]

    def __str__(self) -> str:
        return f"Ticket #{self.pk} ({self.value} {self.currency})"

    @property
    def valid_until(self) -> datetime:
        """The last instant the ticket is good for: `expires_at` is the first it is not,
        so one valid through 31 December reads "31 Dec, 23:59", not "1 Jan, 00:00"."""
        return self.expires_at - timedelta(microseconds=1)
