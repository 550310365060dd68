from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from responsible.rules import Period


class LimitPeriod(models.TextChoices):
    DAY = Period.DAY.value, _("Daily")
    WEEK = Period.WEEK.value, _("Weekly")
    MONTH = Period.MONTH.value, _("Monthly")


class DepositLimit(models.Model):
    """A player's deposit limit for a period, in his wallet's currency (responsible.rules)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="deposit_limits")
    period = models.CharField(_("period"), max_length=5, choices=LimitPeriod.choices)
    currency = models.CharField(_("currency"), max_length=3)
    amount = models.PositiveBigIntegerField(_("limit"), null=True, blank=True)
    pending_amount = models.PositiveBigIntegerField(_("pending limit"), null=True, blank=True)
    pending_from = models.DateTimeField(_("pending from"), null=True, blank=True)
    changed_at = models.DateTimeField(_("changed"))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "period"], name="one_deposit_limit_per_period")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.period} {self.amount}"
