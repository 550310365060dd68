"""The big-blind ante (issue 28) in a running event: a level configured with it deals
hands where the big blind alone posts the table's ante, as dead money; the table,
Tournament Info, its clock and the API say so; the admin sets it per level."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tournaments.models import AnteKind, BlindLevel, BreakPolicyKind, Entry, Hand, HandStatus
from tournaments.rules.hand_history import phh
from tournaments.rules.hands import HandSetup
from tournaments.selectors.replays import replay
from tournaments.services.clock import tournament_advance

pytestmark = pytest.mark.django_db


def bb_ante_event(players: int = 3):
    structure = BlindStructureFactory(levels=[(50, 100, 100, 20), (100, 200, 200, 20)])
    BlindLevel.objects.filter(structure=structure).update(ante_kind=AnteKind.BIG_BLIND)
    now = timezone.now()
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=now + timedelta(minutes=5),
        table_size=6,
        break_policy=BreakPolicyKind.NONE,
        max_entrants=100,
    )
    entrants(tournament, players, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tournament.refresh_from_db()
    return tournament


def test_a_big_blind_ante_level_deals_hands_where_the_big_blind_alone_posts_the_ante():
    tournament = bb_ante_event()
    row = Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING)
    setup = HandSetup.from_json(row.setup)
    assert setup.big_blind_ante
    assert setup.ante == 100
    hand = replay(row)
    stacks = {seat: hand.stack(seat) for seat in hand.seats}
    starting = tournament.starting_stack
    assert stacks[setup.big_blind_seat] == starting - 200  # ante and blind
    assert stacks[setup.small_blind_seat] == starting - 50
    assert [chips for seat, chips in stacks.items() if seat not in (setup.big_blind_seat, setup.small_blind_seat)] == [
        starting
    ]
    assert hand.pot_total == 250
    assert "antes = [0, 100, 0]" in phh(hand)


def test_the_table_tournament_info_and_the_api_say_the_big_blind_posts_the_ante(client):
    tournament = bb_ante_event()
    entry = Entry.objects.filter(tournament=tournament).select_related("player", "table").first()
    client.force_login(entry.player)

    table = client.get(reverse("lobby:table", args=[tournament.pk, entry.table.number])).text
    assert "big blind ante 100" in table
    info = client.get(reverse("lobby:tournament", args=[tournament.pk])).text
    assert "(big blind ante)" in info
    levels = client.get(f"/api/v1/tournaments/{tournament.pk}/").json()["levels"]
    assert [level["ante_posted_by"] for level in levels] == ["big_blind", "big_blind"]


def test_the_admin_sets_who_posts_the_ante_per_level(admin_client):
    structure = BlindStructureFactory(levels=[(50, 100, 0, 20)])
    form = {
        "name": structure.name,
        "description": "",
        "levels-TOTAL_FORMS": "2",
        "levels-INITIAL_FORMS": "1",
        "levels-MIN_NUM_FORMS": "0",
        "levels-MAX_NUM_FORMS": "1000",
    }
    level = structure.levels.get()
    for index, (pk, position, small, big, ante, kind) in enumerate(
        [(level.pk, 1, 50, 100, 0, "each"), ("", 2, 100, 200, 200, "big_blind")]
    ):
        form |= {
            f"levels-{index}-id": pk,
            f"levels-{index}-structure": structure.pk,
            f"levels-{index}-position": position,
            f"levels-{index}-small_blind": small,
            f"levels-{index}-big_blind": big,
            f"levels-{index}-ante": ante,
            f"levels-{index}-ante_kind": kind,
            f"levels-{index}-minutes": 20,
        }
    response = admin_client.post(reverse("admin:tournaments_blindstructure_change", args=[structure.pk]), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(structure.levels.order_by("position").values_list("ante", "ante_kind")) == [
        (0, "each"),
        (200, "big_blind"),
    ]
