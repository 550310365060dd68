"""Reads linking wallet transfers to the events they were for, from their idempotency
keys."""

from collections.abc import Iterable, Mapping

from tournaments.models import (
    Purchase,
)
from wallet.models import TransferReason

# The keys the tournament services give their transfers start with the tournament's
# id ("tournament:9:prize:41", "satellite:9:...", "seat:9:...") or the purchase's
# ("purchase:17:refund:tmoney").
_TOURNAMENT_KEYS = ("tournament:", "satellite:", "seat:")


_PURCHASE_KEY = "purchase:"


# Deposits and staff adjustments carry their caller's key, which names nothing.
_CALLERS_KEYS = (TransferReason.DEPOSIT, TransferReason.STAFF_ADJUSTMENT)


def _key_number(text: str, prefix: str) -> int | None:
    number = text[len(prefix) :].split(":", 1)[0] if text.startswith(prefix) else ""
    return int(number) if number.isdigit() else None


def transfer_tournament_ids(rows: Iterable[Mapping]) -> dict[int, int]:
    """The id of the tournament each wallet history row (wallet.selectors.wallet_history)
    concerns, by the row's pk: the tournament account on the other side, else the
    one its key names (a T-Money payment or refund goes through the house); rows
    about no tournament are left out. One query at most, for purchases' keys."""
    tournament_of: dict[int, int] = {}
    purchase_of: dict[int, int] = {}
    for row in rows:
        found = _key_number(row["counterpart_ref"], "tournament:")
        if found is None and row["reason"] in _CALLERS_KEYS:
            continue
        for prefix in _TOURNAMENT_KEYS:
            found = found or _key_number(row["idempotency_key"], prefix)
        if found:
            tournament_of[row["pk"]] = found
        elif purchase := _key_number(row["idempotency_key"], _PURCHASE_KEY):
            purchase_of[row["pk"]] = purchase
    if purchase_of:
        entries = dict(
            Purchase.objects.filter(pk__in=set(purchase_of.values())).values_list("pk", "entry__tournament_id")
        )
        tournament_of |= {pk: entries[purchase] for pk, purchase in purchase_of.items() if purchase in entries}
    return tournament_of
