"""When a player may register, unregister, rebuy and take the add-on, and how an
entry may be paid (rules 8, 9, 10).

Each check returns None when the action is allowed, else a refusal code that the
services turn into a message for the player.
"""

from dataclasses import dataclass
from datetime import datetime

LIVE_BEFORE_START = frozenset({"announced", "registering"})
UNDER_WAY = frozenset({"late_registration", "running", "on_break"})


@dataclass(frozen=True, slots=True)
class Window:
    """The instants that bound registration for one event."""

    registration_opens_at: datetime | None
    start: datetime
    late_registration_closes_at: datetime
    closed_early_at: datetime | None  # full at the start, or the first elimination
    unregistration_closes_at: datetime | None  # None: no unregistration


def registration_refusal(*, now: datetime, status: str, window: Window, entries: int, capacity: int) -> str | None:
    if status == "cancelled":
        return "cancelled"
    if status == "finished":
        return "closed"
    if window.registration_opens_at is not None and now < window.registration_opens_at:
        return "not_open_yet"
    if now >= window.start:
        closes = window.late_registration_closes_at
        if window.closed_early_at is not None:
            closes = min(closes, window.closed_early_at)
        if now >= closes:
            return "closed"
    if entries >= capacity:
        return "full"
    return None


def unregistration_refusal(*, now: datetime, status: str, window: Window) -> str | None:
    if status in ("cancelled", "finished"):
        return "closed"
    if window.unregistration_closes_at is None:
        return "no_unregistration"
    if now >= window.unregistration_closes_at or now >= window.start or status in UNDER_WAY:
        return "unregistration_closed"
    return None


def rebuy_refusal(
    *, now: datetime, status: str, rebuy_chips: int, limit: int | None, rebuys: int, period_ends_at: datetime | None
) -> str | None:
    if not rebuy_chips or period_ends_at is None:
        return "no_rebuys"
    if status not in UNDER_WAY:
        return "rebuys_not_open"
    if now >= period_ends_at:
        return "rebuy_period_over"
    if limit is not None and rebuys >= limit:
        return "rebuy_limit_reached"
    return None


def addon_refusal(
    *, now: datetime, status: str, addon_chips: int, taken: bool, opens_at: datetime | None, closes_at: datetime | None
) -> str | None:
    """The add-on is taken once, from the last rebuy level until play resumes after
    the add-on break."""
    if not addon_chips or opens_at is None or closes_at is None:
        return "no_addon"
    if taken:
        return "addon_taken"
    if status not in UNDER_WAY or now < opens_at:
        return "addon_not_open"
    if now >= closes_at:
        return "addon_over"
    return None


# How each kind of entry may be paid, the event's own money first (rules 8, 10): a
# cash event also takes T-Money (the room converts it), and any paid event a ticket.
PAYMENT_FORMS = {
    "cash": ("cash", "tmoney", "ticket"),
    "tmoney": ("tmoney", "ticket"),
    "ticket_only": ("ticket",),
    "freeroll": ("free",),
}


def payment_form(*, entry_kind: str, asked: str | None, with_ticket: bool) -> str:
    """The form an entry is paid in: free in a freeroll; a ticket when the player
    sends one (or asks to pay with one); else the form asked for, or the event's own
    money (cash, or T-Money in a T-Money event). payment_refusal says whether the
    event takes it."""
    if entry_kind == "freeroll":
        return "free"
    if with_ticket or asked == "ticket":
        return "ticket"
    return asked or ("tmoney" if entry_kind == "tmoney" else "cash")


def payment_refusal(*, entry_kind: str, form: str, with_ticket: bool) -> str | None:
    if form == "ticket" and not with_ticket:
        return "no_ticket"
    if form not in PAYMENT_FORMS[entry_kind]:
        return "ticket_required" if entry_kind == "ticket_only" else "form_not_accepted"
    return None
