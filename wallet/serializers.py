"""Serializers of the wallet API: the signed-in player's own balances and tickets
(wallet.selectors.wallet_summary), field mapping only."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api import UtcDateTimeField
from wallet.models import Currency, TicketStatus

HELD_TICKET_STATUSES = [(status.value, status.label) for status in (TicketStatus.AVAILABLE, TicketStatus.RESERVED)]


@extend_schema_field(
    {"type": "string", "enum": [value for value, _label in HELD_TICKET_STATUSES]}, component_name="TicketStatusEnum"
)
class TicketStatusField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=HELD_TICKET_STATUSES, **kwargs)


class BalanceSerializer(serializers.Serializer):
    """One of the player's balances (a wallet.selectors.WalletBalance)."""

    currency = serializers.ChoiceField(choices=Currency.choices)
    kind = serializers.SerializerMethodField(help_text="Cash, or T-Money (currency TMY).")
    balance = serializers.IntegerField(source="amount", help_text="In minor units.")

    @extend_schema_field({"type": "string", "enum": ["cash", "tmoney"]})
    def get_kind(self, balance) -> str:
        return "tmoney" if balance.is_tmoney else "cash"


class TicketSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = TicketStatusField(help_text="Reserved: paying a registration, given back if the player unregisters.")
    value = serializers.IntegerField(help_text="The buy-in plus fee it covers, in minor units.")
    currency = serializers.ChoiceField(choices=Currency.choices)
    tournament = serializers.IntegerField(
        source="tournament_ref", allow_null=True, help_text="Null: any event of exactly this buy-in and fee."
    )
    expires_at = UtcDateTimeField()


class WalletSerializer(serializers.Serializer):
    """The signed-in player's own money and tickets."""

    balances = BalanceSerializer(many=True)
    tickets = TicketSerializer(many=True, help_text="Usable, or reserved by a registration; soonest expiry first.")
