"""Hands stored (rules 6, 14, 15, 18): a hand's record of truth is its setup, deck and
actions (tournaments.models.Hand); any process rebuilds it with
tournaments.rules.hands.PlayedHand.play and continues it.

This module is the hands' storage: it deals the hands the floor decides (its
`Deal`s), loads a hand in play to play on (`hand_live`), stores it after a turn
(`hand_store`), and queues the Celery task that acts at the turn's deadline on the
node that plays the table (tournaments.nodes). The use cases that play a hand are in
tournaments.services.tables; the turn rules in tournaments.services.turns.

A hand in play is kept warm in the process that played it last: its row, its
PokerKit state and its players. The table's node, whose tasks it is, goes on from
there without a read or a replay. Every write to a hand in play adds one to its
`revision`, and a turn stores its hand only over the revision it played from (one
UPDATE that checks and writes): a process whose copy is stale (another process has
played since, or a player sat out) finds out there, reads the hand again and plays
the turn again, under the same table lock, so nothing is played twice or from an
old state.
"""

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from celery import signature
from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from tournaments.models import BlindLevel, Entry, EntryStatus, Hand, HandSeat, HandStatus, Table, Tournament
from tournaments.nodes import node_queue, nodes_alive, table_node, table_queue
from tournaments.rules.floor import Deal
from tournaments.rules.hands import HandSetup, PlayedHand, ShownHand, deck_commitment, new_deck, new_salt
from tournaments.selectors.replays import KEPT, played_on, remember_shown
from tournaments.selectors.tables import InPlayView
from tournaments.services.ticks import TABLE_TICK_STEP, tick_queue
from tournaments.services.turns import turn_start

TABLES_TICK = "tournaments.tasks.tables_tick"
REPORT_TASK = "tournaments.tasks.hand_report"

# A turn writes these fields of its hand (and its revision); one that ends it, these too.
TURN_FIELDS = ("actions", "to_act", "turn_started_at", "deadline_at", "extra_time")
END_FIELDS = ("status", "result", "ended_at")


class StaleHand(Exception):
    """The hand was played from a copy older than its record: read it again."""


@dataclass
class LiveHand:
    """A hand in play as a process holds it: its row, its PokerKit state, and its
    players (their entries by id, with their users). `fresh`: read from the database
    under the table's lock, rather than kept from an earlier turn."""

    row: Hand
    played: PlayedHand
    players: dict[int, Entry]
    table: Table  # with its tournament, as read (or written) with the hand
    fresh: bool = True
    # What the table shows of it as it stands, once worked out (its watchers' view),
    # and the bounty on each head dealt in (entry ids): the same for the whole hand.
    view: InPlayView | None = None
    shown: ShownHand | None = None
    heads: dict[int, int] | None = None

    def moved(self) -> None:
        """Its state has changed: what was worked out of it is out of date."""
        self.view = self.shown = None

    @property
    def taken(self) -> int:
        return len(self.played.actions)


_live: OrderedDict[int, LiveHand] = OrderedDict()
_live_lock = threading.Lock()


def _keep(live: LiveHand) -> None:
    live.fresh = False
    with _live_lock:
        _live[live.row.pk] = live
        _live.move_to_end(live.row.pk)
        while len(_live) > KEPT:
            _live.popitem(last=False)


def _take(hand_id: int) -> LiveHand | None:
    with _live_lock:
        return _live.pop(hand_id, None)


def hand_warm(hand_id: int, *, at: int | None = None, revision: int | None = None) -> LiveHand | None:
    """The hand in play as this process kept it after its last turn, if it kept it at
    `at` actions or at `revision` (what the caller read of it), to play on without
    reading it: the caller's hand_store finds out whether it was stale, and the caller
    then reads it (hand_live) under its table's lock."""
    kept = _take(hand_id)
    if kept is not None and ((at is not None and kept.taken != at) or (revision not in (None, kept.row.revision))):
        _keep(kept)
        return None
    return kept


def hand_live(hand_id: int, *, table: Table) -> LiveHand:
    """The hand in play at `table`, read from its record (the caller holds the table's
    lock, and the hand is the caller's to change until it stores it): going on from
    the copy this process kept if the record has only moved on from it, else replayed."""
    kept = _take(hand_id)
    row = Hand.objects.get(pk=hand_id)
    same = kept is not None and kept.row.commitment == row.commitment
    return LiveHand(row, _caught_up(row, kept), hand_players(row), table, heads=kept.heads if same and kept else None)


def _caught_up(row: Hand, kept: LiveHand | None) -> PlayedHand:
    """`row` played: the kept copy with the actions taken since, if it is the same hand
    at an earlier point of its record; else replayed."""
    return played_on(row, kept.played if kept is not None else None)


def hand_store(live: LiveHand, shown: ShownHand) -> None:
    """Write the turn played on `live` (`shown`: as it now stands) over the revision it
    was played from (the caller holds the table's lock); StaleHand if the record has
    moved on since. Once committed, the hand is kept warm here for its next turn,
    unless it is over."""
    row = live.row
    stored = Hand.objects.filter(pk=row.pk, revision=row.revision, status=HandStatus.PLAYING)
    fields = TURN_FIELDS if row.status == HandStatus.PLAYING else TURN_FIELDS + END_FIELDS
    if not stored.update(revision=row.revision + 1, **{name: getattr(row, name) for name in fields}):
        raise StaleHand
    row.revision += 1
    remember_shown(row, shown)
    if row.status == HandStatus.PLAYING:
        transaction.on_commit(partial(_keep, live))


def hands_touch(hands: "QuerySet[Hand]", **fields: object) -> int:
    """Write `fields` to `hands` (none: only mark them changed), so that a copy kept
    warm anywhere is read again before it plays on: every write to a hand in play
    besides a turn's goes through here. Returns how many were written."""
    return hands.update(revision=F("revision") + 1, **fields)


# What a turn reads of its tournament (besides its fixed settings): changed, every hand
# in play there is read again before it plays on (hands_reread).
TURN_READS = frozenset({"status", "level", "break_pending_since", "paused_at", "hand_for_hand"})


def hands_reread(tournament_id: int) -> None:
    """The tournament changed what its turns read (a level, a break waiting for the
    tables, hand-for-hand, an admin's edit): every hand in play there is read again,
    with the tournament, before it plays on."""
    hands_touch(Hand.objects.filter(tournament_id=tournament_id, status=HandStatus.PLAYING))


def hands_deal(*, tournament: Tournament, deals: Iterable[Deal], table_ids: Mapping[int, int], now: datetime) -> None:
    """A new hand at each table the floor has just dealt (`table_ids`: the tables'
    ids by number), in the floor's transaction: the players seated there with chips
    (each also a HandSeat row), the button and blinds the floor chose, the blinds and
    ante of the level now (rule 17's clock), a fresh deck shuffled with `secrets` and
    committed to before anyone sees a card. Each is kept warm here and its first
    turn queued, once committed."""
    deals = list(deals)
    if not deals:
        return
    level = hand_level(tournament)
    dealt = {deal.table: deal for deal in deals}
    players: dict[int, dict[int, Entry]] = {number: {} for number in dealt}
    numbers = {table_ids[number]: number for number in dealt}
    seated = Entry.objects.filter(table__in=numbers, status=EntryStatus.ACTIVE, finish_best=None, chips__gt=0)
    entries = {}
    for entry in seated.select_related("player"):
        if entry.table_id is not None and entry.seat is not None:  # always, for an entry at a table
            players[numbers[entry.table_id]][entry.seat] = entry
            entries[entry.pk] = entry
    lives = []
    gap = timedelta(seconds=settings.TABLE_HAND_GAP_SECONDS)
    for number, deal in dealt.items():
        at_table = players[number]
        setup = HandSetup(
            game=tournament.game,
            betting=tournament.betting,
            stacks={seat: entry.chips for seat, entry in at_table.items()},
            button=deal.button,
            small_blind_seat=deal.small_blind,
            big_blind_seat=deal.big_blind,
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            big_blind_ante=level.big_blind_ante,
        )
        deck, salt = new_deck(), new_salt()
        hand = PlayedHand(setup, deck)
        row = Hand(
            tournament=tournament,
            table_id=table_ids[number],
            number=deal.hand,
            level=max(tournament.level, 1),
            synchronised=deal.synchronised,
            setup=setup.to_json(),
            seats={str(seat): entry.pk for seat, entry in at_table.items()},
            deck="".join(deck),
            salt=salt,
            commitment=deck_commitment(deck, salt),
            started_at=now,
        )
        # The first turn (or, everyone all in from the blinds, the end) is written with the hand.
        turn_start(row, hand, players=entries, tournament=tournament, now=now + gap)
        # The table as the floor has just written it.
        table = Table(
            id=table_ids[number],
            tournament=tournament,
            number=number,
            button=deal.button,
            small_blind=deal.small_blind,
            big_blind=deal.big_blind,
            hands=deal.hand,
            playing=True,
            synchronised=deal.synchronised,
        )
        lives.append(LiveHand(row, hand, {entry.pk: entry for entry in at_table.values()}, table))
    Hand.objects.bulk_create([live.row for live in lives])
    HandSeat.objects.bulk_create(
        HandSeat(hand=live.row, seat=int(seat), entry_id=pk, player_id=entries[pk].player_id)
        for live in lives
        for seat, pk in live.row.seats.items()
    )
    for live in lives:
        remember_shown(live.row, live.played.shown())
        if live.row.status == HandStatus.PLAYING:
            transaction.on_commit(partial(_keep, live))
        hand_queue(live.row)


def hand_level(tournament: Tournament) -> BlindLevel:
    """The level whose blinds a hand dealt now posts: the clock's, or the last one
    once the structure has run out."""
    levels = BlindLevel.objects.filter(structure_id=tournament.blind_structure_id)
    level = levels.filter(position__lte=max(tournament.level, 1)).order_by("-position").first()
    return level or levels.order_by("position").first() or BlindLevel(small_blind=1, big_blind=2, ante=0)


def hand_players(row: Hand) -> dict[int, Entry]:
    """The entries dealt in `row` (by id), with their players."""
    return Entry.objects.select_related("player").in_bulk([int(pk) for pk in row.seats.values()])


def hand_queue(row: Hand) -> None:
    """Once committed: the tick of the table's node that plays the turn at its
    deadline (tournaments.tasks.tables_tick, one for every turn of the node due in
    its step), or the task that reports a finished hand to the floor. A tick that
    finds the turn played does nothing; the sweep (tournaments.tasks.hands_sweep)
    catches up a tick lost with its node."""
    if row.status == HandStatus.FINISHED:
        transaction.on_commit(partial(hand_report_queue, row), robust=True)
    elif row.status == HandStatus.PLAYING and row.deadline_at is not None:
        transaction.on_commit(partial(turn_queue, row.table_id, row.deadline_at), robust=True)


def turn_queue(table_id: int, due: datetime) -> None:
    """The tick of the node that plays the table, for a turn due at `due`, queued now
    unless a commit queued it already (hand_queue: once committed)."""
    node = table_node(table_id, nodes_alive())
    queue = None if node is None else node_queue(node)
    ahead = max(due - timezone.now(), timedelta(0))
    tick_queue(TABLES_TICK, due, node, queue=queue, kept=ahead + timedelta(minutes=1), step=TABLE_TICK_STEP)


def hand_report_queue(row: Hand) -> None:
    """The task that reports a finished hand to the floor, on the queue of its table's node."""
    queue, sent = table_queue(row.table_id), signature(REPORT_TASK, args=(row.pk,))
    if queue is None:
        sent.apply_async()
    else:
        sent.apply_async(queue=queue)


def hand_moved_past(hand_id: int, at: int) -> bool:
    """Whether this process has seen the hand go past `at` actions (a task queued then
    has nothing to do): a hand's record only ever grows, and a copy is kept only as
    committed."""
    with _live_lock:
        kept = _live.get(hand_id)
    return kept is not None and kept.taken > at
