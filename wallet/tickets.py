"""Tickets: issued, reserved by a registration, returned when it is undone,
consumed when the tournament starts, expired at their date."""

from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from audit.services import audit_log
from wallet.models import Ticket, TicketStatus
from wallet.services import WalletError


def ticket_issue(
    *,
    owner: AbstractBaseUser,
    value: int,
    currency: str,
    expires_at: datetime,
    actor: AbstractBaseUser | None = None,
    reason: str = "",
    tournament_ref: int | None = None,
    idempotency_key: str | None = None,
) -> Ticket:
    """A ticket for `owner`; with an idempotency key, a retry returns the first
    request's ticket, also when the two race."""
    if value <= 0:
        raise WalletError(_("A ticket must be worth something."))
    if idempotency_key and (earlier := Ticket.objects.filter(idempotency_key=idempotency_key).first()):
        return _same_ticket(earlier, owner=owner, value=value, currency=currency)
    try:
        with transaction.atomic():
            return _ticket_create(
                owner=owner,
                value=value,
                currency=currency,
                expires_at=expires_at,
                actor=actor,
                reason=reason,
                tournament_ref=tournament_ref,
                idempotency_key=idempotency_key,
            )
    except IntegrityError:
        if not idempotency_key:
            raise
        earlier = Ticket.objects.get(idempotency_key=idempotency_key)  # the same request won the race
        return _same_ticket(earlier, owner=owner, value=value, currency=currency)


def _same_ticket(earlier: Ticket, *, owner: AbstractBaseUser, value: int, currency: str) -> Ticket:
    if (earlier.owner_id, earlier.value, earlier.currency) != (owner.pk, value, currency):
        raise WalletError(_("This request key was already used for a different ticket."))
    return earlier


def _ticket_create(*, owner, value, currency, expires_at, actor, reason, tournament_ref, idempotency_key) -> Ticket:
    ticket = Ticket.objects.create(
        owner=owner,
        value=value,
        currency=currency,
        expires_at=expires_at,
        tournament_ref=tournament_ref,
        issued_by=actor,
        reason=reason,
        idempotency_key=idempotency_key,
    )
    audit_log(
        action="wallet.ticket.issued",
        subject=ticket,
        actor=actor,
        reason=reason,
        data={"owner": owner.pk, "value": value, "currency": currency, "tournament": tournament_ref},
    )
    return ticket


def tickets_usable_for(*, owner: AbstractBaseUser, tournament_id: int, value: int, currency: str, now: datetime):
    """The owner's tickets that can pay this entry: for this tournament, or for any
    event of exactly this buy-in level."""
    return Ticket.objects.filter(
        Q(tournament_ref=tournament_id) | Q(tournament_ref=None, value=value, currency=currency),
        owner=owner.pk,
        status=TicketStatus.AVAILABLE,
        expires_at__gt=now,
    ).order_by("expires_at", "pk")


def ticket_check(
    *, ticket_id: int | None, owner: AbstractBaseUser, tournament_id: int, value: int, currency: str, now: datetime
) -> Ticket:
    """The owner's ticket if, as read now, it can pay an entry into the tournament
    (else WalletError, as ticket_reserve's); without its lock: ticket_reserve checks
    again under it."""
    found = Ticket.objects.filter(pk=ticket_id, owner=owner.pk).first() if ticket_id is not None else None
    return _usable(found, tournament_id=tournament_id, value=value, currency=currency, now=now)


def ticket_reserve(
    *, ticket_id: int | None, owner: AbstractBaseUser, tournament_id: int, value: int, currency: str, now: datetime
) -> Ticket:
    """Reserve the owner's ticket for an entry, under its row lock (in the caller's transaction)."""
    found = None
    if ticket_id is not None:
        found = Ticket.objects.select_for_update().filter(pk=ticket_id, owner=owner.pk).first()
    ticket = _usable(found, tournament_id=tournament_id, value=value, currency=currency, now=now)
    _move(ticket, TicketStatus.RESERVED, "wallet.ticket.reserved", {"tournament": tournament_id})
    return ticket


def _usable(ticket: Ticket | None, *, tournament_id: int, value: int, currency: str, now: datetime) -> Ticket:
    """`ticket` (the owner's, or None) if it is available and pays an entry into the
    tournament (a ticket for it, or for any event of its buy-in level); else WalletError."""
    if ticket is None:
        raise WalletError(_("That ticket is not yours."))
    if ticket.status != TicketStatus.AVAILABLE:
        raise WalletError(_("That ticket is already used or reserved."))
    if ticket.expires_at <= now:
        raise WalletError(_("That ticket has expired."))
    fits_event = ticket.tournament_ref == tournament_id
    fits_level = ticket.tournament_ref is None and (ticket.value, ticket.currency) == (value, currency)
    if not (fits_event or fits_level):
        raise WalletError(_("That ticket is not valid for this tournament."))
    return ticket


def ticket_release(*, ticket_id: int) -> Ticket:
    """Give a reserved ticket back to its owner (unregistration, cancellation)."""
    ticket = Ticket.objects.select_for_update().get(pk=ticket_id)
    if ticket.status == TicketStatus.RESERVED:
        _move(ticket, TicketStatus.AVAILABLE, "wallet.ticket.returned", {})
    return ticket


def ticket_consume(*, ticket_id: int) -> Ticket:
    """The tournament started: the reserved ticket is spent."""
    ticket = Ticket.objects.select_for_update().get(pk=ticket_id)
    if ticket.status == TicketStatus.RESERVED:
        _move(ticket, TicketStatus.CONSUMED, "wallet.ticket.consumed", {})
    return ticket


def tickets_expire(*, now: datetime) -> int:
    """Expire every available ticket past its date; returns how many."""
    expired = 0
    for ticket_id in Ticket.objects.filter(status=TicketStatus.AVAILABLE, expires_at__lte=now).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            ticket = Ticket.objects.select_for_update().get(pk=ticket_id)
            if ticket.status == TicketStatus.AVAILABLE and ticket.expires_at <= now:
                _move(ticket, TicketStatus.EXPIRED, "wallet.ticket.expired", {})
                expired += 1
    return expired


def _move(ticket: Ticket, status: str, action: str, data: dict) -> None:
    previous = ticket.status
    ticket.status = status
    ticket.save(update_fields=["status"])
    audit_log(action=action, subject=ticket, data={"from": previous, **data})
