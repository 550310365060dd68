"""Whether an event's parameters describe one event the room can run (rule 3, with
rules 9, 10, 17, 23.5 and the satellites of rule 10).

Each problem names the parameter an admin has to change and a code; the words are
the caller's (the model maps codes to translated messages), so this stays pure.
"""

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from tournaments.rules.payouts import PrizeStructure
from tournaments.rules.pricing import TMONEY, BountyKindRule, EntryKindRule
from tournaments.rules.schedule import BreakKind


@dataclass(frozen=True, slots=True)
class TargetEvent:
    """The event a satellite's seats are for."""

    id: int
    scheduled_start: datetime


@dataclass(frozen=True, slots=True)
class EventTerms:
    """An event's parameters, named as the tournament's fields; money in minor units."""

    id: int | None  # None: a new event
    scheduled_start: datetime | None  # None when the admin's form has not given one
    registration_opens_at: datetime | None
    min_entrants: int
    max_entrants: int
    table_size: int
    heads_up: bool
    entry_kind: str
    currency: str
    buy_in: int
    fee: int
    break_policy: str
    break_minutes: int
    break_seconds: int
    break_interval_minutes: int
    break_interval_seconds: int
    addon_break_minutes: int
    rebuy_price: int
    rebuy_fee: int
    rebuy_chips: int
    rebuy_levels: int
    addon_price: int
    addon_fee: int
    addon_chips: int
    prize_structure: str
    satellite_target: TargetEvent | None
    satellite_seats: int
    bounty_kind: str
    bounty_amount: int
    deals_allowed: bool
    deal_leave_for_winner: int
    late_registration_minutes: int
    extended_late_registration_minutes: int | None


@dataclass(frozen=True, slots=True)
class Problem:
    """One parameter an admin has to change, why (`code`), and the figures the
    message cites (`params`)."""

    field: str
    code: str
    params: dict[str, int] = dataclasses.field(default_factory=dict)


def event_problems(terms: EventTerms, *, now: datetime) -> list[Problem]:
    """Every problem with `terms` at `now`, in a fixed order; none: the event can run."""
    return [
        *_schedule_and_seats(terms, now),
        *_entry(terms),
        *_breaks(terms),
        *_rebuys_and_addon(terms),
        *_satellite(terms),
        *_bounty_deals_and_late_registration(terms),
    ]


def _schedule_and_seats(terms: EventTerms, now: datetime) -> Iterator[Problem]:
    start = terms.scheduled_start
    # An event already announced may be edited after its start (a rename while running).
    if terms.id is None and start is not None and start <= now:
        yield Problem("scheduled_start", "start_in_past")
    if start is not None and terms.registration_opens_at is not None and terms.registration_opens_at >= start:
        yield Problem("registration_opens_at", "opens_after_start")
    if terms.min_entrants < 2:
        yield Problem("min_entrants", "min_entrants")
    if terms.max_entrants < terms.min_entrants:
        yield Problem("max_entrants", "max_below_min", {"minimum": terms.min_entrants})
    if terms.heads_up and terms.table_size != 2:
        yield Problem("table_size", "heads_up_table_size")


def _entry(terms: EventTerms) -> Iterator[Problem]:
    kind = terms.entry_kind
    if kind == EntryKindRule.CASH and terms.currency == TMONEY:
        yield Problem("currency", "cash_currency")
    if kind == EntryKindRule.TMONEY and terms.currency != TMONEY:
        yield Problem("currency", "tmoney_currency")
    if kind in (EntryKindRule.CASH, EntryKindRule.TMONEY) and terms.buy_in == 0:
        yield Problem("buy_in", "buy_in_zero")
    if kind == EntryKindRule.FREEROLL and terms.buy_in > 0:
        yield Problem("buy_in", "freeroll_buy_in")
    if kind == EntryKindRule.FREEROLL and terms.fee > 0:
        yield Problem("fee", "freeroll_fee")


def _breaks(terms: EventTerms) -> Iterator[Problem]:
    policy = terms.break_policy
    if policy != BreakKind.NONE and terms.break_minutes == 0 and not terms.break_seconds:
        yield Problem("break_minutes", "break_minutes")
    if policy == BreakKind.INTERVAL and terms.break_interval_minutes == 0 and not terms.break_interval_seconds:
        yield Problem("break_interval_minutes", "break_interval_minutes")
    if terms.addon_break_minutes > 0:
        if policy != BreakKind.SYNCHRONISED:
            yield Problem("addon_break_minutes", "addon_break_policy")
        if terms.addon_chips == 0:
            yield Problem("addon_break_minutes", "addon_break")
        # The add-on break comes when the rebuy period ends.
        if terms.rebuy_levels == 0:
            yield Problem("addon_break_minutes", "addon_break_period")


def _rebuys_and_addon(terms: EventTerms) -> Iterator[Problem]:
    paid = terms.entry_kind != EntryKindRule.FREEROLL
    if terms.rebuy_chips > 0 and terms.rebuy_levels == 0:
        yield Problem("rebuy_levels", "rebuy_period")
    if paid and terms.rebuy_chips > 0 and terms.rebuy_price == 0:
        yield Problem("rebuy_price", "rebuy_price")
    if terms.rebuy_chips == 0 and (terms.rebuy_price > 0 or terms.rebuy_fee > 0):
        yield Problem("rebuy_chips", "rebuy_chips")
    if paid and terms.addon_chips > 0 and terms.addon_price == 0:
        yield Problem("addon_price", "addon_price")
    if terms.addon_chips == 0 and (terms.addon_price > 0 or terms.addon_fee > 0):
        yield Problem("addon_chips", "addon_chips")


def _satellite(terms: EventTerms) -> Iterator[Problem]:
    target = terms.satellite_target
    target_is_self = target is not None and terms.id is not None and target.id == terms.id
    start = terms.scheduled_start
    if target_is_self:
        yield Problem("satellite_target", "satellite_self")
    elif target is not None and start is not None and target.scheduled_start <= start:
        yield Problem("satellite_target", "satellite_target_start")
    if terms.satellite_seats > 0 and target is None:
        yield Problem("satellite_seats", "seats_without_target")
    if terms.satellite_seats > 0 and terms.prize_structure != PrizeStructure.SATELLITE:
        yield Problem("satellite_seats", "seats_prize_structure")
    if terms.prize_structure == PrizeStructure.SATELLITE and target is None:
        yield Problem("prize_structure", "satellite_structure_without_target")


def _bounty_deals_and_late_registration(terms: EventTerms) -> Iterator[Problem]:
    if terms.bounty_kind != BountyKindRule.NONE and terms.bounty_amount == 0:
        yield Problem("bounty_amount", "bounty_amount")
    if terms.bounty_kind == BountyKindRule.NONE and terms.bounty_amount > 0:
        yield Problem("bounty_amount", "no_bounty")
    if not terms.deals_allowed and terms.deal_leave_for_winner > 0:
        yield Problem("deal_leave_for_winner", "deal_leave_without_deals")
    extended = terms.extended_late_registration_minutes
    if extended is not None and extended <= terms.late_registration_minutes:
        yield Problem(
            "extended_late_registration_minutes",
            "extended_late_registration",
            {"minutes": terms.late_registration_minutes},
        )
