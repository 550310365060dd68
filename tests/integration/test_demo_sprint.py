"""The demo's *Clock Sprint* as a new player meets it: he registers late, is dealt in
at once, and his first turn waits for him to reach the table (rule 18.2's extra
time, which the sprint gives from its start) instead of folding him and sitting
him out before his page is open."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from tournaments.demo import SPRINT_EXTRA_SECONDS, demo_sprint_load
from tournaments.models import Entry, Hand, HandStatus, Tournament
from tournaments.selectors.replays import entry_of
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register
from tournaments.services.tables import hand_act, hand_due, hands_catch_up

pytestmark = pytest.mark.django_db


def turn_of(player: User, tournament: Tournament) -> Hand:
    """The bots play at once until it is `player`'s turn, wherever the floor has moved him."""
    for _round in range(200):
        entry = Entry.objects.get(tournament=tournament, player=player)
        for row in Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING, table=entry.table_id):
            if row.to_act is not None and entry_of(row, row.to_act) == entry.pk:
                return row
        moment = timezone.now() + timedelta(days=1)
        hands_catch_up(now=moment, before=moment, tournament_id=tournament.pk, bots_wait=False)
    raise AssertionError("his turn never came")


def test_a_late_entrant_s_first_turn_in_the_demo_sprint_waits_for_him_to_reach_the_table():
    sprint = demo_sprint_load(now=timezone.now())
    tournament_advance(tournament_id=sprint.pk, now=sprint.scheduled_start)
    alice = User.objects.get(username="alice")
    entry_register(tournament_id=sprint.pk, player=alice, now=sprint.scheduled_start + timedelta(seconds=5))
    row = turn_of(alice, sprint)
    deadline = row.deadline_at

    # His page is not at the table yet when his time runs out.
    hand_due(hand_id=row.pk, at=len(row.actions), now=deadline)

    row.refresh_from_db()
    assert row.to_act is not None  # not folded
    assert entry_of(row, row.to_act) == Entry.objects.get(player=alice).pk
    assert row.extra_time
    assert row.deadline_at == deadline + timedelta(seconds=SPRINT_EXTRA_SECONDS)
    entry = Entry.objects.get(tournament=sprint, player=alice)
    assert not entry.sitting_out
    # He arrives within the minute and plays his turn.
    at = len(row.actions)
    played = hand_act(hand_id=row.pk, player_id=alice.pk, at=at, kind="f", now=deadline)
    assert played.hand.actions[at] == [row.to_act, "f", None]
