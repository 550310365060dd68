"""Hands stored (rules 6, 14, 15, 18): a hand's record of truth is its setup, deck and
actions (tournaments.models.Hand); any process rebuilds it with
tournaments.rules.hands.Hand.play and continues it.

This module deals the hands the floor decides (its `Deal`s), works out whose turn it
is and until when, and queues the Celery task that acts at that deadline: a bot's
move, a sitting-out player's automatic fold or check, a time-out (rule 18.3). The
player-facing use cases are in tournaments.services.tables.
"""

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial

from celery import signature
from django.conf import settings
from django.db import transaction

from tournaments.models import BlindLevel, Entry, EntryStatus, Hand, HandSeat, HandStatus, Tournament
from tournaments.rules.floor import Deal
from tournaments.rules.hands import Action, HandSetup, ShownHand, deck_commitment, new_deck, new_salt
from tournaments.rules.hands import Hand as PlayedHand
from tournaments.rules.schedule import time_bank_left

DUE_TASK = "tournaments.tasks.hand_due"
REPORT_TASK = "tournaments.tasks.hand_report"

# Hands this process has just played, as committed: a hand's next turn mostly comes
# back to the same process, which goes on from there instead of replaying the hand
# from its record. Keyed by the hand's id, its deck's commitment (an id may come again
# in another database) and its number of actions: the same key is the same hand.
HandKey = tuple[int, str, int]
_PLAYED: OrderedDict[HandKey, PlayedHand] = OrderedDict()
_PLAYED_KEPT = 256  # more than the tables a process plays at once
_played_lock = threading.Lock()
# Hands as pages show them (an action's page parts, the table for its watchers and
# the player's own seat fetched again, read one state several times), from the
# process that played them or replayed once. Keyed by the hand's whole record, not
# its number of actions: one kept by a transaction that then rolled back can only be
# found by a record of the same actions, which is the same state.
ShownKey = tuple[int, str, str]
_SHOWN: OrderedDict[ShownKey, ShownHand] = OrderedDict()
_shown_lock = threading.Lock()


def hands_deal(*, tournament: Tournament, deals: Iterable[Deal], table_ids: Mapping[int, int], now: datetime) -> None:
    """A new hand at each table the floor has just dealt (`table_ids`: the tables'
    ids by number), in the floor's transaction: the players seated there with chips
    (each also a HandSeat row), the button and blinds the floor chose, the blinds and
    ante of the level now (rule 17's clock), a fresh deck shuffled with `secrets` and
    committed to before anyone sees a card."""
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
    rows, played = [], []
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
        hand_turn(row, hand, players=entries, tournament=tournament, now=now + gap)
        rows.append(row)
        played.append(hand)
    Hand.objects.bulk_create(rows)
    HandSeat.objects.bulk_create(
        HandSeat(hand=row, seat=int(seat), entry_id=pk, player_id=entries[pk].player_id)
        for row in rows
        for seat, pk in row.seats.items()
    )
    for row, hand in zip(rows, played, strict=True):
        hand_keep(row, hand)
        hand_queue(row)


def hand_level(tournament: Tournament) -> BlindLevel:
    """The level whose blinds a hand dealt now posts: the clock's, or the last one
    once the structure has run out."""
    levels = BlindLevel.objects.filter(structure_id=tournament.blind_structure_id)
    level = levels.filter(position__lte=max(tournament.level, 1)).order_by("-position").first()
    return level or levels.order_by("position").first() or BlindLevel(small_blind=1, big_blind=2, ante=0)


def replay(row: Hand) -> PlayedHand:
    """The hand as it stands, rebuilt from its record."""
    deck = [row.deck[i : i + 2] for i in range(0, len(row.deck), 2)]
    return PlayedHand.play(HandSetup.from_json(row.setup), deck, [Action.from_json(data) for data in row.actions])


def replay_shown(row: Hand) -> ShownHand:
    """The hand as it stands, as the pages show it: as this process played it
    (hand_keep), or replayed from its record once per state."""
    key = _shown_key(row)
    with _shown_lock:
        shown = _SHOWN.get(key)
    if shown is None:
        shown = replay(row).shown()
        _remember(_SHOWN, _shown_lock, key, shown)
    return shown


def _shown_key(row: Hand) -> ShownKey:
    return (row.pk, row.commitment, json.dumps(row.actions))


def hand_resume(row: Hand) -> PlayedHand:
    """The hand as it stands, to play on (it is the caller's to change): as this
    process kept it (hand_keep) if that is the state committed, else replayed."""
    with _played_lock:
        hand = _PLAYED.pop((row.pk, row.commitment, len(row.actions)), None)
    return hand if hand is not None else replay(row)


def hand_keep(row: Hand, hand: PlayedHand) -> None:
    """Keep `hand`, as `row` stores it: what the pages show of it at once (replay_shown,
    keyed by the whole record), and unless it is over, the hand itself for its next
    turn (hand_resume) once the transaction commits, never if it rolls back."""
    _remember(_SHOWN, _shown_lock, _shown_key(row), hand.shown())
    if hand.over:
        return
    key = (row.pk, row.commitment, len(hand.actions))
    transaction.on_commit(partial(_remember, _PLAYED, _played_lock, key, hand))


def _remember[K, V](kept: OrderedDict[K, V], lock: threading.Lock, key: K, hand: V) -> None:
    """`hand` kept under `key`, the oldest forgotten beyond _PLAYED_KEPT."""
    with lock:
        kept[key] = hand
        while len(kept) > _PLAYED_KEPT:
            kept.popitem(last=False)


def entry_of(row: Hand, seat: int) -> int:
    return int(row.seats[str(seat)])


def hand_players(row: Hand) -> dict[int, Entry]:
    """The entries dealt in `row` (by id), with their players: read once for all the
    turns one transaction plays, rather than once a turn."""
    return Entry.objects.select_related("player").in_bulk([int(pk) for pk in row.seats.values()])


def hand_turn(
    row: Hand,
    hand: PlayedHand,
    *,
    players: Mapping[int, Entry],
    tournament: Tournament | None,
    now: datetime,
    bots_wait: bool = True,
) -> None:
    """Whose turn it is in `row` (replayed as `hand`) and until when; or the hand is over.
    A bot has the bots' thinking time (none unless `bots_wait`), a player sitting out
    none (rule 18.4), anyone else the action time and then his time bank (rule 18).
    `players`: the hand's entries by id (hand_players); `tournament`: None if the
    caller has not read it (it is read here only for a player's time)."""
    row.actions = [action.to_json() for action in hand.actions]
    if hand.over:
        result = hand.result()
        row.status = HandStatus.FINISHED
        row.to_act = row.turn_started_at = row.deadline_at = None
        row.result = {
            "stacks": {str(seat): chips for seat, chips in result.stacks.items()},
            "board": list(result.board),
            "shown": {str(seat): list(cards) for seat, cards in result.shown.items()},
            "pots": [
                {
                    "amount": pot.amount,
                    "eligible": list(pot.eligible),
                    "winners": {str(seat): chips for seat, chips in pot.winners.items()},
                    "high": list(pot.high_winners),
                    "low": list(pot.low_winners),
                }
                for pot in result.pots
            ],
        }
        row.ended_at = now
        return
    seat = hand.to_act
    assert seat is not None
    entry = players[entry_of(row, seat)]
    row.to_act, row.turn_started_at, row.extra_time = seat, now, False
    if entry.sitting_out:
        row.deadline_at = now
    elif entry.player.is_bot:
        # While the room waits for this table (a break due, hand-for-hand), bots do not think.
        thinks = bots_wait and not (tournament is not None and tournament.waits_for_tables)
        row.deadline_at = now + timedelta(seconds=settings.TABLE_BOT_SECONDS if thinks else 0)
    else:
        tournament = tournament or Tournament.objects.get(pk=row.tournament_id)
        bank = entry_time_bank(entry, tournament)
        row.deadline_at = now + timedelta(seconds=tournament.action_seconds, milliseconds=bank)


def entry_time_bank(entry: Entry, tournament: Tournament) -> int:
    """The milliseconds left in the entry's time bank at the tournament's level now."""
    return time_bank_left(
        left_ms=entry.time_bank_ms,
        level_refilled=entry.time_bank_level,
        level=tournament.level,
        size_s=tournament.time_bank_seconds,
        refill_s=tournament.time_bank_refill_seconds,
    )


def hand_queue(row: Hand) -> None:
    """Once committed: the task that acts at the turn's deadline, or that reports a
    finished hand to the floor. A task that finds the hand moved on does nothing; the
    sweep (tournaments.tasks.hands_sweep) catches up a task lost with its worker."""
    if row.status == HandStatus.FINISHED:
        transaction.on_commit(partial(_send, REPORT_TASK, (row.pk,), None), robust=True)
    elif row.status == HandStatus.PLAYING and row.deadline_at is not None:
        transaction.on_commit(partial(_send, DUE_TASK, (row.pk, len(row.actions)), row.deadline_at), robust=True)


def _send(task: str, args: tuple, eta: datetime | None) -> None:
    signature(task, args=args).apply_async(eta=eta)
