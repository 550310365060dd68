"""The audit log (rule 1), and what makes it and the ledger's journal append-only.

Rows of an append-only model are written once and never changed or removed: the
model and its querysets refuse here, the admin offers no change or delete, and on
PostgreSQL a trigger refuses UPDATE and DELETE for whatever else reaches the table
(audit/migrations/_append_only.py).
"""

from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.db.models.base import ModelBase


class AppendOnlyError(Exception):
    """An attempt to change or remove a row that is append-only (rule 1)."""


def _refused(model: type[models.Model], what: str) -> AppendOnlyError:
    return AppendOnlyError(f"{model._meta.verbose_name_plural} are append-only (rule 1): {what} is refused")


class AppendOnlyQuerySet(models.QuerySet):
    """Reads, creates and bulk creates as usual; updates and deletes are refused."""

    def update(self, **kwargs: object) -> int:
        raise _refused(self.model, "an update")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise _refused(self.model, "a delete")


class AppendOnlyModel(models.Model):
    """A row that is inserted (create, bulk_create, or save() of a new instance) and
    never saved again nor deleted."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(
        self,
        *,
        force_insert: bool | tuple[ModelBase, ...] = False,
        force_update: bool = False,
        using: str | None = None,
        update_fields: Iterable[str] | None = None,
    ) -> None:
        # A primary key means the row may exist already: save() would update it.
        if force_update or update_fields is not None or (self.pk is not None and not force_insert):
            raise _refused(type(self), "saving an existing row")
        super().save(force_insert=True, using=using)

    def delete(self, using: str | None = None, keep_parents: bool = False) -> tuple[int, dict[str, int]]:
        raise _refused(type(self), "a delete")


class AuditEntry(AppendOnlyModel):
    """Append-only record of a staff or admin action or a money movement (rule 1)."""

    action = models.CharField(max_length=64)  # dotted: "wallet.transfer.buy_in"; indexed in Meta
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    subject_type = models.CharField(max_length=32)
    subject_id = models.CharField(max_length=32)
    reason = models.CharField(max_length=300, blank=True, default="")
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name_plural = "audit entries"
        # action's index without the pattern index db_index=True adds on PostgreSQL:
        # every money movement writes a row here.
        indexes = [models.Index(fields=["subject_type", "subject_id"]), models.Index(fields=["action"])]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.action} {self.subject_type}#{self.subject_id}"
