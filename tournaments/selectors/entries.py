"""Reads of entering an event: whether it takes an entry, an unregistration, a
rebuy or an add-on now (the refusal, or None), and how a player can pay his entry.
The pages ask them to offer only what the services would do; the services refuse
with the same answers."""

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from tournaments.models import (
    Entry,
    EntryStatus,
    PaymentForm,
    PurchaseKind,
    Tournament,
)
from tournaments.rules.registration import (
    PAYMENT_FORMS,
    addon_refusal,
    rebuy_refusal,
    registration_refusal,
    unregistration_refusal,
)
from tournaments.rules.schedule import time_bank_left
from tournaments.selectors.schedules import addon_window, rebuy_period_ends_at, tournament_schedule, tournament_window
from wallet.models import Currency
from wallet.selectors import wallet_balance
from wallet.tickets import tickets_usable_for

if TYPE_CHECKING:
    from accounts.models import User


@dataclass(frozen=True)
class PaymentOption:
    """One way the player can pay this entry, for the Register buttons."""

    form: str
    currency: str
    amount: int
    affordable: bool
    ticket_id: int | None = None


def payment_options(*, tournament: Tournament, player: "User", now: datetime) -> list[PaymentOption]:
    """How `player` can pay an entry into `tournament`, in the order the event takes
    them (a freeroll's: FREE); a ticket only when the player holds one that fits."""
    price = tournament.entry_price
    currency = tournament.pool_currency
    options = []
    for form in PAYMENT_FORMS[tournament.entry_kind]:
        if form == PaymentForm.FREE:
            options.append(PaymentOption(form, currency, 0, True))
        elif form == PaymentForm.TICKET:
            ticket = tickets_usable_for(
                owner=player, tournament_id=tournament.pk, value=price.ticket_value, currency=currency, now=now
            ).first()
            if ticket is not None:
                options.append(PaymentOption(form, currency, price.total, True, ticket.pk))
        else:
            money = currency if form == PaymentForm.CASH else Currency.TMONEY
            options.append(PaymentOption(form, money, price.total, wallet_balance(player, money) >= price.total))
    return options


def entry_refusal(tournament: Tournament, *, now: datetime) -> str | None:
    """Why the event takes no new entry now (its status, its registration window, its
    capacity: rule 9), or None."""
    return registration_refusal(
        now=now,
        status=tournament.status,
        window=tournament_window(tournament),
        entries=tournament.entries_count,
        capacity=tournament.max_entrants,
    )


def unregister_refusal(tournament: Tournament, *, now: datetime) -> str | None:
    """Why the event takes no unregistration now (its status, the deadline: rule 10),
    or None; pages ask it so that they offer only what the service would do."""
    return unregistration_refusal(now=now, status=tournament.status, window=tournament_window(tournament))


def chips_refusal(tournament: Tournament, entry: Entry, *, kind: str, now: datetime) -> str | None:
    """Why the entry may not buy the rebuy or the add-on (`kind`) now (its period, the
    limit, the add-on taken), or None."""
    schedule = tournament_schedule(tournament)
    if kind == PurchaseKind.REBUY:
        return rebuy_refusal(
            now=now,
            status=tournament.status,
            rebuy_chips=tournament.rebuy_chips,
            limit=tournament.rebuy_limit,
            rebuys=entry.rebuys,
            period_ends_at=rebuy_period_ends_at(tournament, schedule),
        )
    opens, closes = addon_window(tournament, schedule)
    return addon_refusal(
        now=now,
        status=tournament.status,
        addon_chips=tournament.addon_chips,
        taken=entry.addon_taken,
        opens_at=opens,
        closes_at=closes,
    )


def entry_time_bank(entry: Entry, tournament: Tournament) -> int:
    """The milliseconds left in the entry's time bank at the tournament's level now."""
    return time_bank_left(
        left_ms=entry.time_bank_ms,
        level_refilled=entry.time_bank_level,
        level=tournament.level,
        size_s=tournament.time_bank_seconds,
        refill_s=tournament.time_bank_refill_seconds,
    )


def seated_entries(player_id: int, *, most: int) -> list[Entry]:
    """The player's entries seated at a table now, with their tables and events, the
    earliest event first: at most `most` (My tables)."""
    return list(
        Entry.objects.filter(player_id=player_id, status=EntryStatus.ACTIVE, table__isnull=False)
        .select_related("table__tournament__blind_structure")
        .order_by("tournament__scheduled_start", "pk")[:most]
    )
