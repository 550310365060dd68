"""What the deal pages show (rule 23)."""

from dataclasses import dataclass

from tournaments.models import EntryStatus

from deals import rules
from deals.models import ACTIVE, Negotiation, Proposal, ProposalStatus


@dataclass(frozen=True)
class ProposalLine:
    entry_id: int
    player: str
    chips: int
    amount: int
    icm: int
    chip_chop: int
    answer: bool | None  # accepted, rejected, not yet


def active_negotiation(tournament_id: int) -> Negotiation | None:
    return (
        Negotiation.objects.select_related("ticket", "ticket__claimed_by")
        .filter(tournament_id=tournament_id, status__in=ACTIVE)
        .first()
    )


def proposal_lines(proposal: Proposal) -> list[ProposalLine]:
    """Each player's amount beside what ICM and a chip chop give, at today's stacks."""
    participants = list(
        proposal.negotiation.participants.select_related("entry__player").order_by("-entry__chips", "entry_id")
    )
    stacks = [p.entry.chips if p.entry.status == EntryStatus.ACTIVE else 0 for p in participants]
    amounts = [proposal.amounts.get(str(p.entry_id), 0) for p in participants]
    prizes = proposal.negotiation.prizes
    try:
        compared = rules.compare(stacks, prizes, proposal.play_for, amounts)
    except ValueError:
        compared = [rules.Comparison(amount, 0, 0) for amount in amounts]
    answers = dict(proposal.answers.values_list("entry_id", "accepted"))
    return [
        ProposalLine(
            p.entry_id,
            p.entry.player.screen_name,
            chips,
            line.amount,
            line.icm,
            line.chip_chop,
            answers.get(p.entry_id),
        )
        for p, chips, line in zip(participants, stacks, compared, strict=True)
    ]


def open_proposal(negotiation: Negotiation) -> Proposal | None:
    return negotiation.proposals.filter(status=ProposalStatus.OPEN).select_related("created_by").first()
