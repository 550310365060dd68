"""When a player may register, unregister, rebuy and take the add-on (rules 8, 9, 10).

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
