from audit.models import AuditEntry


def audit_log(*, action: str, subject, actor=None, reason: str = "", data: dict | None = None) -> AuditEntry:
    """Record who did what to which object, in the caller's transaction."""
    return AuditEntry.objects.create(
        action=action,
        actor=actor if actor is not None and actor.is_authenticated else None,
        subject_type=subject._meta.label_lower,
        subject_id=str(subject.pk),
        reason=reason,
        data=data or {},
    )
