"""The ledger's journal is append-only in the database too (rule 1): the audit log's
trigger function refuses UPDATE and DELETE of a transfer (audit/migrations/_append_only.py)."""

from django.db import migrations

from audit.migrations._append_only import create_trigger, drop_trigger, on_postgresql


class Migration(migrations.Migration):
    dependencies = [("wallet", "0004_transfer_indexes_covered_dropped"), ("audit", "0003_append_only")]

    operations = [
        migrations.RunPython(on_postgresql(create_trigger("wallet_transfer")), on_postgresql(drop_trigger("wallet_transfer"))),
    ]
