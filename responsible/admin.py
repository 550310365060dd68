from django.contrib import admin

from responsible.models import DepositLimit, Exclusion, LocalRegisterEntry


@admin.register(LocalRegisterEntry)
class LocalRegisterEntryAdmin(admin.ModelAdmin):
    """The local register of excluded players (demo and tests; production asks ROFUS)."""

    list_display = ("national_id", "excluded_until")
    search_fields = ("national_id",)


class ReadOnly(admin.ModelAdmin):
    """What the player chose: only he changes it (responsible.services)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DepositLimit)
class DepositLimitAdmin(ReadOnly):
    list_display = ("player", "period", "amount", "pending_amount", "pending_from")


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnly):
    list_display = ("player", "kind", "starts_at", "ends_at")
