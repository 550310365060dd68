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


class ExclusionKind(models.TextChoices):
    BREAK = "break", _("24-hour break")
    TEMPORARY = "temporary", _("Temporary exclusion")
    PERMANENT = "permanent", _("Permanent exclusion")


class Exclusion(models.Model):
    """A break or self-exclusion the player chose (BEK 1274/2019 section 23): while it
    runs he cannot log in to play, register, rebuy, add on or deposit."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="exclusions")
    kind = models.CharField(_("kind"), max_length=10, choices=ExclusionKind.choices)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"), null=True, blank=True)  # None: permanent
    # Staff lift a lock set by mistake (responsible.exclusions.exclusion_lift), with a reason.
    lifted_at = models.DateTimeField(_("lifted"), null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    lift_reason = models.TextField(_("reason for lifting"), blank=True)
    # A permanent exclusion closes the account: its national identity number moves
    # here, so that a new account may take it only once the year is over.
    national_id = models.CharField(_("national identity number"), max_length=16, blank=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["player", "starts_at"])]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind} until {self.ends_at}"


class LocalRegisterEntry(models.Model):
    """The local register of excluded players (responsible.register.LocalRegister),
    for the demo and the tests, edited by staff in the admin: a person it holds is
    excluded until `excluded_until` (empty: for good)."""

    national_id = models.CharField(_("national identity number"), max_length=16, unique=True)
    excluded_until = models.DateTimeField(_("excluded until"), null=True, blank=True)

    class Meta:
        verbose_name = _("local register entry")
        verbose_name_plural = _("local register")

    def __str__(self) -> str:
        return self.national_id


class PlayerSession(models.Model):
    """A signed-in browser session of a player's, so that a break or exclusion can
    end every one of them at once (responsible.exclusions)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_key = models.CharField(max_length=40, unique=True)
    started_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.player_id} since {self.started_at}"
