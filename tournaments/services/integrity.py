"""Rule 20: poker is individual. The room reviews play and may withhold winnings
until the review is done.

The scan (integrity_scan) reads a tournament's reported hands once each, and its
sit-outs (rule 18.4: players may not agree to sit out together), keeps their
signals (tournaments.rules.integrity) by player, and flags a pair whose signals
not yet reviewed repeat, across tournaments too. The floor queues it after
the commit of every report that puts a player out (and so at the end): never in the
transaction of a hand.

Staff then decide on the flag (flag_decide), and may withhold a player's prize in
the flag's tournament while it is open (prize_withhold): when the prize comes due
the floor leaves it in the prize pool (floor_pay_prizes). Staff later pay it to the
player (prize_release, the floor's own idempotency key) or confiscate it to the
house (prize_confiscate). Every decision is audited with staff's reason.
"""

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from celery import signature
from django.core.cache import cache
from django.db import IntegrityError, transaction

from audit.models import AuditEntry
from audit.services import audit_log
from live.outbox import record
from tournaments.events import EntryChanged, TournamentChanged
from tournaments.models import (
    ENTERED,
    Entry,
    FlagStatus,
    Hand,
    HandStatus,
    IntegrityFlag,
    IntegritySignal,
    PrizeHold,
    Tournament,
)
from tournaments.rules.hands import Action, HandSetup
from tournaments.rules.integrity import Signal, SignalKind, SitOut, hand_signals, sit_outs_together, suspicions
from tournaments.services.bounties import bounty_held_decide
from tournaments.services.leader_boards import leader_board_withdraw
from tournaments.services.prizes import prize_pool_spec
from tournaments.services.refusals import refuse
from wallet.models import TransferReason
from wallet.services import (
    account_get,
    house_account_spec,
    transfer_create,
    wallet_account_spec,
)

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

SCAN_TASK = "tournaments.tasks.integrity_scan"
SAT_OUT = "tournaments.entry.sat_out"  # tournaments.services.tables.entry_sit_out's audit action
WITHHELD = "tournaments.entry.prize_withheld"
SCAN_EVERY_SECONDS = 30
# Hands replayed in one transaction: a big field's backlog goes in several.
SCAN_BATCH = 500


def integrity_scan_queue(tournament_id: int, *, over: bool = False) -> None:
    """Once the caller's transaction commits, scan the tournament's reported hands:
    at most once every SCAN_EVERY_SECONDS while it plays (a big field's players go
    out by the dozen), and always once it is `over`, which reads whatever is left."""

    def send() -> None:
        if over or cache.add(f"integrity:scan:{tournament_id}", True, timeout=SCAN_EVERY_SECONDS):
            signature(SCAN_TASK, args=(tournament_id,)).apply_async()

    transaction.on_commit(send, robust=True)


def integrity_scan(*, tournament_id: int, now: datetime) -> list[IntegrityFlag]:
    """Read the tournament's reported hands not read yet (each once: a concurrent
    scan skips the rows this one has locked), store their signals, and flag each
    pair whose unreviewed signals now repeat (or add them to its open flag).
    Returns the flags created or grown."""
    changed: dict[int, IntegrityFlag] = {}
    while True:
        with transaction.atomic():
            rows = list(
                Hand.objects.select_for_update(skip_locked=True)
                .filter(tournament_id=tournament_id, status=HandStatus.REPORTED, integrity_scanned=False)
                .order_by("pk")[:SCAN_BATCH]
            )
            if not rows:
                break
            found = _signals(rows)
            IntegritySignal.objects.bulk_create(
                (
                    IntegritySignal(
                        kind=s.kind, hand_id=s.hand, player_id=s.player, other_id=s.other, detail=s.detail[:60]
                    )
                    for s in found
                ),
                ignore_conflicts=True,
            )
            Hand.objects.filter(pk__in=[row.pk for row in rows]).update(integrity_scanned=True)
            pairs = {(s.kind, s.player, s.other) for s in found}
            for flag in _flags(pairs, tournament_id=tournament_id, now=now):
                changed[flag.pk] = flag
    with transaction.atomic():
        for flag in _sit_outs(tournament_id, now):
            changed[flag.pk] = flag
    return list(changed.values())


def _sit_outs(tournament_id: int, now: datetime) -> list[IntegrityFlag]:
    """Rule 18.4: the tournament's sit-outs (from the audit log, which has each one)
    paired by time; a pair seen again adds nothing (its signal's ref is unique)."""
    entries = dict(Entry.objects.filter(tournament_id=tournament_id).values_list("pk", "player_id"))
    rows = AuditEntry.objects.filter(
        action=SAT_OUT, subject_type="tournaments.entry", subject_id__in=[str(pk) for pk in entries]
    ).values_list("pk", "subject_id", "data", "created_at")
    sit_outs = [
        SitOut(
            player=entries[int(subject)],
            tournament=tournament_id,
            at=(datetime.fromisoformat(data["at"]) if "at" in data else created).timestamp(),
            ref=pk,
        )
        for pk, subject, data, created in rows
    ]
    found = [s for s in sit_outs_together(sit_outs) if s.player != s.other]
    if not found:
        return []
    IntegritySignal.objects.bulk_create(
        (
            IntegritySignal(kind=s.kind, ref=s.ref, player_id=s.player, other_id=s.other, detail=s.detail[:60])
            for s in found
        ),
        ignore_conflicts=True,
    )
    return _flags({(s.kind, s.player, s.other) for s in found}, tournament_id=tournament_id, now=now)


def _signals(rows: list[Hand]) -> list[Signal[int]]:
    entries = {int(pk) for row in rows for pk in row.seats.values()}
    player_of = dict(Entry.objects.filter(pk__in=entries).values_list("pk", "player_id"))
    found: list[Signal[int]] = []
    for row in rows:
        try:
            found += hand_signals(
                hand_id=row.pk,
                setup=HandSetup.from_json(row.setup),
                deck=[row.deck[i : i + 2] for i in range(0, len(row.deck), 2)],
                actions=[Action.from_json(data) for data in row.actions],
                players={int(seat): player_of[int(pk)] for seat, pk in row.seats.items()},
                final_stacks={int(seat): chips for seat, chips in (row.result or {}).get("stacks", {}).items()},
            )
        except (KeyError, ValueError):  # a record the engine cannot replay: logged, not fatal
            logger.exception("Hand %s could not be read for the integrity scan", row.pk)
    # A seat moved to another account (rule 21) could name one player on both sides.
    return [s for s in found if s.player != s.other]


def _flags(pairs: Iterable[tuple[str, int, int]], *, tournament_id: int, now: datetime) -> list[IntegrityFlag]:
    """For each pair: its unreviewed signals join its open flag, or make one if they repeat."""
    flags = []
    for kind, player, other in sorted(pairs):
        pending = IntegritySignal.objects.filter(kind=kind, player_id=player, other_id=other, flag=None)
        flag = IntegrityFlag.objects.filter(kind=kind, player_id=player, other_id=other, status=FlagStatus.OPEN).first()
        if flag is None:
            signals = [
                Signal(SignalKind(row.kind), row.hand_id, row.player_id, row.other_id, row.detail, row.ref)
                for row in pending
            ]
            if not suspicions(signals):
                continue
            try:
                with transaction.atomic():
                    flag = IntegrityFlag.objects.create(
                        kind=kind, tournament_id=tournament_id, player_id=player, other_id=other, created_at=now
                    )
            except IntegrityError:  # flagged by a concurrent scan of another tournament
                flag = IntegrityFlag.objects.get(kind=kind, player_id=player, other_id=other, status=FlagStatus.OPEN)
            else:
                audit_log(
                    action="tournaments.integrity.flagged",
                    subject=flag,
                    data={"kind": kind, "player": player, "other": other, "tournament": tournament_id},
                )
        if pending.update(flag=flag):
            flags.append(flag)
    return flags


def flag_decide(*, flag_id: int, status: str, actor: "User", reason: str, now: datetime) -> IntegrityFlag:
    """Staff end the review of an open flag: cleared (nothing wrong) or confirmed,
    with a reason. A withheld prize stays withheld until staff pay or confiscate it."""
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    if status not in (FlagStatus.CLEARED, FlagStatus.CONFIRMED):
        raise refuse("flag_decision")
    with transaction.atomic():
        flag = IntegrityFlag.objects.select_for_update().filter(pk=flag_id).first()
        if flag is None or flag.status != FlagStatus.OPEN:
            raise refuse("flag_not_open")
        flag.status, flag.decided_by, flag.decided_at, flag.reason = status, actor, now, reason[:200]
        flag.save(update_fields=["status", "decided_by", "decided_at", "reason"])
        audit_log(action=f"tournaments.integrity.{status}", subject=flag, actor=actor, reason=flag.reason)
    return flag


def prize_withhold(*, flag_id: int, player_id: int, actor: "User", reason: str, now: datetime) -> Entry:
    """Withhold the prize of `player_id` (one of the flag's two players) in the open
    flag's tournament, under the tournament's row lock (the floor pays under it too):
    refused once the prize is paid."""
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    with transaction.atomic():
        flag = IntegrityFlag.objects.filter(pk=flag_id, status=FlagStatus.OPEN).first()
        if flag is None:
            raise refuse("flag_not_open")
        if player_id not in (flag.player_id, flag.other_id):
            raise refuse("withhold_not_flagged")
        Tournament.objects.locked().get(pk=flag.tournament_id)
        entry = Entry.objects.filter(tournament_id=flag.tournament_id, player_id=player_id, status__in=ENTERED).first()
        if entry is None:
            raise refuse("withhold_no_entry")
        if entry.prize_hold == PrizeHold.WITHHELD:
            return entry
        if entry.prize is not None or entry.prize_hold != PrizeHold.NONE:
            raise refuse("withhold_paid")
        entry.prize_hold = PrizeHold.WITHHELD
        entry.save(update_fields=["prize_hold"])
        audit_log(
            action=WITHHELD,
            subject=entry,
            actor=actor,
            reason=reason[:200],
            data={"flag": flag.pk, "at": now.isoformat()},
        )
        record(EntryChanged(flag.tournament_id, player_id))
    return entry


def prize_release(*, entry_id: int, actor: "User", reason: str, now: datetime) -> Entry:
    """Staff pay a withheld prize: from the prize pool to the player, with the key
    the floor would have used, so it is paid once whatever happens; before the prize
    is due, the hold is lifted and the floor pays it as usual."""
    return _decide(entry_id=entry_id, actor=actor, reason=reason, now=now, confiscate=False)


def prize_confiscate(*, entry_id: int, actor: "User", reason: str, now: datetime) -> Entry:
    """Staff keep a withheld prize that is due: from the prize pool to the house."""
    return _decide(entry_id=entry_id, actor=actor, reason=reason, now=now, confiscate=True)


def _decide(*, entry_id: int, actor: "User", reason: str, now: datetime, confiscate: bool) -> Entry:
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    with transaction.atomic():
        tournament_id = Entry.objects.filter(pk=entry_id).values_list("tournament_id", flat=True).first()
        if tournament_id is None:
            raise refuse("not_withheld")
        tournament = Tournament.objects.locked().get(pk=tournament_id)
        entry = Entry.objects.select_related("player").get(pk=entry_id)
        if entry.prize_hold != PrizeHold.WITHHELD:
            raise refuse("not_withheld")
        if entry.prize is None and confiscate:
            raise refuse("prize_not_due")
        outcome = PrizeHold.CONFISCATED if confiscate else PrizeHold.PAID
        data: dict[str, object] = {"prize": entry.prize, "at": now.isoformat()}
        if entry.prize is None:
            outcome = PrizeHold.NONE  # lifted: the floor pays when the prize comes due
        elif entry.prize:
            pool = account_get(prize_pool_spec(tournament))
            key = f"tournament:{tournament.pk}:prize:{entry.pk}"
            transfer = transfer_create(
                source=pool,
                destination=account_get(house_account_spec(pool.currency))
                if confiscate
                else account_get(wallet_account_spec(entry.player_id, pool.currency)),
                amount=entry.prize,
                reason=TransferReason.CONFISCATION if confiscate else TransferReason.PRIZE,
                idempotency_key=f"{key}:confiscated" if confiscate else key,
                actor=actor,
                memo=reason[:200],
            )
            data["transfer"] = transfer.pk
        entry.prize_hold = outcome
        entry.save(update_fields=["prize_hold"])
        data["bounties"] = entry.bounty_held
        # Each withholding is its own period (its own audit row): lifted, then made
        # again, its bounties are decided and paid on their own.
        withholding = (
            AuditEntry.objects.filter(action=WITHHELD, subject_type="tournaments.entry", subject_id=str(entry.pk))
            .values_list("pk", flat=True)
            .latest("pk")
        )
        bounty_held_decide(
            tournament=tournament,
            entry=entry,
            withholding=withholding,
            confiscate=confiscate,
            actor=actor,
            memo=reason[:200],
        )
        action = "confiscated" if confiscate else ("released" if outcome == PrizeHold.PAID else "hold_lifted")
        audit_log(
            action=f"tournaments.entry.prize_{action}", subject=entry, actor=actor, reason=reason[:200], data=data
        )
        record(EntryChanged(tournament.pk, entry.player_id))
        if outcome == PrizeHold.CONFISCATED:  # Tournament Info's standings show the place forfeited
            record(TournamentChanged(tournament.pk))
            leader_board_withdraw(entry=entry, actor=actor, reason=reason, now=now)
    return entry
