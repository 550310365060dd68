"""The "Support staff" group: what the README says staff do. The support console
and deal mediation need only is_staff; the admin's tournament list needs these."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Support staff"
PERMISSIONS = [("tournaments", "view_tournament"), ("tournaments", "run_tournament")]


def create_group(apps, schema_editor):
    # Permissions are made after the last migration; this one needs them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=GROUP)
    for app_label, codename in PERMISSIONS:
        group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


def delete_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("support", "0001_initial"),
        ("tournaments", "0012_run_tournament_permission"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, delete_group)]
