"""Playing at the tables (rules 6, 12-18): a player's action, the action the table
takes for a bot, a player sitting out or a player out of time, sitting out and back
in, and a finished hand handed to the floor.

Locks: an action locks its table's row; reporting a hand to the floor locks the
tournament's row first, then the table's, like every floor service. An action never
waits for the tournament's row, so the two orders never cross.
"""

import copy
import logging
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import QuerySet

from audit.services import audit_log
from live.outbox import record
from live.presence import connected
from responsible.services import exclusion_message, exclusion_running
from tournaments.events import HandMovedOn, TablesChanged
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
from tournaments.nodes import nodes_alive, table_node
from tournaments.rules.hands import ActionKind, HandError, ShownHand
from tournaments.selectors.entries import entry_time_bank
from tournaments.selectors.payouts import tournament_payouts
from tournaments.selectors.replays import entry_of, replay
from tournaments.selectors.tables import InPlayView, OwnSeat, hand_heads, hand_in_play_view, table_own
from tournaments.services.bounties import bounties_pay, bounty_pay_winner
from tournaments.services.clock import tournament_follow_up
from tournaments.services.floor import HandReport, TableResult, floor_hand_in, floor_hand_results, floor_hands_voided
from tournaments.services.hands import (
    LiveHand,
    StaleHand,
    hand_live,
    hand_moved_past,
    hand_queue,
    hand_report_queue,
    hand_store,
    hand_warm,
    hands_touch,
    turn_queue,
)
from tournaments.services.refusals import TournamentError, refuse, refuse_action
from tournaments.services.ticks import TABLE_TICK_STEP
from tournaments.services.turns import Turned, turn_auto, turn_bank_spend, turns_play_on
from wallet.models import Currency

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

# A turn read from the record under the table's lock, stale by the time it is stored
# (a process playing its warm copy got there first), is read and played again.
FRESH_TRIES = 3

# What players and the audit log read of a hand rolled back by the room's policy.
STALLED_REASON = "Server problem: the hand stopped when a server process was lost (rule 22)."


@dataclass(frozen=True)
class Played:
    """What an action did: the hand after it (its row, as the pages show it), the
    player's entry and his table, copies taken as it committed (the process plays on
    with its own); and whether it was a retry."""

    hand: Hand
    shown: ShownHand
    entry: Entry
    table: Table  # with its tournament, as the action read them
    retry: bool = False

    @classmethod
    def of(cls, live: LiveHand, seat: int, table: Table, *, retry: bool = False) -> "Played":
        entry = copy.copy(live.players[entry_of(live.row, seat)])
        return cls(copy.copy(live.row), live.shown or live.played.shown(), entry, table, retry)


def hand_act(*, hand_id: int, player_id: int, at: int, kind: str, amount: int | None = None, now: datetime) -> Played:
    """The player's action in hand `hand_id`, chosen when the hand had `at` actions:
    refused (changing nothing) when it is not his turn or the rules forbid it; the
    same action sent again (a double click, a retry) has one effect. Then the bots and
    players sitting out whose turn follows act at once if the bots need no thinking
    time. Records HandMovedOn (or TablesChanged, the hand over); queues the next
    turn's task."""
    try:
        action_kind = ActionKind(kind)
    except ValueError:
        raise refuse_action("unknown_action") from None
    if at < 0:  # a count of actions: never an index from the end
        raise refuse("hand_moved_on")

    def act(live: LiveHand, table: Table) -> Played:
        row, players = live.row, live.players
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
        if at < len(row.actions):
            if [seat, action_kind.value, amount] == row.actions[at]:
                return Played.of(live, seat, table, retry=True)
            raise refuse("hand_moved_on")
        if row.status != HandStatus.PLAYING:
            raise refuse_action("hand_over")
        if at > len(row.actions):
            raise refuse("hand_moved_on")
        tournament = table.tournament
        before = _view(live, table)
        try:
            live.played.act(seat, action_kind, amount)
        except HandError as error:
            raise refuse_action(error.code, error.chips) from error
        turned = Turned()
        turn_bank_spend(row, players[entry_of(row, seat)], tournament, now, turned)
        _go_on(live, table, turned, before=before, since=at, now=now, actor=seat)
        return Played.of(live, seat, table)

    return _playing(hand_id, act, warm=False)


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


def hands_tick(*, tick: datetime, node: int | None, now: datetime) -> int:
    """A table node's tick: every turn due in the step ending at `tick` at the tables
    `node` plays (every table, if None: no node is known alive), each in a
    transaction of its own; then the hands they ended given to the floor, a
    tournament's all at once. Returns how many turns were played."""
    due = Hand.objects.filter(status=HandStatus.PLAYING, deadline_at__gt=tick - TABLE_TICK_STEP, deadline_at__lte=tick)
    alive = nodes_alive()
    played, reporting = 0, {}
    for hand_id, table_id, tournament_id, revision in due.values_list("pk", "table_id", "tournament_id", "revision"):
        if node is not None and table_node(table_id, alive) != node:
            continue  # another node's: its own tick plays it
        try:
            row = _turn_due(hand_id=hand_id, revision=revision, now=now, rng=None, report=True)
        except TournamentError:
            continue  # played meanwhile, over and over, by processes racing for it: nothing left to do
        except Exception:
            # One table's failure must not hold up the others' turns: the sweep tries it again.
            logger.exception("The turn of hand %s failed at %s", hand_id, tick)
            continue
        if row is not None:
            played += 1
            if row.status == HandStatus.FINISHED:
                reporting[tournament_id] = row
    _reports(reporting, now)
    return played


def _reports(ended: dict[int, Hand], now: datetime) -> None:
    """A node's reports after its turns: each tournament's finished hands to the floor,
    unless another process is reporting that tournament; then a report task follows
    one of its hands on the node's queue (hand_report), rather than the node's other
    tables waiting for that report to end."""
    for tournament_id, row in sorted(ended.items()):
        try:
            hands_report(tournament_id=tournament_id, now=now, wait=False)
        except ReportBusy:
            hand_report_queue(row)


def hands_take_over(*, node: int, now: datetime) -> int:
    """The nodes alive changed (one died, or this one joined): every turn at the tables
    `node` plays now, queued on another node's queue, is played here if it is due,
    else its tick is queued on this node's. Returns how many turns were played."""
    alive = nodes_alive(fresh=True)
    played, reporting = 0, {}
    in_play = Hand.objects.filter(status=HandStatus.PLAYING, deadline_at__isnull=False)
    for hand_id, table_id, tournament_id, revision, deadline in in_play.values_list(
        "pk", "table_id", "tournament_id", "revision", "deadline_at"
    ):
        if table_node(table_id, alive) != node or deadline is None:  # None: never, filtered
            continue
        if deadline > now:
            turn_queue(table_id, deadline)
            continue
        try:
            row = _turn_due(hand_id=hand_id, revision=revision, now=now, rng=None, report=True)
        except TournamentError:
            continue  # played meanwhile
        if row is not None:
            played += 1
            if row.status == HandStatus.FINISHED:
                reporting[tournament_id] = row
    _reports(reporting, now)
    return played


def _turn_due(
    *,
    hand_id: int,
    now: datetime,
    rng: random.Random | None,
    report: bool,
    at: int | None = None,
    revision: int | None = None,
    bots_wait: bool = True,
) -> Hand | None:
    """hand_due: the hand after the turn, or None if there was none to play; `at`: the
    actions the caller knew of (the turn is the one after them), or `revision`, the
    hand's as the caller read it (the turn is the one due by `now`)."""
    if at is not None and hand_moved_past(hand_id, at):
        return None  # a task queued twice (the sweep's, a node's): played already

    def due(live: LiveHand, table: Table) -> Hand | None:
        row = live.row
        if row.status != HandStatus.PLAYING or (at is not None and len(row.actions) != at) or row.deadline_at is None:
            return _settled(live, None)
        if now < row.deadline_at:
            _settled(live, None)
            hand_queue(row)  # a node whose clock runs behind the one that queued it
            return None
        if _disconnect_extra_time(live, table, now):
            return row
        before, since = _view(live, table), len(row.actions)
        turned = Turned()
        turn_auto(row, live.played, live.players, rng or secrets.SystemRandom(), timed_out=True, turned=turned)
        _go_on(live, table, turned, before=before, since=since, now=now, rng=rng, bots_wait=bots_wait, queue=not report)
        return row

    return _playing(hand_id, due, warm=True, at=at, revision=revision)


def _settled[T](live: LiveHand, outcome: T) -> T:
    """A turn that does nothing decides so only on the hand's record: a copy kept
    warm may be behind it (StaleHand: read it and decide again)."""
    if not live.fresh:
        raise StaleHand
    return outcome


def _playing[T](
    hand_id: int,
    play: Callable[[LiveHand, Table], T],
    *,
    warm: bool,
    at: int | None = None,
    revision: int | None = None,
) -> T:
    """`play` the hand in play, in one transaction: if `warm`, on the copy this process
    kept after the hand's last turn (at `at` actions, or `revision`), without a read;
    else, or if that copy was behind the record, on the record, under its table's lock.

    A stale copy's try is a transaction of its own, rolled back before the table's
    lock is asked for: its write over the revision it had, refused, still locks the
    hand's row (PostgreSQL locks the newer row to check it), and holding the hand
    while waiting for the table would deadlock with a report that holds the table
    and writes the hand. Tables are locked before their hands, everywhere."""
    if warm and (kept := hand_warm(hand_id, at=at, revision=revision)) is not None:
        try:
            with transaction.atomic():
                return play(kept, kept.table)
        except StaleHand:
            pass
    with transaction.atomic():
        table = _locked(hand_id)
        for _ in range(FRESH_TRIES):
            try:
                return play(hand_live(hand_id, table=table), table)
            except StaleHand:
                # Written meanwhile without the table's lock: another process's turn on
                # its warm copy (a sweep's, a second tick's), a cancellation. Read again.
                continue
        raise refuse("hand_moved_on")


def _view(live: LiveHand, table: Table, shown: ShownHand | None = None) -> InPlayView:
    """What the table shows of the hand as it stands (`shown`, if worked out already),
    kept with it until its next turn."""
    if live.view is None:
        if live.heads is None:
            live.heads = hand_heads(table.tournament, live.row)
        live.shown = shown or live.played.shown()
        live.view = hand_in_play_view(live.row, live.shown, players=live.players, table=table, heads=live.heads)
    return live.view


def hand_report(*, hand_id: int, now: datetime) -> bool:
    """A finished hand's result to the floor, once, with every other hand of its
    tournament finished by then (hands_report). False if it is not finished (still
    in play, or reported already)."""
    finished = Hand.objects.filter(pk=hand_id, status=HandStatus.FINISHED).values_list("tournament_id", flat=True)
    tournament_id = finished.first()
    return tournament_id is not None and hand_id in hands_report(tournament_id=tournament_id, now=now)


class ReportBusy(Exception):
    """Another transaction is reporting the tournament's hands (hands_report, unless `wait`)."""


def hands_report(*, tournament_id: int, now: datetime, wait: bool = True) -> list[int]:
    """Every finished hand of the tournament to the floor (floor_hand_results), in the
    order they ended, in one transaction under the tournament's row lock: the floor
    is read once for them all, as a big field's tables finish hands faster than one
    report at a time. For each, its players' chips won or lost are applied, players
    with none are out and placed (rule 12), the table is dealt again, balanced or
    broken (rule 16). Returns the ids of the hands reported. Unless `wait`, raises
    ReportBusy if another transaction holds the tournament's lock."""
    with transaction.atomic():
        locked = Tournament.objects.locked(skip_locked=not wait).filter(pk=tournament_id)
        tournament = locked.get() if wait else locked.first()
        if tournament is None:
            raise ReportBusy(tournament_id)
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
        taken = _results_taken(tournament, results, now)
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
        # Each table's hand over (its showdown, its last hands), with what the floor did
        # there, in one message; everyone dealt in fetches his own part.
        dealt = Entry.objects.filter(pk__in={int(pk) for row in rows for pk in row.seats.values()})
        told = tuple(sorted(dealt.values_list("player_id", flat=True)))
        record(TablesChanged(tournament.pk, tuple(sorted({row.table.number for row in rows})), told))
        return [row.pk for row in reported]


def _results_taken(tournament: Tournament, results: list[TableResult], now: datetime) -> list[HandReport | None]:
    """The floor takes the results in order; what one calls for beyond the floor is
    done before the next is taken. None for those not taken."""
    taken: list[HandReport | None] = []
    while len(taken) < len(results):
        if taken and tournament.status not in UNDER_WAY:
            return taken + [None] * (len(results) - len(taken))  # over: nothing more to take
        done, follow = floor_hand_results(tournament=tournament, results=results[len(taken) :], now=now)
        taken += done
        tournament_follow_up(tournament=tournament, follow=follow, now=now)
    return taken


def floor_hand_finished(
    *, tournament_id: int, table: int, stacks: Mapping[int, int], now: datetime, hand: int | None = None
) -> HandReport:
    """Table `table` has finished its hand, reported with its players' (entry ids)
    stacks at the end rather than from the hand's record (staff, tests): its
    `hand`-th, if given (a report repeated after the table moved on is refused, so a
    retry never plays a hand twice). As hands_report, what follows included."""
    with transaction.atomic():
        tournament = Tournament.objects.locked().get(pk=tournament_id)
        report, follow = floor_hand_in(tournament=tournament, table=table, stacks=stacks, now=now, hand=hand)
        tournament_follow_up(tournament=tournament, follow=follow, now=now)
        return report


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
            tournament = Tournament.objects.locked().get(pk=tournament_id)
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
        hands_touch(
            Hand.objects.filter(pk__in=[row.pk for row in voided]),
            status=HandStatus.VOIDED,
            voided_reason=reason[:200],
            to_act=None,
            turn_started_at=None,
            deadline_at=None,
            result=None,
            ended_at=now,
        )
        numbers = sorted(locked[row.table_id] for row in voided)
        audit_log(
            action="tournaments.hands.rolled_back",
            subject=tournament,
            actor=actor,
            reason=reason[:200],
            data={"at": now.isoformat(), "hands": [row.pk for row in voided], "tables": numbers},
        )
        follow = floor_hands_voided(tournament=tournament, tables=numbers, now=now)
        tournament_follow_up(tournament=tournament, follow=follow, now=now)
        record(TablesChanged(tournament.pk, tuple(numbers)))
        return [row.pk for row in voided]


def entry_sit_out(*, tournament_id: int, player_id: int, sitting_out: bool, now: datetime) -> Entry:
    """The player sits out (dealt in, blinds and antes posted, folded or checked at
    once: rule 18.4) or comes back. Sitting out on his own turn acts for him at once.
    A player on a break or excluded (responsible gaming) cannot come back."""
    if not sitting_out and (exclusion := exclusion_running(player_id, now)) is not None:
        raise TournamentError(exclusion_message(exclusion), "self_excluded")
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
        playing = Hand.objects.filter(table=table, status=HandStatus.PLAYING)
        row = playing.order_by("-pk").first()
        if row is not None:
            # His turn, sitting out: it is due now. Either way a copy kept warm is read again.
            due = row.to_act is not None and entry_of(row, row.to_act) == entry.pk and sitting_out
            hands_touch(playing.filter(pk=row.pk), **({"deadline_at": now} if due else {}))
            if due:
                row.deadline_at = now
                hand_queue(row)
        record(TablesChanged(tournament_id, (table.number,)))
        return entry


def _locked(hand_id: int) -> Table:
    """The table of the hand, its row locked, with its tournament (read with it, not
    locked: the time a turn gets, whether the room waits for this table). The hand is
    read after the lock, never in its query: a join would return the hand as it was
    before the transaction that held the lock (PostgreSQL re-reads only the locked row)."""
    try:
        return Table.objects.select_for_update(of=("self",)).select_related("tournament").get(dealt_hands=hand_id)
    except Table.DoesNotExist:
        raise refuse("no_hand") from None


def _disconnect_extra_time(live: LiveHand, table: Table, now: datetime) -> bool:
    """Rule 18.2: a person whose time has run out while his page is not open at the
    table gets the event's disconnect extra time, once per tournament, in a
    real-money event from its stage on: his deadline moves, and the table shows it.
    Whether it did."""
    row = live.row
    assert row.to_act is not None
    entry = live.players[entry_of(row, row.to_act)]
    if entry.player.is_bot or entry.sitting_out or entry.disconnect_extra_used or row.extra_time:
        return False
    tournament = table.tournament
    if not tournament.disconnect_extra_seconds or tournament.pool_currency == Currency.TMONEY:
        return False
    if connected([entry.player_id]) or not _extra_time_stage(tournament, now):
        return False
    before = _view(live, table)
    row.deadline_at = now + timedelta(seconds=tournament.disconnect_extra_seconds)
    row.extra_time = True
    live.moved()
    hand_store(live, live.played.shown())
    entry.disconnect_extra_used = True
    entry.save(update_fields=["disconnect_extra_used"])
    audit_log(
        action="tournaments.hand.disconnect_extra_time",
        subject=entry,
        data={"hand": row.pk, "seconds": tournament.disconnect_extra_seconds, "until": row.deadline_at.isoformat()},
    )
    hand_queue(row)
    record(
        HandMovedOn(row.tournament_id, table.number, before, _view(live, table), (_own_seat(live, table, row.to_act),))
    )
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


def _go_on(
    live: LiveHand,
    table: Table,
    turned: Turned,
    *,
    before: InPlayView,
    since: int,
    now: datetime,
    rng: random.Random | None = None,
    bots_wait: bool = True,
    queue: bool = True,
    actor: int | None = None,
) -> None:
    """After an action: the turns that need nobody to choose (players sitting out;
    bots when they need no thinking time) are played at once; the hand is stored,
    then what the turns did to its players; the next turn and its deadline are
    queued, or the finished hand for the floor (unless not `queue`: the caller reports
    it). Records what the table's watchers see change (HandMovedOn), with the own
    part, as it now stands, of each person whose part changed: whose turn was played
    from the `since`-th action on, or is now; but not the one at seat `actor`, who
    acted from his page and has his part in the answer, unless it is his turn again.
    The hand over, TablesChanged, with everyone dealt in."""
    row, hand, players = live.row, live.played, live.players
    turns_play_on(
        row,
        hand,
        players=players,
        tournament=table.tournament,
        now=now,
        rng=rng or secrets.SystemRandom(),
        turned=turned,
        bots_wait=bots_wait,
    )
    live.moved()
    shown = hand.shown()
    live.shown = shown
    hand_store(live, shown)
    for pk, fields in turned.entries.items():
        Entry.objects.filter(pk=pk).update(**fields)
    for entry, seat in turned.timed_out:
        audit_log(action="tournaments.hand.timed_out", subject=entry, data={"hand": row.pk, "seat": seat})
    if queue or row.status != HandStatus.FINISHED:
        hand_queue(row)
    if row.status != HandStatus.PLAYING:
        if queue:  # else the caller's report tells the table (hands_report)
            told = tuple(sorted(players[entry_of(row, seat)].player_id for seat in hand.seats))
            record(TablesChanged(row.tournament_id, (table.number,), told, in_play=False))
        return
    # While the hand goes on, only these players' own part changes (their stack, their choices).
    acted = {action.seat for action in hand.actions[since:]} - {actor}
    seats = acted if row.to_act is None else acted | {row.to_act}
    people = sorted(seat for seat in seats if not players[entry_of(row, seat)].player.is_bot)
    own = tuple(_own_seat(live, table, seat) for seat in people)
    record(HandMovedOn(row.tournament_id, table.number, before, _view(live, table, shown), own))


def _own_seat(live: LiveHand, table: Table, seat: int) -> OwnSeat:
    """The own part of the player at `seat` as the turn left the hand; copies, as the
    process plays on with its own."""
    entry = copy.copy(live.players[entry_of(live.row, seat)])
    tournament = table.tournament
    return table_own(
        copy.copy(live.row),
        live.shown or live.played.shown(),
        entry,
        time_bank_ms=entry_time_bank(entry, tournament),
        action_seconds=tournament.action_seconds,
    )
