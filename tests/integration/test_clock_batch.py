"""A tick advances its tournaments a few to a transaction (tournaments.tasks.clock_tick):
a tournament another service holds is not waited for but advanced on its own, and
one that fails leaves the others' clocks going."""

import threading
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.utils import timezone

from tests.factories import TournamentFactory
from tournaments.models import Status, Tournament
from tournaments.services import clock
from tournaments.services.clock import tournament_advance, tournaments_advance
from tournaments.services.ticks import tick_of
from tournaments.tasks import clock_tick


def due_at_once(count: int) -> tuple[list[Tournament], str]:
    """`count` events with nobody registered whose starts fall in one tick's step."""
    now = timezone.now()
    tick = tick_of(now - timedelta(seconds=1))
    events = [TournamentFactory(scheduled_start=tick) for _ in range(count)]
    for tournament in events:
        tournament_advance(tournament_id=tournament.pk, now=now - timedelta(seconds=2))
    return events, tick.isoformat()


def status(tournament: Tournament) -> str:
    return Tournament.objects.get(pk=tournament.pk).status


@pytest.mark.django_db(transaction=True)
def test_a_tournament_held_elsewhere_is_left_to_advance_alone_and_never_waited_for():
    (held, free), _ = due_at_once(2)
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                Tournament.objects.select_for_update().get(pk=held.pk)
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(timeout=10)
        left = tournaments_advance(tournament_ids=[held.pk, free.pk], now=timezone.now())
        assert left == [held.pk]
        assert status(free) == Status.CANCELLED  # its start applied: nobody registered
        assert status(held) == Status.REGISTERING
    finally:
        release.set()
        holder.join()
    tournament_advance(tournament_id=held.pk, now=timezone.now())
    assert status(held) == Status.CANCELLED


@pytest.mark.django_db
def test_one_tournament_that_fails_leaves_the_others_of_its_tick_going(monkeypatch):
    events, tick = due_at_once(3)
    broken = events[1]
    cancel = clock._cancel_short_of_entrants

    def failing(tournament, at):
        if tournament.pk == broken.pk:
            raise RuntimeError("a bug")
        cancel(tournament, at)

    monkeypatch.setattr(clock, "_cancel_short_of_entrants", failing)

    assert clock_tick(tick) == 2

    assert [status(tournament) for tournament in events] == [Status.CANCELLED, Status.REGISTERING, Status.CANCELLED]
