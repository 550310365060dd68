"""A chop negotiation at a final table (rule 23): who takes part and whether they
agreed to negotiate, the proposals staff (or players) put, each player's answer,
and the deal every player accepted."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class NegotiationStatus(models.TextChoices):
    ASKING = "asking", _("Asking the players")
    NEGOTIATING = "negotiating", _("Deal in progress")
    AGREED = "agreed", _("Deal agreed")
    ENDED = "ended", _("Ended without a deal")


ACTIVE = (NegotiationStatus.ASKING, NegotiationStatus.NEGOTIATING)


class Negotiation(models.Model):
    tournament = models.ForeignKey("tournaments.Tournament", on_delete=models.PROTECT, related_name="negotiations")
    ticket = models.OneToOneField("support.Ticket", on_delete=models.PROTECT, related_name="negotiation")
    status = models.CharField(max_length=12, choices=NegotiationStatus.choices, default=NegotiationStatus.ASKING)
    requested_by = models.ForeignKey("tournaments.Entry", on_delete=models.PROTECT, related_name="+")
    # What the remaining places pay (first place first) when the negotiation began.
    prizes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    clock_stopped_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One negotiation at a time per tournament.
            models.UniqueConstraint(
                fields=["tournament"],
                condition=models.Q(status__in=["asking", "negotiating"]),
                name="one_active_negotiation",
            )
        ]

    def __str__(self) -> str:
        return f"Deal negotiation #{self.pk} (tournament #{self.tournament_id})"


class Participant(models.Model):
    """Every player left (rule 23.7), with their stack and their answer to "negotiate?"."""

    negotiation = models.ForeignKey(Negotiation, on_delete=models.CASCADE, related_name="participants")
    entry = models.ForeignKey("tournaments.Entry", on_delete=models.PROTECT, related_name="+")
    chips = models.PositiveBigIntegerField()
    wants_to_negotiate = models.BooleanField(null=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-chips", "entry_id"]
        constraints = [models.UniqueConstraint(fields=["negotiation", "entry"], name="participant_once")]

    def __str__(self) -> str:
        return f"{self.entry} in negotiation #{self.negotiation_id}"


class ProposalKind(models.TextChoices):
    ICM = "icm", _("ICM")
    CHIP_CHOP = "chip_chop", _("Chip-count chop")
    EQUAL = "equal", _("Equal split")
    CUSTOM = "custom", _("Custom amounts")


class ProposalStatus(models.TextChoices):
    OPEN = "open", _("Open")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    REJECTED = "rejected", _("Rejected")
    ACCEPTED = "accepted", _("Accepted by every player")


class Proposal(models.Model):
    negotiation = models.ForeignKey(Negotiation, on_delete=models.CASCADE, related_name="proposals")
    kind = models.CharField(max_length=10, choices=ProposalKind.choices)
    play_for = models.PositiveBigIntegerField(_("left to play for"))
    # {entry id: amount in minor units}; sums exactly to the remaining prizes less play_for.
    amounts = models.JSONField()
    status = models.CharField(max_length=10, choices=ProposalStatus.choices, default=ProposalStatus.OPEN)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    close_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} proposal #{self.pk}"


class Answer(models.Model):
    """A player's explicit accept or reject of a proposal (rule 23.6: chat does not count)."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="answers")
    entry = models.ForeignKey("tournaments.Entry", on_delete=models.PROTECT, related_name="+")
    accepted = models.BooleanField()
    answered_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["proposal", "entry"], name="answer_once")]

    def __str__(self) -> str:
        return f"{'accept' if self.accepted else 'reject'} #{self.proposal_id}"


class Deal(models.Model):
    """The agreed deal (rule 23.1): who, how much, what is left to play for, which
    staff member, when. Paid by the floor as the players finish or at the end."""

    negotiation = models.OneToOneField(Negotiation, on_delete=models.PROTECT, related_name="deal")
    tournament = models.OneToOneField("tournaments.Tournament", on_delete=models.PROTECT, related_name="deal")
    proposal = models.OneToOneField(Proposal, on_delete=models.PROTECT, related_name="deal")
    amounts = models.JSONField()
    play_for = models.PositiveBigIntegerField()
    staff = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    agreed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"Deal in tournament #{self.tournament_id}"

    def amount_for(self, entry_id: int) -> int | None:
        return self.amounts.get(str(entry_id))
