"""A player's deposit limits as his page and the staff console show them."""

from dataclasses import dataclass
from datetime import datetime

from responsible.models import DepositLimit, LimitPeriod
from responsible.rules import Limit, limit_now


@dataclass(frozen=True)
class LimitShown:
    period: str
    label: str
    limit: Limit  # as it stands now, a pending change included
    currency: str


def limits_shown(player, now: datetime) -> list[LimitShown]:
    """Each period's limit (none where he set none), in his wallet's money."""
    kept = {limit.period: limit for limit in DepositLimit.objects.filter(player=player)}
    shown = []
    for value, label in LimitPeriod.choices:
        found = kept.get(value)
        limit = limit_now(Limit(found.amount, found.pending_amount, found.pending_from), now) if found else Limit(None)
        shown.append(LimitShown(value, str(label), limit, found.currency if found else player.preferred_currency))
    return shown
