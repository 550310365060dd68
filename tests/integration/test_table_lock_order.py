"""Tables are locked before their hands: a node whose warm copy of a hand turns out
stale asks for the table's lock holding nothing, so a report that holds the table
and then writes the hand goes through instead of deadlocking with it."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from tests.tables import in_play, started
from tournaments.models import Hand, Table
from tournaments.services.tables import hand_due

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(statement: str, timeout: float = 30.0) -> None:
    """Until another backend of this database waits for a lock in a statement starting with `statement`."""
    ends = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < ends:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE %s",
                [statement + "%"],
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError(f"nobody waited in {statement!r}")


def _in_thread(target, results: dict, name: str) -> threading.Thread:
    def run():
        try:
            results[name] = target()
        except Exception as error:  # the test reports it
            results[name] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_stale_warm_turn_waits_for_its_table_holding_no_lock_on_its_hand():
    tournament, _ = started([5000] * 6)
    hand = in_play(tournament)  # dealt in this process: kept warm here, as the deal left it
    # The record as the copy has it (the start touched it since): the copy is current.
    Hand.objects.filter(pk=hand.pk).update(revision=0)
    results: dict[str, object] = {}
    turned, reported, hand_written = threading.Event(), threading.Event(), threading.Event()
    holding = [threading.Event(), threading.Event()]

    def another_turn():  # another process's turn on the hand: the warm copy becomes stale
        with transaction.atomic():
            Hand.objects.filter(pk=hand.pk).update(revision=F("revision") + 1)
            holding[0].set()
            turned.wait(30)
        return "committed"

    def report():  # the floor's report: the table first, then the hand
        with transaction.atomic():
            Table.objects.select_for_update().get(pk=hand.table_id)
            holding[1].set()
            reported.wait(30)
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '10s'")
            written = Hand.objects.filter(pk=hand.pk).update(revision=F("revision") + 1)
            hand_written.set()
        return written

    def due_turn():
        later = timezone.now() + timedelta(hours=1)  # every deadline passed
        return hand_due(hand_id=hand.pk, at=len(hand.actions), now=later, report=True)

    threads = [_in_thread(another_turn, results, "turn"), _in_thread(report, results, "report")]
    assert all(held.wait(30) for held in holding)  # both hold their rows
    threads.append(_in_thread(due_turn, results, "due"))
    _waiting('UPDATE "tournaments_hand"')  # the warm copy's write waits for the other turn
    turned.set()  # which commits: the write finds nothing to write, and the turn asks for the table
    _waiting('SELECT "tournaments_table"')
    reported.set()  # the report writes the hand, then lets the table go
    for thread in threads:
        thread.join(60)

    assert results["turn"] == "committed"
    assert results["report"] == 1, results["report"]
    assert hand_written.is_set()
    assert results["due"] is True, results["due"]  # played from the record, after the report
    hand.refresh_from_db()
    assert len(hand.actions) > 0
