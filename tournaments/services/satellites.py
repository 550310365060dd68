"""Satellite results: seats in the target event (rules 10, 11).

A satellite's pool pays whole seats of the target's entry price, and what is left
over (less than a seat) to the next finisher. A seat is an entry in the target,
paid from the satellite's prize pool, when the target takes registrations now
(before the start, or in late registration: rule 10's satellites that finish
after their target started, seated by the floor as any late entrant); otherwise
it is a ticket worth the seat. Refunds of a seat entry go back as T-Money, never
cash (purchases_refund, rule 10).

Ending a satellite when only the seat winners are left (rule 11) is the floor
engine's decision; what follows it (tournaments.services.clock.tournament_follow_up)
calls satellite_award_seats with the finishing order.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction

from audit.models import AuditEntry
from audit.services import audit_log
from live.outbox import record
from tournaments.events import TournamentChanged
from tournaments.models import ENTERED, Entry, PaymentForm, Status, Tournament
from tournaments.rules.payouts import PrizeStructure, payout_table, prize_pool
from tournaments.rules.registration import LIVE_BEFORE_START
from tournaments.selectors.entries import entry_refusal
from tournaments.services.entries import entry_record, entry_settle
from tournaments.services.prizes import prize_pool_fund, prize_pool_spec
from tournaments.services.refusals import refuse
from wallet.models import Account, TransferReason
from wallet.services import (
    account_get,
    account_spec,
    house_account_spec,
    transfer_create,
    wallet_account_spec,
)
from wallet.tickets import ticket_issue

if TYPE_CHECKING:
    from accounts.models import User

AWARDED = "tournaments.satellite.seats_awarded"
# A seat won as a ticket can be used for this long.
SEAT_TICKET_VALIDITY = timedelta(days=90)


@dataclass(frozen=True)
class SeatAward:
    """What a satellite's result gave: seats as entries or tickets, and the remainder."""

    seat_value: int
    # {"player", "entry" or "ticket"} per seat, in finishing order
    seats: list[dict[str, int]] = field(default_factory=list)
    remainder: int = 0
    remainder_to: int | None = None

    def as_data(self) -> dict[str, object]:
        return {
            "seat_value": self.seat_value,
            "seats": self.seats,
            "remainder": self.remainder,
            "remainder_to": self.remainder_to,
        }


def seat_value(target: Tournament) -> int:
    """What one seat in `target` costs: its buy-in, fee and knockout bounty."""
    return target.entry_price.total


def satellite_award_seats(*, satellite_id: int, finishers: list[int], actor: "User | None", now: datetime) -> SeatAward:
    """Turn the satellite's result into seats (rule 10): its top N finishers each get
    an entry in the target (or a ticket for it), the next one the remainder as cash.

    `finishers` are user ids, winner first; at least as many as places paid. N is
    the number of whole seats the pool pays (payout_table SATELLITE, the guarantee
    and guaranteed seats included: the house pays the overlay). A finisher already
    in the target, or a target that takes no registration now, gets a ticket worth
    the seat instead: for the target if it has not started, else for its buy-in
    level. The satellite is FINISHED afterwards.

    Locks the satellite and the target rows (in id order) in one transaction; every
    movement goes through the ledger and the pool ends empty. Idempotent: awarding
    the same satellite again returns the first award and moves nothing.
    """
    with transaction.atomic():
        target_id = Tournament.objects.filter(pk=satellite_id).values_list("satellite_target_id", flat=True).get()
        if target_id is None:
            raise refuse("not_a_satellite")
        locked = {
            tournament.pk: tournament
            for tournament in Tournament.objects.locked().filter(pk__in=[satellite_id, target_id]).order_by("pk")
        }
        satellite, target = locked[satellite_id], locked[target_id]
        earlier = AuditEntry.objects.filter(
            action=AWARDED, subject_type=satellite._meta.label_lower, subject_id=str(satellite.pk)
        ).first()
        if earlier is not None:
            return SeatAward(**earlier.data)
        _check_can_award(satellite, target)
        value = seat_value(target)
        if value == 0:
            raise refuse("free_target")

        pool = max(
            prize_pool(contributions=satellite.prize_contributions, guarantee=satellite.guarantee),
            satellite.satellite_seats * value,
        )
        table = payout_table(
            structure=PrizeStructure.SATELLITE, entrants=max(satellite.entries_count, 1), pool=pool, seat_value=value
        )
        seats = sum(1 for prize in table if prize == value)
        remainder = pool - seats * value
        players = _finishers(satellite, finishers, places=len(table))
        pool_account = _fund_pool(satellite, pool=pool, actor=actor)

        seating = _Seating(satellite, target, pool_account, actor, now)
        awarded = [seating.award(player) for player in players[:seats]]
        remainder_to = None
        if remainder:
            remainder_to = players[seats]
            transfer_create(
                source=pool_account,
                destination=account_get(wallet_account_spec(remainder_to.pk, pool_account.currency)),
                amount=remainder,
                reason=TransferReason.PRIZE,
                idempotency_key=f"satellite:{satellite.pk}:remainder",
                actor=actor,
                memo="satellite: the remainder after whole seats",
            )
        pool_account.refresh_from_db()
        if pool_account.balance != 0:
            raise refuse("books")
        if satellite.status != Status.FINISHED:
            audit_log(
                action="tournaments.tournament.status",
                subject=satellite,
                actor=actor,
                data={"from": satellite.status, "to": Status.FINISHED, "at": now.isoformat()},
            )
            satellite.status = Status.FINISHED
            satellite.save(update_fields=["status", "updated_at"])
        award = SeatAward(
            seat_value=value,
            seats=awarded,
            remainder=remainder,
            remainder_to=remainder_to.pk if remainder_to else None,
        )
        audit_log(action=AWARDED, subject=satellite, actor=actor, data=award.as_data())
        for event in (satellite, target):
            record(TournamentChanged(event.pk))
        return award


def _check_can_award(satellite: Tournament, target: Tournament) -> None:
    if satellite.prize_structure != PrizeStructure.SATELLITE:
        raise refuse("not_seats")
    if satellite.status == Status.CANCELLED:
        raise refuse("cancelled")
    if satellite.started_at is None and satellite.status in LIVE_BEFORE_START:
        raise refuse("not_started")


def _finishers(satellite: Tournament, finishers: list[int], *, places: int) -> list["User"]:
    """The finishers' users in finishing order, each an entrant of the satellite."""
    if len(set(finishers)) != len(finishers):
        raise refuse("not_entrants")
    if len(finishers) < places:
        raise refuse("too_few_finishers", places=places)
    named = finishers[:places]
    entrants = set(
        Entry.objects.filter(tournament=satellite, player_id__in=named, status__in=ENTERED).values_list(
            "player_id", flat=True
        )
    )
    if entrants != set(named):
        raise refuse("not_entrants")
    users = get_user_model().objects.in_bulk(named)
    return [users[player_id] for player_id in named]


def _fund_pool(satellite: Tournament, *, pool: int, actor: "User | None") -> Account:
    """The satellite's pool account holding `pool`, once its books are checked."""
    if account_get(prize_pool_spec(satellite)).balance != satellite.prize_contributions:
        raise refuse("books")
    return prize_pool_fund(satellite, pool=pool, actor=actor)


@dataclass(frozen=True)
class _Seating:
    """One award's seats: what each is paid from, by whom, when."""

    satellite: Tournament
    target: Tournament
    pool_account: Account
    actor: "User | None"
    now: datetime

    def award(self, player: "User") -> dict[str, int]:
        """An entry in the target, or a ticket when the player cannot enter it now."""
        already_in = Entry.objects.filter(tournament=self.target, player=player, status__in=ENTERED).exists()
        if already_in or entry_refusal(self.target, now=self.now):
            return self._ticket(player)
        return self._entry(player)

    def _entry(self, player: "User") -> dict[str, int]:
        """An entry in the target, made as a registration makes it (entry_record and,
        under the target's lock already held, entry_settle: a late entrant seated at a
        table), paid as a satellite seat from the satellite's pool."""
        recorded = entry_record(
            tournament=self.target,
            player=player,
            now=self.now,
            form=PaymentForm.SEAT,
            idempotency_key=f"seat:{self.satellite.pk}:{player.pk}",
            payer=account_spec(self.pool_account),
            won_in=self.satellite,
        )
        receipt = entry_settle(self.target, recorded, now=self.now)
        return {"player": player.pk, "entry": receipt.entry.pk}

    def _ticket(self, player: "User") -> dict[str, int]:
        """A ticket worth the seat: the satellite's pool pays the house, which pays the
        entry when the ticket is used. For the target while it has not started, else
        for any event of the target's buy-in level."""
        price = self.target.entry_price
        transfer_create(
            source=self.pool_account,
            destination=account_get(house_account_spec(self.pool_account.currency)),
            amount=price.total,
            reason=TransferReason.PRIZE,
            idempotency_key=f"satellite:{self.satellite.pk}:ticket:{player.pk}",
            actor=self.actor,
            memo=f"satellite seat as a ticket for tournament #{self.target.pk}",
        )
        target = self.target
        for_target = (
            target.status in LIVE_BEFORE_START and target.started_at is None and self.now < target.scheduled_start
        )
        ticket = ticket_issue(
            owner=player,
            # A ticket covers the buy-in and fee (wallet.Ticket); the house adds the bounty.
            value=price.ticket_value,
            currency=target.pool_currency,
            expires_at=self.now + SEAT_TICKET_VALIDITY,
            actor=self.actor,
            reason=f"Seat won in satellite #{self.satellite.pk}",
            tournament_ref=target.pk if for_target else None,
        )
        return {"player": player.pk, "ticket": ticket.pk}
