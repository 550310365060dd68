"""Several table nodes, one room (tournaments.nodes): two real Celery nodes, each one
process on its own queue as the Procfile runs them, play the tables of a bot
tournament on PostgreSQL and Redis.

Every stored turn is logged by a trigger on the test's database (the hand, its
revision and its count of actions before and after the write): a turn applied twice
would be two writes from one state of the hand, a turn lost a gap between one
write's end and the next one's start, or a table that stops.

The waits bound failures only; the tests assert what happened, never how fast.
"""

import base64
import itertools
import json
import os
import re
import threading
import time
from collections import defaultdict
from datetime import timedelta
from io import StringIO

import pytest
import redis
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tests.worker import Beat, Node
from tournaments import nodes
from tournaments.models import BreakPolicyKind, Entry, EntryStatus, Hand, HandStatus, Status, Tournament
from tournaments.nodes import Heartbeat, node_queue, nodes_alive, table_node
from tournaments.selectors.replays import replay
from tournaments.services.clock import tournament_advance
from tournaments.services.tables import hands_tick
from tournaments.services.ticks import tick_of
from tournaments.tasks import hand_report, tables_tick

pytestmark = pytest.mark.django_db(transaction=True)

PATIENCE = 300  # seconds: a bound for failures only
PLAYERS = 54
STACK = 10_000


@pytest.fixture
def turn_log():
    """The trigger that logs every stored turn."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE test_turn (hand_id bigint, revision_before int, revision_after int,"
            " taken_before int, taken_after int, applied_at timestamptz)"
        )
        cursor.execute(
            "CREATE FUNCTION test_turn_stored() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " INSERT INTO test_turn VALUES (OLD.id, OLD.revision, NEW.revision, jsonb_array_length(OLD.actions),"
            " jsonb_array_length(NEW.actions), clock_timestamp()); RETURN NULL; END $$"
        )
        cursor.execute(
            f"CREATE TRIGGER test_turn_stored AFTER UPDATE OF actions ON {Hand._meta.db_table} FOR EACH ROW"
            " WHEN (jsonb_array_length(NEW.actions) > jsonb_array_length(OLD.actions))"
            " EXECUTE FUNCTION test_turn_stored()"
        )
    yield
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER IF EXISTS test_turn_stored ON {Hand._meta.db_table}")
        cursor.execute("DROP FUNCTION IF EXISTS test_turn_stored")
        cursor.execute("DROP TABLE IF EXISTS test_turn")


def stored_turns() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT hand_id, revision_before, revision_after, taken_before, taken_after, applied_at FROM test_turn"
        )
        return cursor.fetchall()


@pytest.fixture
def room(tmp_path, settings):
    """Two table nodes, alive; the bots think `TABLE_BOT_SECONDS` and the next hand follows at once."""
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    env = {"TABLE_BOT_SECONDS": "0.05", "TABLE_HAND_GAP_SECONDS": "0"}
    settings.TABLE_BOT_SECONDS, settings.TABLE_HAND_GAP_SECONDS, settings.TABLE_NODES = 0.05, 0.0, 2
    started = [Node(tmp_path, index, env=env) for index in (0, 1)]
    for node in started:
        node.start()
    waited(lambda: alive() == (0, 1), started, "both nodes alive")
    yield started
    for node in started:
        node.kill()


def alive() -> tuple[int, ...]:
    nodes._nodes.read_at = float("-inf")  # read now, not as this process last read it
    return nodes_alive()


def waited(condition, workers, what: str):
    deadline = time.monotonic() + PATIENCE
    while not (found := condition()):
        for worker in workers:
            assert worker.alive(), f"{worker.name} exited\n{worker.log()}"
        assert time.monotonic() < deadline, f"{what} did not happen\n" + "\n".join(w.log() for w in workers)
        time.sleep(0.2)
    return found


def bot_tournament(players: int, *, stack: int = STACK) -> Tournament:
    """A tournament of `players` bots at tables of nine, started now: its seats drawn
    and its first hands dealt, their turns queued to the nodes."""
    start = timezone.now() + timedelta(seconds=1)
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(levels=[(50, 100, 0, 600)]),
        scheduled_start=start,
        starting_stack=stack,
        table_size=9,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
        max_entrants=players,
    )
    for bot in entrants(tournament, players, now=start - timedelta(minutes=1)):
        bot.is_bot = True
        bot.save(update_fields=["is_bot"])
    while timezone.now() < start:
        time.sleep(0.05)
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    return tournament


def check_turns(turns: list[tuple]) -> int:
    """Each hand's stored turns form one chain, each from the state the last one left:
    none applied twice (two writes from one revision), none lost (a gap between two).
    Returns the actions they played."""
    by_hand: dict[int, list[tuple]] = defaultdict(list)
    for hand_id, before, after, taken_before, taken_after, _at in turns:
        by_hand[hand_id].append((before, after, taken_before, taken_after))
    played = 0
    for hand_id, chain in by_hand.items():
        chain.sort()
        revisions = [before for before, *_ in chain]
        assert len(revisions) == len(set(revisions)), f"hand {hand_id} was written twice from one state: {chain}"
        for (_, _, _, end), (_, _, start, _) in itertools.pairwise(chain):
            assert start == end, f"hand {hand_id} lost actions between two turns: {chain}"
        played += sum(taken_after - taken_before for _, _, taken_before, taken_after in chain)
    return played


def check_hands(tournament: Tournament) -> None:
    """Every hand's record replays to what is stored of it; a rolled-back one was voided
    with its reason (rule 22)."""
    for row in Hand.objects.filter(tournament=tournament):
        if row.status == HandStatus.VOIDED:
            assert row.voided_reason
            continue
        played = replay(row)
        if row.status in (HandStatus.FINISHED, HandStatus.REPORTED):
            assert played.over
            assert {str(seat): chips for seat, chips in played.result().stacks.items()} == row.result["stacks"]
        else:
            assert not played.over
            assert played.to_act == row.to_act


def queued(broker: str, queue: str, task: str) -> list[list]:
    """The arguments of each `task` waiting on the broker's `queue` (kombu's Redis lists)."""
    found = []
    for raw in redis.Redis.from_url(broker).lrange(queue, 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] == task:
            args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
            found.append(args)
    return found


def test_a_node_leaves_a_tournament_another_process_is_reporting_to_a_report_task_and_plays_on(settings):
    settings.TABLE_BOT_SECONDS, settings.TABLE_HAND_GAP_SECONDS, settings.TABLE_NODES = 0.0, 0.0, 2
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    for index in (0, 1):
        Heartbeat(index).renew()
    tournament = bot_tournament(2)  # one table, heads-up
    row = Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING)
    node = table_node(row.table_id, nodes_alive())
    locked, release = threading.Event(), threading.Event()

    def reporting() -> None:  # another process, in the middle of this tournament's report
        try:
            with transaction.atomic():
                Tournament.objects.select_for_update().get(pk=tournament.pk)
                locked.set()
                release.wait(PATIENCE)
        finally:
            connection.close()

    other = threading.Thread(target=reporting)
    other.start()
    try:
        assert locked.wait(PATIENCE)
        # The node's ticks play the hand to its end, none of them waiting for the lock.
        for _ in range(200):
            row.refresh_from_db()
            if row.status != HandStatus.PLAYING:
                break
            now = timezone.now()
            Hand.objects.filter(pk=row.pk).update(deadline_at=now)
            hands_tick(tick=tick_of(now), node=node, now=tick_of(now))
        assert row.status == HandStatus.FINISHED  # ended, and not given to the floor meanwhile
        assert other.is_alive()
        assert queued(settings.CELERY_BROKER_URL, node_queue(node), "tournaments.tasks.hand_report") == [[row.pk]]
    finally:
        release.set()
        other.join()

    # The report task, as the node runs it once the lock is free, gives it to the floor.
    assert hand_report(row.pk) is True
    row.refresh_from_db()
    assert row.status == HandStatus.REPORTED
    tournament.refresh_from_db()
    dealt = Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).count()
    assert dealt == 1 or tournament.status == Status.FINISHED  # dealt again, unless an all-in ended the event


def test_two_nodes_play_a_thousand_turns_each_once_however_often_their_ticks_come(room, turn_log):
    events = [bot_tournament(PLAYERS) for _ in range(2)]  # six tables each

    # Besides each node's own ticks, both nodes are sent a tick every 25 ms that plays
    # every turn due in its step, whichever node's table: every turn is raced for.
    stop = threading.Event()

    def racing() -> None:
        while not stop.wait(0.025):
            tick = tick_of(timezone.now()).isoformat()
            for index in (0, 1):
                tables_tick.apply_async((None, tick), queue=node_queue(index))

    racer = threading.Thread(target=racing, daemon=True)
    racer.start()
    try:
        # No beat, no sweep: the ticks alone play every turn, or a tournament stops.
        finished = Tournament.objects.filter(pk__in=[event.pk for event in events], status=Status.FINISHED)
        waited(lambda: finished.count() == len(events), room, "a winner in each event")
    finally:
        stop.set()
        racer.join()

    for node in room:
        assert "ERROR/" not in node.log_path().read_text(errors="replace"), node.log()
    assert check_turns(stored_turns()) >= 1000
    for event in events:
        check_hands(event)
        entries = Entry.objects.filter(tournament=event)
        assert sum(entries.values_list("chips", flat=True)) == PLAYERS * STACK
        (winner,) = entries.filter(status=EntryStatus.ACTIVE)
        assert winner.chips == PLAYERS * STACK
    for node in room:  # both played turns
        log = node.log_path().read_text()
        assert re.search(r"tables_tick\[[^]]*\] succeeded in [0-9.e-]+s: [1-9]", log), node.log()
    call_command("wallet_audit", stdout=StringIO())  # the books balance


def test_a_node_killed_mid_hand_hands_its_tables_to_the_other_which_plays_on_from_their_records(
    room, turn_log, tmp_path
):
    beat = Beat(tmp_path, env={"TABLE_BOT_SECONDS": "0.05", "TABLE_HAND_GAP_SECONDS": "0"})
    beat.start()
    try:
        tournament = bot_tournament(36, stack=50_000)  # four tables, long enough to outlive the kill
        owners = {pk: table_node(pk, (0, 1)) for pk in tournament.tables.values_list("pk", flat=True)}
        killed = max((0, 1), key=lambda index: list(owners.values()).count(index))
        orphans = {pk for pk, owner in owners.items() if owner == killed}
        hands_of = dict(Hand.objects.filter(tournament=tournament).values_list("pk", "table_id"))

        def played_at(tables: set[int], after) -> set[int]:
            hands_of.update(Hand.objects.filter(tournament=tournament).values_list("pk", "table_id"))
            return {hands_of[hand] for hand, *_, at in stored_turns() if at > after and hands_of.get(hand) in tables}

        began = timezone.now()
        waited(lambda: played_at(orphans, began) == orphans, room, "the killed node's tables playing")
        os.killpg(room[killed].proc.pid, 9)  # SIGKILL, mid-turn as likely as not
        room[killed].proc.wait(timeout=15)
        killed_at = timezone.now()

        # Its tables go on, played by the other node (and by the sweep, turns its ticks held).
        waited(lambda: played_at(orphans, killed_at) == orphans, [room[1 - killed], beat], "the tables taken over")
        waited(lambda: alive() == (1 - killed,), [room[1 - killed], beat], "the killed node's lease lapsed")
        again = timezone.now()
        waited(lambda: played_at(orphans, again) == orphans, [room[1 - killed], beat], "the tables playing on")
    finally:
        beat.kill()
    room[1 - killed].kill()

    check_turns(stored_turns())
    check_hands(tournament)
    entries = Entry.objects.filter(tournament=tournament, status=EntryStatus.ACTIVE)
    assert sum(entries.values_list("chips", flat=True)) == 36 * 50_000  # every chip on the floor's books
    call_command("wallet_audit", stdout=StringIO())
