from django.contrib import admin

from deals.models import Deal, Negotiation


@admin.register(Negotiation)
class NegotiationAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "created_at", "ended_at")
    list_filter = ("status",)
    readonly_fields = [field.name for field in Negotiation._meta.fields]

    def has_add_permission(self, request):
        return False  # negotiations start from the table (deals.services)


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("__str__", "play_for", "staff", "agreed_at")
    readonly_fields = [field.name for field in Deal._meta.fields]

    def has_add_permission(self, request):
        return False
