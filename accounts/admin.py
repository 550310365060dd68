from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "screen_name", "email", "country", "is_staff", "is_superuser")
    search_fields = ("username", "screen_name", "email")
    fieldsets = (
        *(BaseUserAdmin.fieldsets or ()),
        ("Player", {"fields": ("screen_name", "country", "preferred_currency", "language", "is_team_pro")}),
    )
    add_fieldsets = (
        *BaseUserAdmin.add_fieldsets,
        ("Player", {"fields": ("screen_name", "country", "preferred_currency", "language")}),
    )
