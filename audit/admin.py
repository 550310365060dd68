"""The audit log, for reading only: entries are written by services (rule 1)."""

import json

from django.contrib import admin
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from audit.models import AuditEntry


class AppendOnlyAdmin(admin.ModelAdmin):
    """A record nobody edits in the admin: services append it, the admin shows it."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(AuditEntry)
class AuditEntryAdmin(AppendOnlyAdmin):
    list_display = ("created_at", "action", "actor", "subject", "reason")
    list_filter = ("subject_type", "action", "created_at")
    search_fields = ("action", "subject_id", "reason", "actor__username", "actor__screen_name")
    date_hierarchy = "created_at"
    list_select_related = ("actor",)
    fields = ("created_at", "action", "actor", "subject", "reason", "data_display")

    @admin.display(description=_("subject"))
    def subject(self, entry):
        label = f"{entry.subject_type} #{entry.subject_id}"
        app_label, _dot, model_name = entry.subject_type.partition(".")
        try:
            url = reverse(f"admin:{app_label}_{model_name}_change", args=[entry.subject_id])
        except NoReverseMatch:  # not every subject has an admin page
            return label
        return format_html('<a href="{}">{}</a>', url, label)

    @admin.display(description=_("data"))
    def data_display(self, entry):
        return format_html("<pre>{}</pre>", json.dumps(entry.data, indent=2, sort_keys=True, ensure_ascii=False))
