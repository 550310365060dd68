"""Rule 21: one account, no seat transfer. A seat moves to another account only by
a staff decision, for a serious cause the room can verify, with a reason: the entry
(its chips, its seat, its hand in play and anything it wins from now on) then
belongs to the other account; the hands played before stay the old account's
history. Audited with both accounts and who decided."""

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction

from audit.services import audit_log
from live.outbox import record
from tournaments.events import EntryChanged, TablesChanged
from tournaments.models import ENTERED, UNDER_WAY, Entry, EntryStatus, Hand, HandSeat, HandStatus, Tournament
from tournaments.services.hands import hands_touch
from tournaments.services.refusals import refuse

if TYPE_CHECKING:
    from accounts.models import User


def entry_transfer(
    *, tournament_id: int, source: "User", target: "User", actor: "User", reason: str, now: datetime
) -> Entry:
    """`source`'s seat in the tournament under way goes to `target` (staff only, rule
    21), under the tournament's row lock. Refused without a reason, for a tournament
    that does not exist or is not under way, when `source` has no seat in play, or
    when `target` is entered already (rule 9) or is `source`; refused to an `actor`
    without staff rights, whoever calls."""
    if not actor.is_staff:
        raise refuse("transfer_staff_only")
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    if source.pk == target.pk:
        raise refuse("transfer_same")
    with transaction.atomic():
        tournament = Tournament.objects.locked().filter(pk=tournament_id).first()
        if tournament is None:
            raise refuse("no_such_tournament", tournament=tournament_id)
        if tournament.status not in UNDER_WAY:
            raise refuse("not_in_play")
        entry = Entry.objects.filter(tournament=tournament, player=source, status=EntryStatus.ACTIVE).first()
        if entry is None:
            raise refuse("transfer_no_seat")
        if Entry.objects.filter(tournament=tournament, player=target, status__in=ENTERED).exists():
            raise refuse("transfer_target_entered")
        entry.player = target
        entry.sitting_out = False
        entry.save(update_fields=["player", "sitting_out"])
        # The hand in play is the new holder's to play; the hands before stay the
        # old holder's history (their hole cards his alone).
        HandSeat.objects.filter(entry=entry, hand__status=HandStatus.PLAYING).update(player=target)
        # Its seat acts for another account now: a copy kept warm is read again.
        hands_touch(Hand.objects.filter(dealt__entry=entry, status=HandStatus.PLAYING))
        audit_log(
            action="tournaments.entry.transferred",
            subject=entry,
            actor=actor,
            reason=reason[:200],
            data={"from": source.pk, "to": target.pk, "at": now.isoformat()},
        )
        record(EntryChanged(tournament.pk, source.pk))
        record(EntryChanged(tournament.pk, target.pk))
        if entry.table is not None:
            record(TablesChanged(tournament.pk, (entry.table.number,)))
    return entry
