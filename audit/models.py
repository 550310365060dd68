from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
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
