"""The audit log is append-only in the database too (rule 1): see _append_only.py."""

from django.db import migrations

from audit.migrations._append_only import (
    CREATE_FUNCTION,
    DROP_FUNCTION,
    create_trigger,
    drop_trigger,
    on_postgresql,
)


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_action_index_without_pattern_index")]

    operations = [
        migrations.RunPython(
            on_postgresql(CREATE_FUNCTION, create_trigger("audit_auditentry")),
            on_postgresql(drop_trigger("audit_auditentry"), DROP_FUNCTION),
        ),
    ]
