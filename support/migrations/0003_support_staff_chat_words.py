"""Support staff edit the table chat's card and hand words (rule 19) in the admin."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Support staff"
CODENAMES = ["view_chatword", "add_chatword", "change_chatword", "delete_chatword"]


def grant(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=GROUP)
    group.permissions.add(*Permission.objects.filter(content_type__app_label="tournaments", codename__in=CODENAMES))


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group in Group.objects.filter(name=GROUP):
        group.permissions.remove(*Permission.objects.filter(content_type__app_label="tournaments", codename__in=CODENAMES))


class Migration(migrations.Migration):
    dependencies = [
        ("support", "0002_support_staff_group"),
        ("tournaments", "0016_chat_words"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
