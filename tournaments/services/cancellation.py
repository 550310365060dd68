"""Cancelling and postponing an event (rules 2 and 22; ALGORITHMS C10).

Staff cancel in one of two ways. A rollback gives every entrant back everything
they paid, in the form they paid it, as unregistration does. A roll forward, only
once play has begun, gives each remaining player their fees back and shares out
what is left of the prize pool (tournaments.rules.cancellation). Postponing moves
the start and keeps every registration.
"""

from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from audit.services import audit_log
from live.outbox import record
from tournaments.events import EntryChanged, TournamentChanged
from tournaments.models import ENTERED, Entry, EntryStatus, Hand, HandStatus, Purchase, Status, Tournament
from tournaments.rules.cancellation import roll_forward
from tournaments.rules.payouts import PrizeStructure, payout_table, prize_pool
from tournaments.rules.registration import UNDER_WAY
from tournaments.services.editing import clock_look_now
from tournaments.services.hands import hands_touch
from tournaments.services.prizes import (
    bounty_spec,
    prize_pool_fund,
    prize_pool_spec,
)
from tournaments.services.purchases import fees_refund_plan, plan_legs, purchases_refund
from tournaments.services.refusals import refuse
from wallet.models import Ticket, TicketStatus, TransferReason
from wallet.services import (
    WalletError,
    account_get,
    house_account_spec,
    transfer_create,
    transfers_create,
    wallet_account_spec,
)
from wallet.tickets import ticket_consume, ticket_issue

if TYPE_CHECKING:
    from accounts.models import User

# A ticket given back for one the start had already spent stays usable at least this long.
REPLACEMENT_TICKET_VALIDITY = timedelta(days=30)
# AuditEntry.reason holds this many characters.
REASON_LENGTH = 300


class CancelMode(StrEnum):
    ROLLBACK = "rollback"
    ROLL_FORWARD = "roll_forward"


def has_started(tournament: Tournament) -> bool:
    return tournament.started_at is not None or tournament.status in UNDER_WAY


def tournament_cancel(
    *, tournament_id: int, actor: "User | None", reason: str, now: datetime, mode: str = CancelMode.ROLLBACK
) -> Tournament:
    """Cancel the event for good (rule 22) and compensate its players per `mode`.

    Rollback (before the start always, after it by choice): every entry, active or
    eliminated, is refunded every purchase in the form paid (purchases_refund); reserved
    tickets come back, tickets the start had spent are replaced by a ticket for the
    same buy-in level. Entries become REFUNDED; the pool ends empty.

    Roll forward (after the start only): each ACTIVE player gets their fees and own
    knockout bounty back in the form paid (cash and T-Money as paid, tickets and
    satellite seats as T-Money) and a share of the pool per rules.cancellation; the
    house pays any overlay up to the guarantee first. Eliminated players get
    nothing. The pool ends empty.

    The hands in play are voided (rule 22): the chips counted are every player's at
    their start, as the floor only applies a hand when it is reported.

    Under the tournament's row lock, in one transaction; the status becomes
    CANCELLED with an audit row carrying the reason and mode. Cancelling twice is
    refused.
    """
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    if mode not in set(CancelMode):
        raise refuse("unknown_mode")
    mode = CancelMode(mode)
    try:
        with transaction.atomic():
            tournament = _locked_not_over(tournament_id)
            if mode is CancelMode.ROLL_FORWARD and not has_started(tournament):
                raise refuse("roll_forward_before_start")
            if mode is CancelMode.ROLLBACK:
                data = _roll_back(tournament=tournament, actor=actor, now=now)
            else:
                data = _roll_forward(tournament=tournament, actor=actor, now=now)
            previous = tournament.status
            # Rule 22: the hands in play never end; the chips counted are their start's.
            hands_touch(
                Hand.objects.filter(tournament=tournament, status__in=[HandStatus.PLAYING, HandStatus.FINISHED]),
                status=HandStatus.VOIDED,
                voided_reason=reason[:200],
                to_act=None,
                turn_started_at=None,
                deadline_at=None,
                result=None,
                ended_at=now,
            )
            tournament.status = Status.CANCELLED
            tournament.save(update_fields=["status", "entries_count", "prize_contributions", "updated_at"])
            audit_log(
                action="tournaments.tournament.cancelled",
                subject=tournament,
                actor=actor,
                reason=reason[:REASON_LENGTH],
                data={"mode": str(mode), "from": previous, "at": now.isoformat(), **data},
            )
            record(TournamentChanged(tournament.pk))
            for player_id in set(tournament.entries.values_list("player_id", flat=True)):
                record(EntryChanged(tournament.pk, player_id))
    except WalletError as error:
        # A movement the ledger refuses means the pool and the entries disagree.
        raise refuse("books") from error
    return tournament


def _entered_locked(tournament: Tournament) -> list[Entry]:
    """The event's entries still in it, locked in id order."""
    return list(
        Entry.objects.select_for_update()
        .filter(tournament=tournament, status__in=ENTERED)
        .select_related("player")
        .order_by("pk")
    )


def _roll_back(*, tournament: Tournament, actor: "User | None", now: datetime) -> dict[str, object]:
    entries = _entered_locked(tournament)
    bounties_won = _bounties_top_up(tournament=tournament, entries=entries, actor=actor)
    refunded = 0
    replaced_tickets = []
    for entry in entries:
        spent = list(
            entry.purchases.filter(refunded_at=None, ticket__status=TicketStatus.CONSUMED)
            .select_related("ticket")
            .order_by("pk")
        )
        purchases = purchases_refund(tournament=tournament, entry=entry, now=now, actor=entry.player)
        refunded += sum(purchase.price for purchase in purchases)
        # purchases_refund gives back reserved tickets; the start spent these, so the
        # player gets a new one for the same buy-in level (the form they paid).
        replaced_tickets += [
            _replace_ticket(tournament=tournament, purchase=purchase, actor=actor, now=now).pk for purchase in spent
        ]
        entry.status = EntryStatus.REFUNDED
        entry.ended_at = entry.ended_at or now
        entry.save(update_fields=["status", "ended_at"])
    tournament.entries_count -= len(entries)
    tournament.prize_contributions -= refunded
    _check_pool_empty(tournament)
    return {
        "entries": len(entries),
        "refunded_to_players": refunded,
        "replaced_tickets": replaced_tickets,
        "bounties_won_kept": bounties_won,
    }


def _bounties_top_up(*, tournament: Tournament, entries: list[Entry], actor: "User | None") -> int:
    """Bounties already won stay with their winners (rule 22: nothing paid is taken
    back), and every entrant still gets his own bounty back: the room puts into the
    bounty account what the refunds need beyond what it holds. Returns that."""
    owed = Purchase.objects.filter(entry__in=entries, refunded_at=None).aggregate(owed=Sum("bounty"))["owed"] or 0
    account = account_get(bounty_spec(tournament))
    short = owed - account.balance
    if short > 0:
        transfer_create(
            source=account_get(house_account_spec(account.currency)),
            destination=account,
            amount=short,
            reason=TransferReason.BOUNTY,
            idempotency_key=f"tournament:{tournament.pk}:bounty:top_up",
            actor=actor,
            memo="bounties already won, kept by their winners",
        )
    return max(short, 0)


def _replace_ticket(*, tournament: Tournament, purchase: Purchase, actor: "User | None", now: datetime) -> Ticket:
    spent = purchase.ticket
    assert spent is not None  # a purchase paid with a ticket the start consumed
    return ticket_issue(
        owner=purchase.entry.player,
        # A ticket for any event of this buy-in level: the one it paid for is cancelled.
        value=purchase.price + purchase.fee,
        currency=purchase.currency,
        expires_at=max(spent.expires_at, now + REPLACEMENT_TICKET_VALIDITY),
        actor=actor,
        reason=f"Replaces ticket #{spent.pk}: tournament #{tournament.pk} was cancelled",
    )


def _roll_forward(*, tournament: Tournament, actor: "User | None", now: datetime) -> dict[str, object]:
    entries = _entered_locked(tournament)
    remaining = [entry for entry in entries if entry.status == EntryStatus.ACTIVE]
    if not remaining:
        raise refuse("nobody_left")
    reserved = Purchase.objects.filter(entry__in=entries, ticket__status=TicketStatus.RESERVED)
    for ticket_id in reserved.values_list("ticket_id", flat=True):
        # Play began on these tickets: they are spent, as the start would have done.
        ticket_consume(ticket_id=ticket_id)
    fees = sum(_refund_fees(tournament=tournament, entry=entry, actor=actor) for entry in remaining)
    _return_bounties_won(tournament=tournament, remaining=remaining, actor=actor)
    currency = tournament.pool_currency
    full_pool = prize_pool(contributions=tournament.prize_contributions, guarantee=tournament.guarantee)
    pool_account = prize_pool_fund(tournament, pool=full_pool, actor=actor)
    shares = roll_forward(
        pool=pool_account.balance,
        chips={entry.player_id: entry.chips for entry in remaining},
        payouts=payout_table(
            structure=PrizeStructure(tournament.prize_structure),
            entrants=tournament.entries_count,
            pool=full_pool,
            seat_value=_seat_value(tournament),
        ),
    )
    for entry in remaining:
        share = shares[entry.player_id]
        if share:
            transfer_create(
                source=pool_account,
                destination=account_get(wallet_account_spec(entry.player_id, currency)),
                amount=share,
                reason=TransferReason.PRIZE,
                idempotency_key=f"tournament:{tournament.pk}:roll_forward:{entry.pk}",
                actor=actor,
            )
        entry.status = EntryStatus.REFUNDED
        entry.ended_at = now
        entry.save(update_fields=["status", "ended_at"])
    _check_pool_empty(tournament)
    return {
        "remaining": len(remaining),
        "pool": sum(shares.values()),
        "overlay": full_pool - tournament.prize_contributions,
        "fees_refunded": fees,
        "shares": {str(player): share for player, share in shares.items()},
    }


def _return_bounties_won(*, tournament: Tournament, remaining: list[Entry], actor: "User | None") -> None:
    """Progressive knockout: what knockouts added to a remaining player's head is his,
    paid from the bounty account with his own bounty (refunded with his fees)."""
    account = account_get(bounty_spec(tournament))
    for entry in remaining:
        if entry.bounty_added:
            transfer_create(
                source=account,
                destination=account_get(wallet_account_spec(entry.player_id, account.currency)),
                amount=entry.bounty_added,
                reason=TransferReason.BOUNTY,
                idempotency_key=f"tournament:{tournament.pk}:roll_forward:bounty:{entry.pk}",
                actor=actor,
                memo="bounties won, on his head",
            )


def _refund_fees(*, tournament: Tournament, entry: Entry, actor: "User | None") -> int:
    """Give back the fees and own knockout bounty of every purchase of `entry`
    (fees_refund_plan). Returns the amount."""
    refunded = 0
    for purchase in entry.purchases.filter(refunded_at=None).order_by("pk"):
        plan = fees_refund_plan(purchase)
        refunded += sum(leg.amount for leg in plan if leg.destination.owner_id == entry.player_id)
        transfers_create(legs=plan_legs(plan), idempotency_key_prefix=f"purchase:{purchase.pk}:cancel", actor=actor)
    return refunded


def _seat_value(tournament: Tournament) -> int | None:
    if tournament.satellite_target is None:
        return None
    return tournament.satellite_target.entry_price.total


def _check_pool_empty(tournament: Tournament) -> None:
    pool_account = account_get(prize_pool_spec(tournament))
    if pool_account.balance != 0:
        raise refuse("books")


def tournament_postpone(
    *, tournament_id: int, actor: "User | None", new_start: datetime, reason: str, now: datetime | None = None
) -> Tournament:
    """Move the event's start later, before it starts (rule 2); every registration
    is kept.

    Registration that has not opened yet opens later by the same amount; registration
    already open stays open (moving it would shut out an event that holds entries).
    Under the tournament's row lock, with an audit row of the old and new times.
    """
    now = now or timezone.now()
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    with transaction.atomic():
        tournament = _locked_not_over(tournament_id)
        if has_started(tournament) or now >= tournament.scheduled_start:
            raise refuse("started")
        if new_start <= now:
            raise refuse("start_in_past")
        if new_start <= tournament.scheduled_start:
            raise refuse("start_not_later")
        target = tournament.satellite_target
        if target is not None and new_start >= target.scheduled_start:
            raise refuse("after_target")
        old_start, old_opens = tournament.scheduled_start, tournament.registration_opens_at
        if old_opens is not None and old_opens > now:
            tournament.registration_opens_at = old_opens + (new_start - old_start)
        tournament.postponed_from = tournament.postponed_from or old_start
        tournament.scheduled_start = new_start
        clock_look_now(tournament)
        record(TournamentChanged(tournament.pk))
        tournament.save(
            update_fields=[
                "scheduled_start",
                "registration_opens_at",
                "postponed_from",
                "next_transition_at",
                "tick_at",
                "updated_at",
            ]
        )
        audit_log(
            action="tournaments.tournament.postponed",
            subject=tournament,
            actor=actor,
            reason=reason[:REASON_LENGTH],
            data={
                "from": old_start.isoformat(),
                "to": new_start.isoformat(),
                "registration_opens_from": old_opens.isoformat() if old_opens else None,
                "registration_opens_to": (
                    tournament.registration_opens_at.isoformat() if tournament.registration_opens_at else None
                ),
                "entries": tournament.entries_count,
            },
        )
    return tournament


def _locked_not_over(tournament_id: int) -> Tournament:
    """The tournament under its row lock, refused once cancelled or finished."""
    tournament = Tournament.objects.locked().get(pk=tournament_id)
    if tournament.status == Status.CANCELLED:
        raise refuse("already_cancelled")
    if tournament.status == Status.FINISHED:
        raise refuse("finished")
    return tournament
