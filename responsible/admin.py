from django.contrib import admin

from audit.admin import AppendOnlyAdmin
from responsible.models import DepositLimit, Exclusion, LocalRegisterEntry


@admin.register(LocalRegisterEntry)
class LocalRegisterEntryAdmin(admin.ModelAdmin):
    """The local register of excluded players (demo and tests; production asks ROFUS)."""

    list_display = ("national_id", "excluded_until")
    search_fields = ("national_id",)


@admin.register(DepositLimit)
class DepositLimitAdmin(AppendOnlyAdmin):
    """What the player chose: only he changes it (responsible.services)."""

    list_display = ("player", "period", "amount", "pending_amount", "pending_from")


@admin.register(Exclusion)
class ExclusionAdmin(AppendOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "ends_at")
