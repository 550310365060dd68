"""The clock as staff and players see it: staff pause and resume it from the event
list; Tournament Info shows the level, its countdown, the break and the pause."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, entrants, tables_finish
from tests.integration.test_admin_cancel import CHANGELIST, confirm, grant, run_action, shown_messages
from tournaments.models import BreakPolicyKind, Status, Tournament
from tournaments.services.cancellation import tournament_postpone
from tournaments.services.clock import tournament_pause

pytestmark = pytest.mark.django_db


def in_play(minutes_ago: float = 5, **fields) -> Tournament:
    """Two entrants, started `minutes_ago` minutes ago, 20-minute levels, no breaks
    unless asked (synchronised ones depend on the time of day)."""
    now = timezone.now()
    fields = {"break_policy": BreakPolicyKind.NONE} | fields
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), name="Nightly 11", scheduled_start=now + timedelta(minutes=1), **fields
    )
    entrants(tournament, now=now)
    Tournament.objects.filter(pk=tournament.pk).update(scheduled_start=now - timedelta(minutes=minutes_ago))
    tables_finish(tournament.pk, now=now)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def floor_client(client, staff):
    staff.groups.add(Group.objects.get(name="Support staff"))
    client.force_login(staff)
    return client


# Staff


def test_staff_pause_with_a_reason_and_resume_from_the_event_list(floor_client, staff):
    tournament = in_play()
    asked = run_action(floor_client, "pause_clock", [tournament])
    assert "Pause the clock" in asked.text
    assert 'name="reason"' in asked.text

    paused = confirm(floor_client, "pause_clock", [tournament], reason="Deal talks at the final table")

    assert paused.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.status, tournament.pause_reason) == (Status.PAUSED, "Deal talks at the final table")
    assert AuditEntry.objects.get(action="tournaments.clock.paused").actor == staff

    resumed = run_action(floor_client, "resume_clock", [tournament])
    assert resumed.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Status.LATE_REGISTRATION
    assert tournament.paused_at is None
    assert AuditEntry.objects.get(action="tournaments.clock.resumed").actor == staff


def test_pausing_an_event_not_in_play_says_why(floor_client):
    waiting = TournamentFactory(blind_structure=BlindStructureFactory(), name="Sunday 50")

    response = confirm(floor_client, "pause_clock", [waiting], reason="Testing")
    page = floor_client.get(response.url)

    assert "Sunday 50: Only a tournament in play can be paused." in shown_messages(page)
    waiting.refresh_from_db()
    assert waiting.paused_at is None


def test_resuming_a_running_event_says_it_is_not_paused(floor_client):
    tournament = in_play()

    page = floor_client.get(run_action(floor_client, "resume_clock", [tournament]).url)

    assert "Nightly 11: The tournament is not paused." in shown_messages(page)


def test_players_and_view_only_staff_cannot_pause(client, player, staff):
    tournament = in_play()
    client.force_login(player)
    assert reverse("admin:login") in confirm(client, "pause_clock", [tournament], reason="Mine").url
    client.force_login(grant(staff, "view_tournament"))
    page = client.get(reverse(CHANGELIST))
    assert "pause_clock" not in page.text
    confirm(client, "pause_clock", [tournament], reason="Curious")
    tournament.refresh_from_db()
    assert tournament.paused_at is None


# Tournament Info


def clock_card(client, tournament) -> str:
    response = client.get(reverse("lobby:tournament_clock", args=[tournament.pk]))
    assert response.status_code == 200
    return response.text


def test_before_the_start_the_card_counts_down_to_it_and_says_it_was_postponed(client, staff):
    tournament = TournamentFactory(blind_structure=BlindStructureFactory())
    first = tournament.scheduled_start
    tournament_postpone(
        tournament_id=tournament.pk,
        actor=staff,
        new_start=first + timedelta(hours=1),
        reason="Servers",
        now=timezone.now(),
    )
    tournament.refresh_from_db()

    card = clock_card(client, tournament)

    assert f'data-countdown datetime="{tournament.scheduled_start.isoformat()}"' in card
    assert "Postponed: first announced for" in card
    assert f'datetime="{first.isoformat()}"' in card


def test_in_play_the_card_shows_the_level_its_end_and_the_next_level(client):
    tournament = in_play(minutes_ago=25)  # level 2 of 20/40... (20-minute levels)

    page = client.get(reverse("lobby:tournament", args=[tournament.pk])).text

    assert "Level 2" in page
    assert "20 / 40" in page  # its blinds
    assert f'data-countdown datetime="{tournament.level_ends_at.isoformat()}"' in page
    assert "Next level" in page
    assert "40 / 80" in page
    assert 'data-server-now="' in page
    assert '<dd class="players-left">2 / 2</dd>' in page
    assert f'<dd class="average-stack">{tournament.starting_stack:,}</dd>' in page


def test_on_a_break_the_card_counts_down_to_the_end_of_the_break(client):
    tournament = in_play(minutes_ago=62, break_policy=BreakPolicyKind.INTERVAL, break_interval_minutes=60)

    card = clock_card(client, tournament)

    assert tournament.status == Status.ON_BREAK
    assert "Break. Play resumes in" in card
    assert f'data-countdown datetime="{tournament.break_ends_at.isoformat()}"' in card


def test_paused_the_card_shows_the_reason_and_the_time_left_in_the_level(client, staff):
    tournament = in_play(minutes_ago=5)
    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Deal talks", now=timezone.now())

    card = clock_card(client, tournament)

    assert "Paused" in card
    assert "Deal talks" in card
    assert "Left in the level" in card
    assert "data-countdown" not in card  # nothing counts down while paused


# The API


def test_the_api_gives_the_clock_with_the_servers_time(client, staff):
    tournament = in_play(minutes_ago=25)
    body = client.get(f"/api/v1/tournaments/{tournament.pk}/").json()
    assert body["clock"]["level"] == 2
    assert body["clock"]["level_ends_at"] == tournament.level_ends_at.isoformat().replace("+00:00", "Z")
    assert body["clock"]["paused"] is False
    assert body["clock"]["server_time"].endswith("Z")

    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Deal talks", now=timezone.now())
    paused = client.get(f"/api/v1/tournaments/{tournament.pk}/").json()["clock"]
    assert (paused["paused"], paused["pause_reason"]) == (True, "Deal talks")
