"""Shootout and heads-up events (rule 18.5) through the services: a shootout table
plays to its winner while the others play on, and the winners are drawn to the
next round's table; a match where every player has been sitting out or
disconnected for the event's number of hands ends, its chip leader advancing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from tests.integration.test_table_rules import all_in_or_call
from tests.tables import chips, in_play, prepare, started
from tournaments.models import Entry, EntryStatus, Hand, HandStatus, Status, Table
from tournaments.services.tables import entry_sit_out, hands_catch_up

pytestmark = pytest.mark.django_db


def test_a_shootout_table_waits_with_its_winner_and_the_winners_meet_at_the_final_table():
    tournament, _ = started([1000] * 4, table_size=2, shootout=True)
    first, second = (in_play(tournament, table__number=number) for number in (1, 2))
    at_first = [Entry.objects.get(pk=pk) for pk in first.seats.values()]
    prepare(first, {at_first[0]: "AsAh", at_first[1]: "7c2d"}, "3c8d5h4sJd")

    all_in_or_call(first)

    # The winner waits alone: nobody is moved to him from the other table.
    table_one = Table.objects.get(tournament=tournament, number=1)
    assert Entry.objects.filter(table=table_one).count() == 1
    assert not table_one.playing
    assert in_play(tournament, table__number=2).pk == second.pk
    at_second = [Entry.objects.get(pk=pk) for pk in second.seats.values()]
    prepare(second, {at_second[0]: "KsKh", at_second[1]: "7d2c"}, "3d8c5s4hJc")

    all_in_or_call(second)

    # Both winners, drawn to the final table, play heads-up.
    final = in_play(tournament)
    assert sorted(Entry.objects.get(pk=pk).pk for pk in final.seats.values()) == sorted(
        [at_first[0].pk, at_second[0].pk]
    )
    assert chips(at_first[0], at_second[0]) == [2000, 2000]
    assert Entry.objects.filter(tournament=tournament, status=EntryStatus.ELIMINATED).count() == 2


def test_a_heads_up_match_of_players_away_for_the_event_s_hands_ends_and_the_leader_wins():
    tournament, entries = started([1200, 800], table_size=2, heads_up=True, idle_hands_limit=3)
    for entry in entries:
        entry_sit_out(tournament_id=tournament.pk, player_id=entry.player_id, sitting_out=True, now=timezone.now())

    for _ in range(3):  # each hand plays itself: blinds posted, folded or checked at once
        hands_catch_up(now=timezone.now(), before=timezone.now(), tournament_id=tournament.pk)
        tournament.refresh_from_db()
        if tournament.status == Status.FINISHED:
            break

    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    leader, other = sorted(Entry.objects.filter(tournament=tournament), key=lambda entry: entry.finish_best)
    assert (leader.pk, leader.finish_best, leader.chips) == (entries[0].pk, 1, 2000)
    assert (other.pk, other.finish_best, other.chips) == (entries[1].pk, 2, 0)
    ended = AuditEntry.objects.get(action="tournaments.floor.table_ended")
    assert ended.data["stacks"][str(leader.pk)] == 2000


def test_bots_at_a_heads_up_table_are_never_away():
    # A limit of one: were bots counted away, the first hand's report would count it
    # (and end the match, unless that hand already ended the event).
    tournament, entries = started([1000, 1000], table_size=2, heads_up=True, idle_hands_limit=1)
    User.objects.filter(pk__in=[entry.player_id for entry in entries]).update(is_bot=True)

    for minute in range(1, 5):
        now = tournament.scheduled_start + timedelta(minutes=minute)
        hands_catch_up(now=now, before=now, tournament_id=tournament.pk)

    assert Hand.objects.filter(tournament=tournament, status=HandStatus.REPORTED).exists()
    assert Table.objects.get(tournament=tournament, number=1).idle_hands == 0
    assert not AuditEntry.objects.filter(action="tournaments.floor.table_ended").exists()
