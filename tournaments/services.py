"""Use cases that change tournaments. Each owns its transaction and row locks."""

from datetime import datetime

from django.db import IntegrityError, transaction

from audit.services import audit_log
from tournaments.models import BountyKind, Entry, EntryKind, Status, Tournament
from tournaments.rules.lifecycle import status_at
from tournaments.selectors import tournament_deadlines, tournament_schedule
from wallet.models import AccountKind, Currency, TransferReason
from wallet.services import account_get, player_cash_account, player_tmoney_account, transfer_create


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
    """Apply the time-driven status the clock says is due (rules 2, 9, 17).

    Idempotent: under the tournament's row lock it compares the stored status with
    the one due at `now` and writes only a change, with an audit row.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().select_related("blind_structure").get(pk=tournament_id)
        due = status_at(
            now=now,
            current=tournament.status,
            start=tournament.scheduled_start,
            registration_opens_at=tournament.registration_opens_at,
            late_registration_closes_at=tournament_deadlines(tournament).late_registration_closes_at,
            late_registration_open=tournament.entries_count < tournament.max_entrants,
            schedule=tournament_schedule(tournament),
        )
        if due != tournament.status:
            audit_log(
                action="tournaments.tournament.status",
                subject=tournament,
                data={"from": tournament.status, "to": due, "at": now.isoformat()},
            )
            tournament.status = due
            tournament.save(update_fields=["status", "updated_at"])
        return due


def entry_register(*, tournament_id: int, player, now: datetime) -> Entry:
    """Enter `player` in the tournament, paying buy-in and fee from their wallet.

    Under the tournament's row lock: re-checks status, capacity and the one-entry
    rule (rule 9); moves the buy-in to the prize pool and the fee to the house
    through the ledger. A retry of the same registration returns the same entry.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        existing = Entry.objects.filter(tournament=tournament, player=player).first()
        if existing is not None:
            return existing
        if tournament.status not in (Status.REGISTERING, Status.LATE_REGISTRATION):
            raise TournamentError("Registration is not open for this tournament.", "registration_closed")
        if tournament.entries_count >= tournament.max_entrants:
            raise TournamentError("The tournament is full.", "full")
        if tournament.entry_kind == EntryKind.TICKET_ONLY:
            raise TournamentError("This tournament is entered with a ticket.", "ticket_required")
        try:
            entry = Entry.objects.create(tournament=tournament, player=player)
        except IntegrityError as error:
            raise TournamentError("You are already registered.", "already_registered") from error
        _pay_entry(tournament=tournament, entry=entry, player=player)
        tournament.entries_count += 1
        tournament.prize_contributions += tournament.buy_in
        tournament.save(update_fields=["entries_count", "prize_contributions", "updated_at"])
        audit_log(action="tournaments.entry.registered", subject=entry, actor=player)
        return entry


def _pay_entry(*, tournament: Tournament, entry: Entry, player) -> None:
    if tournament.entry_kind == EntryKind.FREEROLL:
        return
    if tournament.entry_kind == EntryKind.TMONEY:
        currency, wallet = Currency.TMONEY, player_tmoney_account(player)
    else:
        currency, wallet = tournament.currency, player_cash_account(player, tournament.currency)
    ref = f"tournament:{tournament.pk}"
    parts = [
        (AccountKind.PRIZE_POOL, TransferReason.BUY_IN, tournament.buy_in),
        (AccountKind.FEES, TransferReason.FEE, tournament.fee),
        # Knockout bounties are paid by every entrant; Team Pro and fixed bounties
        # are put up by the room (rule 27).
        (
            AccountKind.BOUNTIES,
            TransferReason.BOUNTY,
            tournament.bounty_amount if tournament.bounty_kind == BountyKind.KNOCKOUT else 0,
        ),
    ]
    for kind, reason, amount in parts:
        if amount:
            transfer_create(
                source=wallet,
                destination=account_get(kind=kind, currency=currency, ref=ref),
                amount=amount,
                reason=reason,
                idempotency_key=f"entry:{entry.pk}:{reason}",
                actor=player,
            )
