"""The audit log and the ledger's journal are append-only (rule 1): written once, never
changed or removed, whether through the ORM, the admin or SQL sent to PostgreSQL."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from audit.models import AppendOnlyError, AuditEntry
from audit.services import audit_log
from wallet.models import Currency, Transfer, TransferReason
from wallet.services import account_get, external_account_spec, transfer_create, wallet_account_spec

TABLES = {AuditEntry: "audit_auditentry", Transfer: "wallet_transfer"}


@pytest.fixture
def deposit(player):
    return transfer_create(
        source=account_get(external_account_spec(Currency.EUR)),
        destination=account_get(wallet_account_spec(player.pk, Currency.EUR)),
        amount=5000,
        reason=TransferReason.DEPOSIT,
        idempotency_key="deposit:append-only",
    )


@pytest.fixture
def entry(player):
    return audit_log(action="tests.thing.done", subject=player, reason="for the record")


@pytest.fixture
def rows(deposit, entry):
    """One row of each append-only table, as written."""
    return {Transfer: deposit, AuditEntry: AuditEntry.objects.get(pk=entry.pk)}


def snapshot() -> dict:
    return {model: list(model.objects.order_by("pk").values()) for model in TABLES}


@pytest.mark.django_db
@pytest.mark.parametrize("model", TABLES, ids=lambda model: model.__name__)
def test_the_orm_refuses_to_change_or_remove_a_row(rows, model):
    row = rows[model]
    before = snapshot()
    row.memo = row.reason = "edited"
    attempts = {
        "save": row.save,
        "save with fields": lambda: row.save(update_fields=["reason"]),
        "delete": row.delete,
        "queryset update": lambda: model.objects.filter(pk=row.pk).update(reason="edited"),
        "queryset delete": lambda: model.objects.all().delete(),
        "bulk update": lambda: model.objects.bulk_update([row], ["reason"]),
        "update or create": lambda: model.objects.update_or_create(pk=row.pk, defaults={"reason": "edited"}),
    }

    for what, attempt in attempts.items():
        # Each in its own savepoint: bulk_update's refusal spoils the transaction it ran in.
        with pytest.raises(AppendOnlyError, match="append-only"), transaction.atomic():
            attempt()
        assert snapshot() == before, what


@pytest.mark.django_db
def test_the_error_says_which_record_and_what_was_refused(rows):
    with pytest.raises(AppendOnlyError) as refused:
        rows[AuditEntry].delete()

    assert str(refused.value) == "audit entries are append-only (rule 1): a delete is refused"


@pytest.mark.django_db
def test_the_related_managers_refuse_too(rows, player):
    cash = account_get(wallet_account_spec(player.pk, Currency.EUR))

    with pytest.raises(AppendOnlyError):
        cash.incoming.update(memo="edited")
    with pytest.raises(AppendOnlyError):
        cash.incoming.all().delete()
    assert cash.incoming.get().memo == ""


@pytest.mark.django_db
def test_new_rows_are_written_as_usual(player):
    entry = AuditEntry(action="tests.one", subject_type="accounts.user", subject_id=str(player.pk))
    entry.save()
    AuditEntry.objects.create(action="tests.two", subject_type="accounts.user", subject_id=str(player.pk))
    AuditEntry.objects.bulk_create(
        [AuditEntry(action="tests.three", subject_type="accounts.user", subject_id=str(player.pk))]
    )

    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == [
        "tests.one",
        "tests.two",
        "tests.three",
    ]
    with pytest.raises(AppendOnlyError):
        entry.save()  # once written, it stays as it is


@pytest.mark.django_db
@pytest.mark.parametrize("model", TABLES, ids=lambda model: model.__name__)
@pytest.mark.parametrize(
    "statement", ["UPDATE {table} SET created_at = created_at WHERE id = %s", "DELETE FROM {table} WHERE id = %s"]
)
def test_postgresql_refuses_an_update_or_delete_sent_past_the_orm(rows, model, statement):
    before = snapshot()

    with (
        pytest.raises(IntegrityError, match=f"{TABLES[model]} is append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement.format(table=TABLES[model]), [rows[model].pk])

    assert snapshot() == before


@pytest.mark.django_db(transaction=True)
def test_the_trigger_holds_outside_a_test_transaction_and_the_tables_can_still_be_emptied(deposit, entry):
    """Committed rows, as in production; the teardown then empties the tables with
    TRUNCATE, which the row trigger leaves to the tables' owner."""
    with pytest.raises(IntegrityError, match="append-only"), connection.cursor() as cursor:
        cursor.execute("DELETE FROM wallet_transfer")

    assert Transfer.objects.get() == deposit
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


# The admin


@pytest.fixture
def admin_client(client, admin):
    client.force_login(admin)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("model", TABLES, ids=lambda model: model.__name__)
def test_the_admin_offers_no_change_and_refuses_a_delete_of_a_selection(admin_client, rows, model):
    before = snapshot()
    label = model._meta.label_lower.replace(".", "_")

    listing = admin_client.get(reverse(f"admin:{label}_changelist"))
    deleted = admin_client.post(
        reverse(f"admin:{label}_changelist"),
        {"action": "delete_selected", "_selected_action": [rows[model].pk], "post": "yes"},
    )

    assert listing.status_code == 200
    assert "delete_selected" not in listing.text
    assert deleted.status_code in {200, 302}
    assert snapshot() == before
