"""What the append-only migrations run (rule 1), shared by the audit log's and the
ledger's (audit 0003, wallet 0005). Not a migration itself: the loader skips names
that begin with "_".

On PostgreSQL a row trigger refuses UPDATE and DELETE, whoever sends them. SQLite
gets no trigger: it empties tables with DELETE (Django's flush, the tests' teardown),
which a trigger would block; there the models refuse (audit.models.AppendOnlyModel).
TRUNCATE, the table owner's way to empty a table, is no row operation and stays
possible on PostgreSQL (the tests' flush uses it).
"""

CREATE_FUNCTION = """
CREATE FUNCTION append_only_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only (rule 1): % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;
"""
DROP_FUNCTION = "DROP FUNCTION append_only_refuse();"


def create_trigger(table: str) -> str:
    return (
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}"
        " FOR EACH ROW EXECUTE FUNCTION append_only_refuse();"
    )


def drop_trigger(table: str) -> str:
    return f"DROP TRIGGER {table}_append_only ON {table};"


def on_postgresql(*statements: str):
    """A RunPython function that runs `statements` on PostgreSQL and nothing elsewhere."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement, params=None)  # no placeholders: "%" is plpgsql's

    return run
