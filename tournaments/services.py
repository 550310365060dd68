"""Use cases that change tournaments. Each owns its transaction and row locks."""

from datetime import datetime

from django.db import transaction

from audit.services import audit_log
from tournaments.models import EntryStatus, Purchase, Status, Tournament
from tournaments.rules.lifecycle import status_at
from tournaments.selectors import addon_window, rebuy_period_ends_at, tournament_deadlines, tournament_schedule
from wallet.models import TicketStatus
from wallet.tickets import ticket_consume


class TournamentError(Exception):
    """A request the rules refuse; the message is for a person."""

    def __init__(self, message: str, code: str = "refused"):
        super().__init__(message)
        self.message = message
        self.code = code


def tournament_save(*, tournament: Tournament, actor, changed: list[str], created: bool) -> Tournament:
    """Store an admin's edit of an event and audit it (rule 3: parameters may change)."""
    with transaction.atomic():
        tournament.save()
        audit_log(
            action="tournaments.tournament.created" if created else "tournaments.tournament.changed",
            subject=tournament,
            actor=actor,
            data={"fields": changed},
        )
    return tournament


def tournament_clone(*, tournament: Tournament, actor, start: datetime) -> Tournament:
    """A copy of an event at a new start time, with no entries (recurring events)."""
    with transaction.atomic():
        clone = Tournament.objects.get(pk=tournament.pk)
        clone.pk = None
        clone.id = None
        clone.status = Status.ANNOUNCED
        clone.entries_count = 0
        clone.prize_contributions = 0
        shift = start - tournament.scheduled_start
        clone.scheduled_start = start
        if tournament.registration_opens_at is not None:
            clone.registration_opens_at = tournament.registration_opens_at + shift
        clone._state.adding = True
        clone.save()
        audit_log(action="tournaments.tournament.cloned", subject=clone, actor=actor, data={"from": tournament.pk})
    return clone


def tournament_advance(*, tournament_id: int, now: datetime) -> str:
    """Apply everything the clock says is due (rules 2, 7, 9, 17).

    Idempotent: under the tournament's row lock it compares what is stored with what
    is due at `now` and writes only changes, each with an audit row. At the start it
    records the start, closes late registration if every seat is taken (rule 9) and
    spends reserved tickets; once registration and rebuys are over it locks the
    payouts (rule 7).
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().select_related("blind_structure").get(pk=tournament_id)
        if tournament.status in (Status.FINISHED, Status.CANCELLED):
            return tournament.status
        schedule = tournament_schedule(tournament)
        changed: list[str] = []
        if now >= tournament.scheduled_start and tournament.started_at is None:
            _start(tournament)
            changed += ["started_at", "late_registration_closed_at"]
        late_closes = tournament_deadlines(tournament).late_registration_closes_at
        if tournament.late_registration_closed_at is not None:
            late_closes = min(late_closes, tournament.late_registration_closed_at)
        due = status_at(
            now=now,
            current=tournament.status,
            start=tournament.scheduled_start,
            registration_opens_at=tournament.registration_opens_at,
            late_registration_closes_at=late_closes,
            late_registration_open=True,
            schedule=schedule,
        )
        if due != tournament.status:
            audit_log(
                action="tournaments.tournament.status",
                subject=tournament,
                data={"from": tournament.status, "to": due, "at": now.isoformat()},
            )
            tournament.status = due
            changed.append("status")
        rebuys_end = max(
            (t for t in (rebuy_period_ends_at(tournament, schedule), addon_window(tournament, schedule)[1]) if t),
            default=None,
        )
        if (
            tournament.payouts_locked_at is None
            and tournament.started_at is not None
            and now >= late_closes
            and (rebuys_end is None or now >= rebuys_end)
        ):
            tournament.payouts_locked_at = now
            changed.append("payouts_locked_at")
            audit_log(action="tournaments.tournament.payouts_locked", subject=tournament, data={"at": now.isoformat()})
        if changed:
            tournament.save(update_fields=[*changed, "updated_at"])
        return tournament.status


def _start(tournament: Tournament) -> None:
    tournament.started_at = tournament.scheduled_start
    if tournament.entries_count >= tournament.max_entrants:
        # Every seat was filled at the start: late registration closes at once (rule 9).
        tournament.late_registration_closed_at = tournament.scheduled_start
    tickets = Purchase.objects.filter(
        entry__tournament=tournament, entry__status=EntryStatus.ACTIVE, ticket__status=TicketStatus.RESERVED
    ).values_list("ticket_id", flat=True)
    for ticket_id in tickets:
        ticket_consume(ticket_id=ticket_id)
    audit_log(action="tournaments.tournament.started", subject=tournament, data={"entries": tournament.entries_count})
