"""The ledger, for reading only: value moves through wallet.services, never here."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from audit.admin import AppendOnlyAdmin
from wallet.models import Account, Transfer
from wallet.money import format_plain_amount


@admin.register(Account)
class AccountAdmin(AppendOnlyAdmin):
    list_display = ("id", "kind", "currency", "owner", "ref", "balance_display")
    list_filter = ("kind", "currency")
    search_fields = ("owner__username", "owner__screen_name", "ref")
    list_select_related = ("owner",)

    @admin.display(description=_("balance"), ordering="balance")
    def balance_display(self, account):
        return f"{format_plain_amount(account.balance)} {account.currency}"


@admin.register(Transfer)
class TransferAdmin(AppendOnlyAdmin):
    list_display = ("created_at", "reason", "amount_display", "source", "destination", "actor", "memo")
    list_filter = ("reason", "source__currency", "created_at")
    search_fields = (
        "idempotency_key",
        "memo",
        "source__ref",
        "destination__ref",
        "source__owner__username",
        "destination__owner__username",
        "source__owner__screen_name",
        "destination__owner__screen_name",
    )
    date_hierarchy = "created_at"
    list_select_related = ("source__owner", "destination__owner", "actor")

    @admin.display(description=_("amount"), ordering="amount")
    def amount_display(self, transfer):
        return f"{format_plain_amount(transfer.amount)} {transfer.source.currency}"
