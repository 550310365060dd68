"""Writing the audit log (rule 1): who did what to which object, and why."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model

from audit.models import AuditEntry


@dataclass(frozen=True)
class AuditRecord:
    """One row to append: `subject` is the saved object acted on; an anonymous or
    absent `actor` is recorded as nobody."""

    action: str  # dotted: "wallet.transfer.buy_in"
    subject: Model
    actor: AbstractBaseUser | AnonymousUser | None = None
    reason: str = ""
    data: dict = field(default_factory=dict)


def audit_log_many(records: Iterable[AuditRecord]) -> list[AuditEntry]:
    """Append every record in one INSERT, in the caller's transaction."""
    return AuditEntry.objects.bulk_create(
        AuditEntry(
            action=record.action,
            actor_id=record.actor.pk if record.actor is not None and record.actor.is_authenticated else None,
            subject_type=record.subject._meta.label_lower,
            subject_id=str(record.subject.pk),
            reason=record.reason,
            data=record.data,
        )
        for record in records
    )


def audit_log(
    *,
    action: str,
    subject: Model,
    actor: AbstractBaseUser | AnonymousUser | None = None,
    reason: str = "",
    data: dict | None = None,
) -> AuditEntry:
    """Record who did what to which object, in the caller's transaction."""
    (entry,) = audit_log_many([AuditRecord(action, subject, actor, reason, data or {})])
    return entry
