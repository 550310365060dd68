"""The staff queue: tickets of every kind (a chop request is the first), claimed
and closed by staff."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class TicketKind(models.TextChoices):
    CHOP = "chop", _("Deal (chop) request")


class TicketStatus(models.TextChoices):
    OPEN = "open", _("Open")
    CLAIMED = "claimed", _("Claimed")
    CLOSED = "closed", _("Closed")


class Ticket(models.Model):
    kind = models.CharField(_("kind"), max_length=16, choices=TicketKind.choices)
    title = models.CharField(_("title"), max_length=200)
    urgent = models.BooleanField(_("urgent"), default=False)
    status = models.CharField(_("status"), max_length=10, choices=TicketStatus.choices, default=TicketStatus.OPEN)
    tournament = models.ForeignKey(
        "tournaments.Tournament", null=True, blank=True, on_delete=models.PROTECT, related_name="tickets"
    )
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tickets_opened")
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="tickets_claimed"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-urgent", "created_at"]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return self.title
