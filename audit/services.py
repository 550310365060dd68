from django.utils import timezone

from audit.models import AuditEntry
from config.sql import rows_insert

FIELDS = ("action", "actor", "subject_type", "subject_id", "reason", "data", "created_at")


def audit_log(*, action: str, subject, actor=None, reason: str = "", data: dict | None = None) -> AuditEntry:
    """Record who did what to which object, in the caller's transaction."""
    entry = AuditEntry(
        action=action,
        actor=actor if actor is not None and actor.is_authenticated else None,
        subject_type=subject._meta.label_lower,
        subject_id=str(subject.pk),
        reason=reason,
        data=data or {},
        created_at=timezone.now(),
    )
    # Written out: the clock writes several a transition, and create() cost more than the clock's own work.
    ((entry.pk, _at),) = rows_insert([entry], FIELDS, returning="created_at")
    entry._state.adding = False
    return entry
