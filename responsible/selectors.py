"""A player's responsible gaming as his page and the staff console show it: limits,
breaks and exclusions, and the history of them in words."""

from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.models import AuditEntry
from responsible.models import DepositLimit, Exclusion, ExclusionKind, LimitPeriod
from responsible.rules import Limit, limit_now
from tournaments.dates import moment_text
from wallet.money import format_money

HISTORY_SHOWN = 10
REGISTER_ANSWERS = {
    "register.allowed": gettext_lazy("not excluded"),
    "register.excluded": gettext_lazy("excluded"),
    "register.unavailable": gettext_lazy("no answer"),
}


@dataclass(frozen=True)
class LimitShown:
    period: str
    label: str
    limit: Limit  # as it stands now, a pending change included
    currency: str


@dataclass(frozen=True)
class ExclusionShown:
    exclusion: Exclusion
    running: bool


@dataclass(frozen=True)
class HistoryLine:
    at: datetime
    text: str


def limits_shown(player, now: datetime) -> list[LimitShown]:
    """Each period's limit (none where he set none), in his wallet's money."""
    kept = {limit.period: limit for limit in DepositLimit.objects.filter(player=player)}
    shown = []
    for value, label in LimitPeriod.choices:
        found = kept.get(value)
        limit = limit_now(Limit(found.amount, found.pending_amount, found.pending_from), now) if found else Limit(None)
        shown.append(LimitShown(value, str(label), limit, found.currency if found else player.preferred_currency))
    return shown


def exclusions_shown(player, now: datetime) -> list[ExclusionShown]:
    """His breaks and exclusions, the latest first, each marked running or not."""
    rows = Exclusion.objects.filter(player=player).select_related("lifted_by").order_by("-starts_at")
    return [
        ExclusionShown(row, row.lifted_at is None and (row.ends_at is None or row.ends_at > now))
        for row in rows[:HISTORY_SHOWN]
    ]


def responsible_history(player) -> list[HistoryLine]:
    """The latest changes to his limits, breaks and exclusions and the register's
    answers about him, in words, from the audit log (which keeps them all)."""
    entries = AuditEntry.objects.filter(
        action__startswith="responsible.", subject_type="accounts.user", subject_id=str(player.pk)
    ).order_by("-pk")[:HISTORY_SHOWN]
    return [HistoryLine(entry.created_at, _history_text(entry)) for entry in entries]


def _history_text(entry: AuditEntry) -> str:
    kind = entry.action.removeprefix("responsible.")
    if kind.startswith("register."):
        return _("ROFUS answered: %(answer)s") % {"answer": REGISTER_ANSWERS.get(kind, kind)}
    if kind.startswith("exclusion."):
        return _exclusion_text(kind.removeprefix("exclusion."), entry)
    if kind == "reality_check.changed":
        if entry.data.get("every") is None:
            return _("Reality check: none")
        return _("Reality check: every %(minutes)d minutes") % {"minutes": entry.data["every"]}
    return _limit_text(kind, entry.data)


def _limit_text(kind: str, data: dict) -> str:
    period = LimitPeriod(data["period"]).label
    if kind == "deposit_limit.pending_cancelled":
        return _("%(period)s limit: the pending change cancelled") % {"period": period}
    if data.get("asked") is None:
        return _("%(period)s limit: removal asked") % {"period": period}
    return _("%(period)s limit: %(amount)s asked") % {
        "period": period,
        "amount": format_money(data["asked"], data["currency"]),
    }


def _exclusion_text(kind: str, entry: AuditEntry) -> str:
    if kind == "lifted":
        return _("Lifted by staff: %(kind)s. Reason: %(reason)s") % {
            "kind": ExclusionKind(entry.data["kind"]).label,
            "reason": entry.reason,
        }
    label = ExclusionKind(kind).label
    if until := entry.data.get("until"):
        return _("%(kind)s until %(until)s") % {"kind": label, "until": moment_text(datetime.fromisoformat(until))}
    return str(label)
