"""Playing at the tables (rules 6, 12-18): a player's action, the action the table
takes for a bot, a player sitting out or a player out of time, sitting out and back
in, and a finished hand handed to the floor.

Locks: an action locks its table's row; reporting a hand to the floor locks the
tournament's row first, then the table's, like every floor service. An action never
waits for the tournament's row, so the two orders never cross.
"""

import logging
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import QuerySet

from audit.services import audit_log
from live.outbox import record
from live.presence import connected
from tournaments.events import TablesChanged
from tournaments.models import (
    UNDER_WAY,
    CrashPolicy,
    Entry,
    EntryStatus,
    ExtraTimeStage,
    Hand,
    HandStatus,
    Status,
    Table,
    Tournament,
)
from tournaments.rules.bots import bot_action
from tournaments.rules.hands import Action, ActionKind, HandError
from tournaments.rules.hands import Hand as PlayedHand
from tournaments.selectors import tournament_payouts
from tournaments.services.bounties import bounties_pay, bounty_pay_winner
from tournaments.services.floor import TableResult, floor_hand_results, floor_hands_voided
from tournaments.services.hands import (
    entry_of,
    entry_time_bank,
    hand_keep,
    hand_players,
    hand_queue,
    hand_resume,
    hand_turn,
    replay,
)
from tournaments.services.refusals import TournamentError, refuse, refuse_action
from wallet.models import Currency

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

# What players and the audit log read of a hand rolled back by the room's policy.
STALLED_REASON = "Server problem: the hand stopped when a server process was lost (rule 22)."

# A player whose time runs out is sat out (rule 18.4) until he comes back, rather
# than holding every hand up for his whole allowance.
TIMED_OUT_SITS_OUT = True


@dataclass(frozen=True)
class Played:
    """What an action did: the hand after it, and whether it was a retry."""

    hand: Hand
    retry: bool = False


def hand_act(*, hand_id: int, player_id: int, at: int, kind: str, amount: int | None = None, now: datetime) -> Played:
    """The player's action in hand `hand_id`, chosen when the hand had `at` actions:
    refused (changing nothing) when it is not his turn or the rules forbid it; the
    same action sent again (a double click, a retry) has one effect. Then the bots and
    players sitting out whose turn follows act at once if the bots need no thinking
    time. Records TablesChanged; queues the next turn's task."""
    try:
        action_kind = ActionKind(kind)
    except ValueError:
        raise refuse_action("unknown_action") from None
    with transaction.atomic():
        row, table = _locked(hand_id)
        players = hand_players(row)
        seat = next(
            (
                int(seat)
                for seat, pk in row.seats.items()
                if players[int(pk)].player_id == player_id and players[int(pk)].status == EntryStatus.ACTIVE
            ),
            None,
        )
        if seat is None:
            raise refuse("not_in_hand")
        if at < 0:  # a count of actions: never an index from the end
            raise refuse("hand_moved_on")
        if at < len(row.actions):
            if Action(seat, action_kind, amount).to_json() == row.actions[at]:
                return Played(row, retry=True)
            raise refuse("hand_moved_on")
        if row.status != HandStatus.PLAYING:
            raise refuse_action("hand_over")
        if at > len(row.actions):
            raise refuse("hand_moved_on")
        tournament = table.tournament
        hand = hand_resume(row)
        try:
            hand.act(seat, action_kind, amount)
        except HandError as error:
            raise refuse_action(error.code, error.chips) from error
        _bank_spend(row, players[entry_of(row, seat)], tournament, now)
        _go_on(row, hand, players, table, since=at, tournament=tournament, now=now)
        return Played(row)


def hand_due(
    *,
    hand_id: int,
    at: int,
    now: datetime,
    rng: random.Random | None = None,
    bots_wait: bool = True,
    report: bool = False,
) -> bool:
    """The deadline of the turn after `at` actions: a bot's move, a player sitting
    out folded or checked at once, a player out of time folded if he faces a bet and
    checked otherwise (rule 18.3), once. False if the hand has moved on or the turn
    is not due yet (a task that came early). Unless `bots_wait`, the bots whose turns
    follow act at once (a bot tournament played without a clock of its own). With
    `report`, the caller gives a hand that ends to the floor itself (hands_report,
    once this has committed) rather than queue a task for it."""
    return _turn_due(hand_id=hand_id, at=at, now=now, rng=rng, bots_wait=bots_wait, report=report) is not None


def hand_due_reported(*, hand_id: int, at: int, now: datetime) -> bool:
    """The worker's task at a turn's deadline: hand_due, and a hand the turn ended
    given to the floor at once, once committed: no round trip through the broker
    between a hand and the next, and no read to find out whether it ended."""
    row = _turn_due(hand_id=hand_id, at=at, now=now, rng=None, report=True)
    if row is None:
        return False
    if row.status == HandStatus.FINISHED:
        hands_report(tournament_id=row.tournament_id, now=now)
    return True


def _turn_due(
    *, hand_id: int, at: int, now: datetime, rng: random.Random | None, bots_wait: bool = True, report: bool
) -> Hand | None:
    """hand_due: the hand after the turn, or None if there was none to play."""
    with transaction.atomic():
        row, table = _locked(hand_id)
        if row.status != HandStatus.PLAYING or len(row.actions) != at or row.deadline_at is None:
            return None
        if now < row.deadline_at:
            hand_queue(row)  # a worker whose clock runs behind the one that queued it
            return None
        players = hand_players(row)
        if _disconnect_extra_time(row, table, players, now):
            return row
        hand = hand_resume(row)
        _auto_act(row, hand, players, rng or secrets.SystemRandom(), timed_out=True)
        _go_on(
            row,
            hand,
            players,
            table,
            since=at,
            tournament=table.tournament,
            now=now,
            rng=rng,
            bots_wait=bots_wait,
            queue=not report,
        )
    return row


def hand_report(*, hand_id: int, now: datetime) -> bool:
    """A finished hand's result to the floor, once, with every other hand of its
    tournament finished by then (hands_report). False if it is not finished (still
    in play, or reported already)."""
    finished = Hand.objects.filter(pk=hand_id, status=HandStatus.FINISHED).values_list("tournament_id", flat=True)
    tournament_id = finished.first()
    return tournament_id is not None and hand_id in hands_report(tournament_id=tournament_id, now=now)


def hands_report(*, tournament_id: int, now: datetime) -> list[int]:
    """Every finished hand of the tournament to the floor (floor_hand_results), in the
    order they ended, in one transaction under the tournament's row lock: the floor
    is read once for them all, as a big field's tables finish hands faster than one
    report at a time. For each, its players' chips won or lost are applied, players
    with none are out and placed (rule 12), the table is dealt again, balanced or
    broken (rule 16). Returns the ids of the hands reported."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update(of=("self",)).get(pk=tournament_id)
        # Their tables' rows are not locked: a finished hand takes no action, and the
        # floor writes each table (locking it) under the tournament's lock.
        rows = list(
            Hand.objects.filter(tournament=tournament, status=HandStatus.FINISHED)
            .select_related("table")
            .order_by("ended_at", "pk")
        )
        if not rows:
            return []
        idle = _idle(rows) if tournament.shootout or tournament.heads_up else set()
        results = [
            TableResult(table=row.table.number, hand=row.number, won=_won(row), idle=row.pk in idle) for row in rows
        ]
        taken = floor_hand_results(tournament=tournament, results=results, now=now)
        reports = {row.pk: report for row, report in zip(rows, taken, strict=True) if report is not None}
        reported = [row for row in rows if row.pk in reports]
        Hand.objects.filter(pk__in=[row.pk for row in reported]).update(status=HandStatus.REPORTED)
        ended = {pk: report.ended for pk, report in reports.items() if report.ended}
        bounties_pay(tournament=tournament, rows=reported, ended=ended)
        if tournament.status == Status.FINISHED:
            bounty_pay_winner(tournament=tournament)
        # A result the floor did not take (its table moved on) stays for staff to see.
        for row in rows:
            if row not in reported:
                logger.warning("Hand %s at table %s was not taken by the floor", row.pk, row.table.number)
        return [row.pk for row in reported]


def _idle(rows: list[Hand]) -> set[int]:
    """The hands (ids) whose every player is sitting out or, a person, disconnected (rule 18.5)."""
    entries = {int(pk) for row in rows for pk in row.seats.values()}
    state = Entry.objects.filter(pk__in=entries).values_list("pk", "sitting_out", "player_id", "player__is_bot")
    here = connected(player for _, _, player, is_bot in state if not is_bot)
    away = {pk for pk, sitting_out, player, is_bot in state if sitting_out or (not is_bot and player not in here)}
    return {row.pk for row in rows if all(int(pk) in away for pk in row.seats.values())}


def _won(row: Hand) -> dict[int, int]:
    """What each player (entry id) of a finished hand won or lost."""
    start = {int(seat): chips for seat, chips in row.setup["stacks"].items()}
    result = {int(seat): chips for seat, chips in (row.result or {}).get("stacks", {}).items()}
    return {entry_of(row, seat): result[seat] - start[seat] for seat in result}


def hands_catch_up(
    *,
    now: datetime,
    before: datetime,
    tournament_id: int | None = None,
    bots_wait: bool = True,
    stalled_before: datetime | None = None,
) -> int:
    """Every turn whose deadline passed by `before` is played and every hand finished
    by then reported, once each (the sweep after a lost task; unless `bots_wait`, a
    bot tournament played without a clock of its own). A hand whose turn was due by
    `stalled_before` has lost its worker (rule 22): in an event whose policy says so
    it is rolled back instead. Returns how many were done."""
    hands = Hand.objects.all() if tournament_id is None else Hand.objects.filter(tournament_id=tournament_id)
    done = 0
    if stalled_before is not None:
        done += _roll_back_stalled(hands, stalled_before, now)
    # The tournaments with a hand to report: those whose turns are played here, and
    # those with a hand finished by `before`; each reports all its finished hands at once.
    reporting = set()
    due = hands.filter(status=HandStatus.PLAYING, deadline_at__lte=before).values_list("pk", "actions", "tournament")
    for hand_id, actions, tournament in due:
        if hand_due(hand_id=hand_id, at=len(actions), now=now, bots_wait=bots_wait, report=True):
            done += 1
            reporting.add(tournament)
    reporting.update(
        hands.filter(status=HandStatus.FINISHED, ended_at__lte=before).values_list("tournament", flat=True)
    )
    for tournament in sorted(reporting):
        done += len(hands_report(tournament_id=tournament, now=now))
    return done


def _roll_back_stalled(hands: "QuerySet[Hand]", stalled_before: datetime, now: datetime) -> int:
    """The stalled hands of events that roll back after a server problem, rolled back."""
    stalled = hands.filter(
        status=HandStatus.PLAYING,
        deadline_at__lte=stalled_before,
        tournament__crash_policy=CrashPolicy.ROLL_BACK,
    ).values_list("tournament_id", "table__number")
    rolled = 0
    for tournament_id, number in sorted(set(stalled)):
        try:
            rolled += len(
                hands_roll_back(tournament_id=tournament_id, table=number, actor=None, reason=STALLED_REASON, now=now)
            )
        except TournamentError:
            continue  # it went on meanwhile, or the event ended
    return rolled


def hands_check_down(*, tournament_id: int, now: datetime) -> None:
    """Every hand in play finished at `now` with each player to act checking or
    folding (rule 18.3's choice, without sitting anyone out), then reported: a break
    or a pause that waits for the tables (rule 17) begins at once."""
    for dealt in Hand.objects.filter(tournament_id=tournament_id, status=HandStatus.PLAYING):
        row = dealt
        while row.status == HandStatus.PLAYING:
            action = replay(row).timeout_action()
            player = Entry.objects.values_list("player_id", flat=True).get(pk=entry_of(row, action.seat))
            row = hand_act(hand_id=row.pk, player_id=player, at=len(row.actions), kind=action.kind, now=now).hand
        hand_report(hand_id=row.pk, now=now)


def hands_roll_back(
    *, tournament_id: int, table: int | None, actor: "User | None", reason: str, now: datetime
) -> list[int]:
    """Rule 22: the hands in play at table `table` (every table if None) are rolled
    back, with staff's `reason`: each is voided in the history and the audit log,
    every player keeps the chips he had when it was dealt (bets in the pot go back;
    a hand finished but not yet given to the floor is voided too, so nothing is paid
    twice), and the table deals a new hand. Returns the voided hands' ids."""
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    with transaction.atomic():
        try:
            tournament = Tournament.objects.select_for_update(of=("self",)).get(pk=tournament_id)
        except Tournament.DoesNotExist:
            raise refuse("not_in_play") from None
        if tournament.status not in UNDER_WAY:
            raise refuse("not_in_play")
        tables = Table.objects.filter(tournament=tournament, broken_at=None)
        if table is not None:
            tables = tables.filter(number=table)
            if not tables.exists():
                raise refuse("no_such_table")
        # Each table's lock, in one order: an action at any of them waits, or has committed.
        locked = {row.pk: row.number for row in tables.select_for_update(of=("self",)).order_by("pk")}
        voided = list(
            Hand.objects.filter(table__in=locked, status__in=[HandStatus.PLAYING, HandStatus.FINISHED]).order_by("pk")
        )
        if not voided:
            raise refuse("no_hand_to_roll_back")
        for row in voided:
            row.status, row.voided_reason = HandStatus.VOIDED, reason[:200]
            row.to_act = row.turn_started_at = row.deadline_at = None
            row.result, row.ended_at = None, now
        Hand.objects.bulk_update(
            voided, ["status", "voided_reason", "to_act", "turn_started_at", "deadline_at", "result", "ended_at"]
        )
        numbers = sorted(locked[row.table_id] for row in voided)
        audit_log(
            action="tournaments.hands.rolled_back",
            subject=tournament,
            actor=actor,
            reason=reason[:200],
            data={"at": now.isoformat(), "hands": [row.pk for row in voided], "tables": numbers},
        )
        floor_hands_voided(tournament=tournament, tables=numbers, now=now)
        record(TablesChanged(tournament.pk, tuple(numbers)))
        return [row.pk for row in voided]


def entry_sit_out(*, tournament_id: int, player_id: int, sitting_out: bool, now: datetime) -> Entry:
    """The player sits out (dealt in, blinds and antes posted, folded or checked at
    once: rule 18.4) or comes back. Sitting out on his own turn acts for him at once."""
    with transaction.atomic():
        entry = Entry.objects.filter(
            tournament_id=tournament_id, player_id=player_id, status=EntryStatus.ACTIVE
        ).first()
        if entry is None or entry.table_id is None:
            raise refuse("not_seated")
        table = Table.objects.select_for_update().get(pk=entry.table_id)
        entry = Entry.objects.get(pk=entry.pk)
        if entry.sitting_out == sitting_out:
            return entry
        entry.sitting_out = sitting_out
        entry.save(update_fields=["sitting_out"])
        audit_log(
            action="tournaments.entry.sat_out" if sitting_out else "tournaments.entry.sat_in",
            subject=entry,
            actor=entry.player,
            data={"at": now.isoformat()},
        )
        row = Hand.objects.filter(table=table, status=HandStatus.PLAYING).order_by("-pk").first()
        if row is not None and row.to_act is not None and entry_of(row, row.to_act) == entry.pk and sitting_out:
            row.deadline_at = now
            row.save(update_fields=["deadline_at"])
            hand_queue(row)
        record(TablesChanged(tournament_id, (table.number,)))
        return entry


def _locked(hand_id: int) -> tuple[Hand, Table]:
    """The hand and its table, the table's row locked (its tournament read with it,
    not locked: the time a turn gets, whether the room waits for this table)."""
    try:
        table = Table.objects.select_for_update(of=("self",)).select_related("tournament").get(dealt_hands=hand_id)
    except Table.DoesNotExist:
        raise refuse("no_hand") from None
    # Read after the lock, not in its query: a join would return the hand as it was
    # before the transaction that held the lock (PostgreSQL re-reads only the locked row).
    return Hand.objects.get(pk=hand_id), table


def _disconnect_extra_time(row: Hand, table: Table, players: Mapping[int, Entry], now: datetime) -> bool:
    """Rule 18.2: a person whose time has run out while his page is not open at the
    table gets the event's disconnect extra time, once per tournament, in a
    real-money event from its stage on: his deadline moves, and the table shows it.
    Whether it did."""
    assert row.to_act is not None
    entry = players[entry_of(row, row.to_act)]
    if entry.player.is_bot or entry.sitting_out or entry.disconnect_extra_used or row.extra_time:
        return False
    tournament = Tournament.objects.get(pk=row.tournament_id)
    if not tournament.disconnect_extra_seconds or tournament.pool_currency == Currency.TMONEY:
        return False
    if connected([entry.player_id]) or not _extra_time_stage(tournament, now):
        return False
    row.deadline_at = now + timedelta(seconds=tournament.disconnect_extra_seconds)
    row.extra_time = True
    row.save(update_fields=["deadline_at", "extra_time"])
    entry.disconnect_extra_used = True
    entry.save(update_fields=["disconnect_extra_used"])
    audit_log(
        action="tournaments.hand.disconnect_extra_time",
        subject=entry,
        data={"hand": row.pk, "seconds": tournament.disconnect_extra_seconds, "until": row.deadline_at.isoformat()},
    )
    hand_queue(row)
    record(TablesChanged(row.tournament_id, (table.number,), (entry.player_id,), in_play=True))
    return True


def _extra_time_stage(tournament: Tournament, now: datetime) -> bool:
    """Has the event reached the stage from which disconnect extra time is given?"""
    if tournament.disconnect_extra_from == ExtraTimeStage.START:
        return True
    left = Entry.objects.filter(tournament=tournament, status=EntryStatus.ACTIVE).count()
    if tournament.disconnect_extra_from == ExtraTimeStage.FINAL_TWO_TABLES:
        return left <= 2 * tournament.table_size
    paid = sum(1 for prize in tournament_payouts(tournament, now=now).places if prize > 0)
    return left <= paid


def _bank_spend(row: Hand, entry: Entry, tournament: Tournament, now: datetime) -> None:
    """What the player used of his time bank beyond the action time (rule 18)."""
    if row.turn_started_at is None:
        return
    over_ms = int((now - row.turn_started_at).total_seconds() * 1000) - tournament.action_seconds * 1000
    if over_ms <= 0:
        return
    left = entry_time_bank(entry, tournament)
    entry.time_bank_ms, entry.time_bank_level = max(0, left - over_ms), tournament.level
    entry.save(update_fields=["time_bank_ms", "time_bank_level"])


def _auto_act(
    row: Hand, hand: PlayedHand, players: Mapping[int, Entry], rng: random.Random, *, timed_out: bool
) -> None:
    """The turn's player acts without choosing: a bot by its policy, anyone else by
    rule 18.3 (a player out of time is then sat out)."""
    seat = hand.to_act
    assert seat is not None
    entry = players[entry_of(row, seat)]
    if entry.player.is_bot and not entry.sitting_out:
        action = bot_action(hand, rng)
        hand.act(action.seat, action.kind, action.amount)
        return
    action = hand.timeout_action()
    hand.act(action.seat, action.kind, action.amount)
    if timed_out and not entry.sitting_out:
        entry.time_bank_ms, entry.time_bank_level = 0, row.level
        entry.sitting_out = TIMED_OUT_SITS_OUT
        entry.save(update_fields=["time_bank_ms", "time_bank_level", "sitting_out"])
        audit_log(action="tournaments.hand.timed_out", subject=entry, data={"hand": row.pk, "seat": seat})


def _go_on(
    row: Hand,
    hand: PlayedHand,
    players: Mapping[int, Entry],
    table: Table,
    *,
    since: int,
    tournament: Tournament | None,
    now: datetime,
    rng: random.Random | None = None,
    bots_wait: bool = True,
    queue: bool = True,
) -> None:
    """After an action: the turns that need nobody to choose (players sitting out;
    bots when they need no thinking time) are played at once; then the next turn
    and its deadline are stored and queued, or the finished hand is queued for the
    floor (unless not `queue`: the caller reports it). Records TablesChanged: for
    the players whose turns were played from the `since`-th action on, and whose
    turn it is now, or everyone dealt in if the hand is over."""
    rng = rng or secrets.SystemRandom()
    hand_turn(row, hand, players=players, tournament=tournament, now=now, bots_wait=bots_wait)
    while row.status == HandStatus.PLAYING and row.deadline_at is not None and row.deadline_at <= now:
        _auto_act(row, hand, players, rng, timed_out=False)
        hand_turn(row, hand, players=players, tournament=tournament, now=now, bots_wait=bots_wait)
    row.save(
        update_fields=[
            "actions",
            "status",
            "to_act",
            "turn_started_at",
            "deadline_at",
            "extra_time",
            "result",
            "ended_at",
        ]
    )
    hand_keep(row, hand)
    if queue or row.status != HandStatus.FINISHED:
        hand_queue(row)
    in_play = row.status == HandStatus.PLAYING
    # While the hand goes on, only these players' own part changes (their stack, their choices).
    seats = {action.seat for action in hand.actions[since:]} | {row.to_act} if in_play else set(hand.seats)
    told = tuple(sorted({players[entry_of(row, seat)].player_id for seat in seats if seat is not None}))
    record(TablesChanged(row.tournament_id, (table.number,), told, in_play=in_play))
