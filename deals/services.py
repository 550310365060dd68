"""The chop workflow of rule 23, mediated by staff: a player at the final table
asks (an urgent support ticket), every player says whether they want to negotiate,
staff stop the clock, proposals are put with the calculators (deals.rules), each
player accepts or rejects, and the deal every player accepted is recorded. Each
entry's agreed amount and what is left to play for are written onto the entries and
the tournament, which the floor pays from (tournaments.services.floor.floor_pay_prizes),
exactly once.

Every service locks the tournament's row first (as the floor does for a hand), so
a negotiation and the hands at the table never cross.
"""

from datetime import datetime
from typing import TYPE_CHECKING

from audit.services import audit_log
from django.db import transaction
from live.outbox import record
from support.models import Ticket, TicketKind, TicketStatus
from tournaments.events import TournamentChanged
from tournaments.models import UNDER_WAY, Entry, EntryStatus, Table, Tournament
from tournaments.selectors.payouts import tournament_payouts
from tournaments.services.clock import tournament_pause, tournament_resume
from tournaments.services.refusals import REFUSALS, TournamentError, reason_given, refuse
from wallet.models import Currency
from wallet.money import format_money

from deals import rules
from deals.events import NegotiationChanged
from deals.models import (
    ACTIVE,
    Answer,
    Deal,
    Negotiation,
    NegotiationStatus,
    Participant,
    Proposal,
    ProposalKind,
    ProposalStatus,
)

if TYPE_CHECKING:
    from accounts.models import User


def chop_request(*, tournament_id: int, player: "User", now: datetime) -> Negotiation:
    """A player at the final table asks for a deal (rule 23.2): an urgent ticket in
    the staff queue, and every player left asked whether they want to negotiate."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _check_can_deal(tournament)
        entry = _active_entry(tournament, player)
        if Negotiation.objects.filter(tournament=tournament, status__in=ACTIVE).exists():
            raise refuse("already_negotiating")
        ticket = Ticket.objects.create(
            kind=TicketKind.CHOP,
            title=f"URGENT Tournament #{tournament.pk} chop",
            urgent=True,
            tournament=tournament,
            opened_by=player,
        )
        payouts = tournament_payouts(tournament, now=now).places
        left = list(tournament.entries.filter(status=EntryStatus.ACTIVE, finish_best=None))
        negotiation = Negotiation.objects.create(
            tournament=tournament, ticket=ticket, requested_by=entry, prizes=payouts[: len(left)]
        )
        Participant.objects.bulk_create(
            Participant(
                negotiation=negotiation,
                entry=other,
                chips=other.chips,
                wants_to_negotiate=True if other.pk == entry.pk else None,
                answered_at=now if other.pk == entry.pk else None,
            )
            for other in left
        )
        audit_log(action="deals.requested", subject=negotiation, actor=player, data={"ticket": ticket.pk})
        _changed(negotiation)
        return negotiation


def chop_claim(*, negotiation_id: int, staff: "User", now: datetime) -> Negotiation:
    """A staff member takes the ticket and mediates; claiming it again does nothing."""
    with transaction.atomic():
        negotiation = _negotiation(negotiation_id)
        ticket = negotiation.ticket
        if ticket.claimed_by_id == staff.pk:
            return negotiation  # claimed already: a repeated click
        if ticket.claimed_by_id:
            raise refuse("claimed_by_other")
        ticket.claimed_by, ticket.claimed_at, ticket.status = staff, now, TicketStatus.CLAIMED
        ticket.save(update_fields=["claimed_by", "claimed_at", "status"])
        audit_log(action="deals.claimed", subject=negotiation, actor=staff)
        _changed(negotiation)
        return negotiation


def chop_consent(*, negotiation_id: int, player: "User", wants: bool, now: datetime) -> Negotiation:
    """A player says whether they want to negotiate (rule 23.3). One no ends it.
    Saying what they said already does nothing."""
    with transaction.atomic():
        negotiation = _negotiation(negotiation_id, closed=True)
        participant = _participant(negotiation, player)
        if participant.wants_to_negotiate is wants:
            return negotiation
        if negotiation.status not in ACTIVE:
            raise refuse("negotiation_closed")
        participant.wants_to_negotiate, participant.answered_at = wants, now
        participant.save(update_fields=["wants_to_negotiate", "answered_at"])
        audit_log(action="deals.consent", subject=negotiation, actor=player, data={"wants": wants})
        if not wants:
            _end(negotiation, now=now, reason=f"{player.screen_name} does not want to negotiate.", actor=player)
        _changed(negotiation)
        return negotiation


def chop_stop_clock(*, negotiation_id: int, staff: "User", now: datetime) -> Negotiation:
    """Every player wants to negotiate: the clock stops (rules 17, 23.3); tables
    finish their hands and deal no new one; pages say a deal is in progress.
    Stopping it again does nothing."""
    with transaction.atomic():
        negotiation = _negotiation(negotiation_id, staff=staff)
        if negotiation.status == NegotiationStatus.NEGOTIATING:
            return negotiation  # stopped already: a repeated click
        if negotiation.participants.exclude(wants_to_negotiate=True).exists():
            raise refuse("not_all_agreed")
        if _current(negotiation, now) is not None:
            return _stop_clock(negotiation, staff, now)
    raise refuse("players_changed")


def _stop_clock(negotiation: Negotiation, staff: "User", now: datetime) -> Negotiation:
    tournament = negotiation.tournament
    if tournament.paused_at is None:
        try:
            tournament_pause(
                tournament_id=tournament.pk, actor=staff, reason=f"Deal in progress ({negotiation.ticket})", now=now
            )
        except TournamentError as error:
            raise refuse("clock", reason=error.message) from error
    Tournament.objects.filter(pk=tournament.pk).update(deal_in_progress=True)
    negotiation.status, negotiation.clock_stopped_at = NegotiationStatus.NEGOTIATING, now
    negotiation.save(update_fields=["status", "clock_stopped_at"])
    audit_log(action="deals.clock_stopped", subject=negotiation, actor=staff)
    record(TournamentChanged(tournament.pk))
    _changed(negotiation)
    return negotiation


def proposal_create(
    *,
    negotiation_id: int,
    author: "User",
    kind: str,
    now: datetime,
    play_for: int | None = None,
    amounts: dict[int, int] | None = None,
) -> Proposal:
    """A proposal (rule 23.5): staff prepare ICM, chip-count, equal or custom
    amounts; a player may put custom amounts, which are her acceptance of them.
    `play_for` defaults to the event's amount left for the winner. It replaces the
    proposal open before it; the same proposal by the same author again does nothing."""
    with transaction.atomic():
        negotiation = _negotiation(negotiation_id)
        if negotiation.status != NegotiationStatus.NEGOTIATING:
            raise refuse("clock_running")
        if author.is_staff:
            _check_mediator(negotiation, author)
        else:
            _participant(negotiation, author)
        participants = _current(negotiation, now)
        if participants is None:
            proposal = None
        else:
            proposal = _propose(negotiation, author, kind, participants, play_for=play_for, amounts=amounts, now=now)
    if proposal is None:
        raise refuse("players_changed")
    return proposal


def _propose(
    negotiation: Negotiation,
    author: "User",
    kind: str,
    participants: list[Participant],
    *,
    play_for: int | None,
    amounts: dict[int, int] | None,
    now: datetime,
) -> Proposal:
    play_for = negotiation.tournament.deal_leave_for_winner if play_for is None else play_for
    stacks = [p.entry.chips for p in participants]
    prizes = negotiation.prizes
    try:
        rules.check_room_minimum(play_for, negotiation.tournament.deal_leave_for_winner)
        if kind == ProposalKind.CUSTOM:
            shares = [int((amounts or {}).get(p.entry_id, -1)) for p in participants]
            if any(share < 0 for share in shares):
                raise ValueError("every player needs an amount of 0 or more")
            rules.check_custom(shares, prizes, play_for)
        else:
            split = {
                ProposalKind.ICM: rules.icm_split,
                ProposalKind.CHIP_CHOP: rules.chip_chop,
                ProposalKind.EQUAL: rules.equal_split,
            }[ProposalKind(kind)]
            shares = split(stacks, prizes, play_for)
    except rules.AmountsDoNotAddUp as error:
        raise _does_not_add_up(error, negotiation.tournament.pool_currency) from error
    except (ValueError, KeyError) as error:
        raise refuse("bad_amounts", reason=str(error)) from error
    amounts_by_entry = {str(p.entry_id): share for p, share in zip(participants, shares, strict=True)}
    repeat = negotiation.proposals.filter(status=ProposalStatus.OPEN, created_by=author, kind=kind).first()
    if repeat is not None and (repeat.play_for, repeat.amounts) == (play_for, amounts_by_entry):
        return repeat  # the same proposal, put again: a repeated click
    negotiation.proposals.filter(status=ProposalStatus.OPEN).update(
        status=ProposalStatus.WITHDRAWN, closed_at=now, close_reason="A new proposal replaced it."
    )
    proposal = Proposal.objects.create(
        negotiation=negotiation, kind=kind, play_for=play_for, amounts=amounts_by_entry, created_by=author
    )
    # A player's own amounts are her acceptance (rule 23.6: she said so on her screen).
    own = next((p for p in participants if p.entry.player_id == author.pk), None)
    if own is not None:
        Answer.objects.create(proposal=proposal, entry=own.entry, accepted=True, answered_at=now)
    audit_log(
        action="deals.proposed",
        subject=negotiation,
        actor=author,
        data={
            "proposal": proposal.pk,
            "kind": kind,
            "play_for": play_for,
            "amounts": proposal.amounts,
            "accepted_by_author": own is not None,
        },
    )
    _changed(negotiation)
    return proposal


def proposal_withdraw(*, proposal_id: int, staff: "User", reason: str, now: datetime) -> Proposal:
    """Staff withdraw a proposal, for instance one too lopsided to accept (rules 1, 20)."""
    reason = reason_given(reason)
    with transaction.atomic():
        proposal = Proposal.objects.select_related("negotiation").get(pk=proposal_id)
        negotiation = _negotiation(proposal.negotiation_id, staff=staff)
        proposal.refresh_from_db()
        if proposal.status != ProposalStatus.OPEN:
            raise refuse("not_open")
        proposal.status, proposal.closed_at, proposal.close_reason = ProposalStatus.WITHDRAWN, now, reason
        proposal.save(update_fields=["status", "closed_at", "close_reason"])
        audit_log(action="deals.withdrawn", subject=negotiation, actor=staff, reason=reason)
        _changed(negotiation)
        return proposal


def proposal_answer(*, proposal_id: int, player: "User", accept: bool, now: datetime) -> Proposal:
    """A player accepts or rejects a proposal on their own screen (rule 23.6). A
    rejection closes it; when every player has accepted, the deal is made. The
    answer they gave already, given again, does nothing."""
    with transaction.atomic():
        proposal = Proposal.objects.get(pk=proposal_id)
        negotiation = _negotiation(proposal.negotiation_id, closed=True)
        proposal.refresh_from_db()
        if proposal.answers.filter(entry__player=player, accepted=accept).exists():
            return proposal
        if negotiation.status not in ACTIVE:
            raise refuse("negotiation_closed")
        if proposal.status != ProposalStatus.OPEN:
            raise refuse("not_open")
        participant = _participant(negotiation, player)
        participants = _current(negotiation, now)
        if participants is not None:
            _answer(negotiation, proposal, participant, participants, player=player, accept=accept, now=now)
    if participants is None:  # refused once what _current closed is kept
        raise refuse("players_changed")
    return proposal


def _does_not_add_up(error: rules.AmountsDoNotAddUp, currency: str) -> TournamentError:
    """The sum refused, in the event's money and the viewer's language."""
    gap = error.proposed - error.to_share
    return refuse(
        "amounts_too_much" if gap > 0 else "amounts_short",
        proposed=format_money(error.proposed, currency),
        to_share=format_money(error.to_share, currency),
        prizes=format_money(error.prizes, currency),
        play_for=format_money(error.play_for, currency),
        gap=format_money(abs(gap), currency),
    )


def _answer(
    negotiation: Negotiation,
    proposal: Proposal,
    participant: Participant,
    participants: list[Participant],
    *,
    player: "User",
    accept: bool,
    now: datetime,
) -> None:
    Answer.objects.update_or_create(
        proposal=proposal, entry=participant.entry, defaults={"accepted": accept, "answered_at": now}
    )
    audit_log(
        action="deals.answered", subject=negotiation, actor=player, data={"proposal": proposal.pk, "accept": accept}
    )
    if not accept:
        proposal.status, proposal.closed_at = ProposalStatus.REJECTED, now
        proposal.close_reason = f"Rejected by {player.screen_name}."
        proposal.save(update_fields=["status", "closed_at", "close_reason"])
    elif proposal.answers.filter(accepted=True).count() == len(participants):
        _agree(negotiation, proposal, now)
    _changed(negotiation)


def negotiation_end(*, negotiation_id: int, staff: "User", reason: str, now: datetime) -> Negotiation:
    """Staff end the negotiation without a deal; the clock goes again."""
    reason = reason_given(reason)
    with transaction.atomic():
        negotiation = _negotiation(negotiation_id, staff=staff)
        _end(negotiation, now=now, reason=reason, actor=staff)
        _changed(negotiation)
        return negotiation


# Inside


def _agree(negotiation: Negotiation, proposal: Proposal, now: datetime) -> None:
    """The deal (rule 23.1): recorded with who, how much, what is left to play for,
    the staff member and when; the clock goes again; play continues for the rest."""
    proposal.status, proposal.closed_at = ProposalStatus.ACCEPTED, now
    proposal.save(update_fields=["status", "closed_at"])
    ticket = negotiation.ticket
    deal = Deal.objects.create(
        negotiation=negotiation,
        tournament=negotiation.tournament,
        proposal=proposal,
        amounts=proposal.amounts,
        play_for=proposal.play_for,
        staff=ticket.claimed_by,
        agreed_at=now,
    )
    # The tournament's own copy, which the floor pays from (tournaments never reads deals).
    entries = list(Entry.objects.filter(tournament=negotiation.tournament, pk__in=map(int, proposal.amounts)))
    for entry in entries:
        entry.deal_amount = proposal.amounts[str(entry.pk)]
    Entry.objects.bulk_update(entries, ["deal_amount"])
    Tournament.objects.filter(pk=negotiation.tournament_id).update(deal_play_for=proposal.play_for)
    audit_log(
        action="deals.agreed",
        subject=negotiation,
        actor=ticket.claimed_by,
        data={"deal": deal.pk, "amounts": deal.amounts, "play_for": deal.play_for, "at": now.isoformat()},
    )
    _close(negotiation, NegotiationStatus.AGREED, now=now, reason="", actor=ticket.claimed_by)


def _end(negotiation: Negotiation, *, now: datetime, reason: str, actor: "User | None") -> None:
    negotiation.proposals.filter(status=ProposalStatus.OPEN).update(
        status=ProposalStatus.WITHDRAWN, closed_at=now, close_reason="The negotiation ended."
    )
    audit_log(action="deals.ended", subject=negotiation, actor=actor, reason=reason)
    _close(negotiation, NegotiationStatus.ENDED, now=now, reason=reason, actor=actor)


def _close(negotiation: Negotiation, status: str, *, now: datetime, reason: str, actor: "User | None") -> None:
    """The negotiation is over: its ticket closes and a clock it stopped goes again."""
    negotiation.status, negotiation.ended_at, negotiation.end_reason = status, now, reason
    negotiation.save(update_fields=["status", "ended_at", "end_reason"])
    Ticket.objects.filter(pk=negotiation.ticket_id).update(status=TicketStatus.CLOSED, closed_at=now)
    tournament = negotiation.tournament
    Tournament.objects.filter(pk=tournament.pk).update(deal_in_progress=False)
    tournament.refresh_from_db()
    if negotiation.clock_stopped_at is not None and tournament.paused_at is not None:
        tournament_resume(tournament_id=tournament.pk, actor=actor, now=now)
    record(TournamentChanged(tournament.pk))


def _current(negotiation: Negotiation, now: datetime) -> list[Participant] | None:
    """The participants, who must still be every player left (rule 23.7): a player
    out since the request ends the negotiation (None; the caller commits that,
    then refuses)."""
    participants = list(negotiation.participants.select_related("entry"))
    left = set(
        negotiation.tournament.entries.filter(status=EntryStatus.ACTIVE, finish_best=None).values_list("pk", flat=True)
    )
    if {p.entry_id for p in participants} != left:
        _end(negotiation, now=now, reason=str(REFUSALS["players_changed"]), actor=None)
        _changed(negotiation)
        return None
    return participants


def _check_can_deal(tournament: Tournament) -> None:
    if tournament.status not in UNDER_WAY or tournament.started_at is None:
        raise refuse("not_in_play")
    if not tournament.deals_allowed:
        raise refuse("deals_disallowed")
    if tournament.pool_currency == Currency.TMONEY:
        raise refuse("not_real_money")
    if Deal.objects.filter(tournament=tournament).exists():
        raise refuse("already_dealt")
    if Table.objects.filter(tournament=tournament, broken_at=None).count() > 1:
        raise refuse("heads_up" if tournament.heads_up else "not_final_table")
    if tournament.payouts_locked_at is None:
        raise refuse("payouts_provisional")


def _active_entry(tournament: Tournament, player: "User") -> Entry:
    entry = tournament.entries.filter(player=player, status=EntryStatus.ACTIVE, finish_best=None).first()
    if entry is None:
        raise refuse("not_at_table")
    return entry


def _participant(negotiation: Negotiation, player: "User") -> Participant:
    participant = negotiation.participants.select_related("entry").filter(entry__player=player).first()
    if participant is None or participant.entry.status != EntryStatus.ACTIVE or participant.entry.finish_best:
        raise refuse("not_at_table")
    return participant


def _check_mediator(negotiation: Negotiation, staff: "User") -> None:
    claimed_by = negotiation.ticket.claimed_by_id
    if claimed_by is None:
        raise refuse("not_claimed")
    if claimed_by != staff.pk:
        raise refuse("claimed_by_other")


def _negotiation(negotiation_id: int, *, staff: "User | None" = None, closed: bool = False) -> Negotiation:
    """The negotiation, open (or also `closed`), under its tournament's row lock;
    with `staff`, only for the staff member who claimed its ticket."""
    tournament_id = Negotiation.objects.values_list("tournament_id", flat=True).get(pk=negotiation_id)
    _locked(tournament_id)
    negotiation = Negotiation.objects.select_related("tournament", "ticket").get(pk=negotiation_id)
    if negotiation.status not in ACTIVE and not closed:
        raise refuse("negotiation_closed")
    if staff is not None:
        _check_mediator(negotiation, staff)
    return negotiation


def _locked(tournament_id: int) -> Tournament:
    return Tournament.objects.locked().get(pk=tournament_id)


def _changed(negotiation: Negotiation) -> None:
    record(NegotiationChanged(negotiation.pk))
