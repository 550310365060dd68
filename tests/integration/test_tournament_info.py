from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from lobby import views as lobby_views
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants
from tournaments.models import Entry, Tournament
from tournaments.services.cancellation import tournament_cancel
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register
from tournaments.services.tables import floor_hand_finished
from wallet.services import deposit_create


def future_day_at(hour: int, minute: int) -> datetime:
    day = timezone.now().astimezone(UTC) + timedelta(days=3)
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0)


@pytest.fixture
def structure(db):
    return BlindStructureFactory()


def info(client, tournament) -> str:
    response = client.get(f"/tournaments/{tournament.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_synchronised_breaks_fall_at_55_past_each_hour(client, structure):
    tournament = TournamentFactory(blind_structure=structure, scheduled_start=future_day_at(7, 25))
    body = info(client, tournament)
    assert '<tr class="break"><td colspan="3">Break</td><td>5 minutes</td><td><time' in body
    breaks = body.split('<tr class="break">')[1:]
    assert [chunk.split("data-local>")[1][:5] for chunk in breaks[:3]] == ["07:55", "08:55", "09:55"]
    assert "55 minutes past every hour" in body


def test_interval_breaks_come_after_each_hour_of_play(client, structure):
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=future_day_at(7, 25),
        break_policy="interval",
        break_interval_minutes=60,
    )
    breaks = info(client, tournament).split('<tr class="break">')[1:]
    assert [chunk.split("data-local>")[1][:5] for chunk in breaks[:2]] == ["08:25", "09:30"]


def test_level_table_shows_each_levels_start_time(client, db):
    structure = BlindStructureFactory(levels=[(10, 20, 0, 15), (15, 30, 0, 15), (25, 50, 5, 15)])
    tournament = TournamentFactory(blind_structure=structure, scheduled_start=future_day_at(12, 0), break_policy="none")
    body = info(client, tournament)
    assert "<td>2</td><td>15 / 30</td><td>0</td><td>15 minutes</td>" in body
    assert [
        chunk.split("data-local>")[1][:5] for chunk in body.split('<table class="levels">')[1].split("<time")[1:]
    ] == [
        "12:00",
        "12:15",
        "12:30",
    ]
    assert "No breaks in this tournament." in body


def test_sub_minute_levels_and_breaks_show_their_seconds(client, db):
    # Rule 17: interval breaks; the demo's Clock Sprint has levels and breaks this short.
    structure = BlindStructureFactory(levels=[(10, 20, 0, 0, 45), (15, 30, 0, 1, 30), (25, 50, 0, 2)])
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=future_day_at(12, 0),
        break_policy="interval",
        break_minutes=0,
        break_seconds=30,
        break_interval_minutes=2,
    )
    body = info(client, tournament)
    assert "A break of 30 seconds after every 2 minutes of play." in body
    assert "<td>1</td><td>10 / 20</td><td>0</td><td>45 seconds</td>" in body
    assert "<td>2</td><td>15 / 30</td><td>0</td><td>1 minute 30 seconds</td>" in body
    assert '<tr class="break"><td colspan="3">Break</td><td>30 seconds</td>' in body
    assert "0 minute" not in body


def test_deadlines_are_clock_times(client, structure):
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=future_day_at(20, 0),
        unregistration_deadline_minutes=10,
        late_registration_minutes=20,
        extended_late_registration_minutes=90,
        late_registration_closes_at_first_elimination=True,
    )
    body = info(client, tournament)
    assert "Unregistration until</dt><dd><time" in body
    assert "19:50</time>" in body
    assert "Extended late registration until" in body
    assert "21:30</time>" in body
    assert "or at the first elimination" in body


def test_no_unregistration_is_announced(client, structure):
    tournament = TournamentFactory(blind_structure=structure, unregistration_allowed=False)
    assert "No unregistration in this tournament" in info(client, tournament)


def test_rebuy_and_addon_terms_and_the_addon_break(client, structure):
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=future_day_at(7, 0),
        buy_in=300,
        fee=30,
        rebuy_price=300,
        rebuy_fee=30,
        rebuy_chips=10_000,
        rebuy_levels=3,
        rebuy_limit=2,
        addon_price=500,
        addon_fee=50,
        addon_chips=15_000,
        addon_break_minutes=3,
    )
    body = info(client, tournament)
    assert "€3 + €0.30 for 10,000 chips" in body
    assert "the first 3 levels, at most 2 rebuys" in body
    assert "€5 + €0.50 for 15,000 chips" in body
    # 20-minute levels from 07:00: the 07:55 break stops level 3's clock for five
    # minutes, so the rebuy period ends at 08:05 and the add-on break follows it.
    assert '<tr class="break addon"><td colspan="3">Add-on break</td><td>3 minutes</td><td><time' in body
    assert body.split('<tr class="break addon">')[1].split("data-local>")[1][:5] == "08:05"


def test_payouts_follow_the_entrants_and_are_provisional(client, structure, player, other_player):
    tournament = TournamentFactory(blind_structure=structure, buy_in=1000, fee=100)
    for person in (player, other_player, UserFactory(), UserFactory()):
        deposit_create(user=person, currency="EUR", amount=5000, idempotency_key=f"test:{person.pk}")
        entry_register(tournament_id=tournament.pk, player=person, now=timezone.now())
    body = info(client, tournament)
    assert "Payouts (provisional)" in body
    assert "4 / 1000" in body
    assert "€40" in body  # prize pool of four €10 buy-ins
    payouts = body.split('<table class="payouts">')[1].split("</table>")[0]
    assert payouts.count("<tr>") == 3  # header + two paid places from four entrants


def test_guarantee_overlay_is_the_prize_pool(client, structure):
    tournament = TournamentFactory(blind_structure=structure, guarantee=100_000)
    assert "€1,000 (guaranteed €1,000)" in info(client, tournament)


def test_satellite_links_its_target_and_the_target_lists_it(client, structure):
    target = TournamentFactory(name="Sunday Major", blind_structure=structure, buy_in=10_000, fee=900)
    satellite = TournamentFactory(
        name="Sunday Satellite",
        blind_structure=structure,
        satellite_target=target,
        satellite_seats=3,
        prize_structure="satellite",
    )
    body = info(client, satellite)
    assert f'href="/tournaments/{target.pk}/">Sunday Major</a>, 3 seats guaranteed' in body
    assert f'href="/tournaments/{satellite.pk}/">Sunday Satellite</a>' in info(client, target)


def test_bounty_deals_and_rules_that_apply(client, structure):
    tournament = TournamentFactory(
        blind_structure=structure,
        bounty_kind="knockout",
        bounty_amount=500,
        deal_leave_for_winner=2500,
        game="omaha_hilo",
        betting="fl",
    )
    body = info(client, tournament)
    assert "Knockout: €5" in body
    assert "€25 is left for the winner" in body
    assert "<strong>Rule 6</strong>: Fixed Limit: one bet and three raises" in body
    assert "<strong>Rule 25</strong>" in body
    assert "<strong>Rule 24</strong>" in body


def test_deals_not_allowed_is_shown(client, structure):
    tournament = TournamentFactory(blind_structure=structure, deals_allowed=False)
    assert "Deals are not allowed in this tournament." in info(client, tournament)


def test_unknown_tournament_is_404(client, db):
    assert client.get("/tournaments/999999/").status_code == 404


# A finished or cancelled event (rules 7, 11, 12, 22)


def played_to_the_end(players) -> Tournament:
    """An event of `players` (the first wins, the last is out first) played to its end
    through the services while its late registration is still open."""
    now = timezone.now()
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=now + timedelta(minutes=5),
        break_policy="none",
        late_registration_minutes=60,
    )
    for person in players:
        deposit_create(user=person, currency="EUR", amount=1100, idempotency_key=f"test:{person.pk}")
        entry_register(tournament_id=tournament.pk, player=person, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    at = tournament.scheduled_start + timedelta(minutes=1)
    for loser in reversed(players[1:]):
        stacks = dict(Entry.objects.filter(tournament=tournament, finish_best=None).values_list("player", "chips"))
        entries = dict(Entry.objects.filter(tournament=tournament).values_list("player", "pk"))
        result = {entries[person]: chips for person, chips in stacks.items()}
        result[entries[players[0].pk]] += result[entries[loser.pk]]
        result[entries[loser.pk]] = 0
        floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=result, now=at)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    return tournament


def test_a_finished_event_shows_registration_closed_final_payouts_and_each_players_place_and_prize(
    client, player, other_player
):
    tournament = played_to_the_end([player, other_player, UserFactory()])

    client.force_login(player)
    body = info(client, tournament)
    assert "<dt>Registration</dt><dd>Closed</dd>" in body
    assert "Open now" not in body
    assert "Payouts (provisional)" not in body
    assert "<h3>Payouts</h3>" in body
    assert "You won the tournament. Your prize: €30." in " ".join(body.split())
    assert "You are registered" not in body

    client.force_login(other_player)
    assert "You finished in place 2." in info(client, tournament)


def test_a_cancelled_event_shows_registration_closed_no_payouts_and_the_refund(client, player):
    tournament = TournamentFactory(blind_structure=BlindStructureFactory(), registration_opens_at=None)
    deposit_create(user=player, currency="EUR", amount=1100, idempotency_key="test:player")
    entry_register(tournament_id=tournament.pk, player=player, now=timezone.now())
    tournament_cancel(tournament_id=tournament.pk, actor=None, reason="Storm.", now=timezone.now())

    client.force_login(player)
    body = info(client, tournament)
    assert "<dt>Registration</dt><dd>Closed</dd>" in body
    assert "Open now" not in body
    assert "Payouts (provisional)" not in body
    assert '<table class="payouts">' not in body
    assert "This tournament has been cancelled. Your refund is in your wallet." in body


# The tables of an event under way


def test_the_tables_are_listed_one_line_each_with_their_players_and_largest_and_smallest_stack(client, structure):
    start = timezone.now() - timedelta(minutes=1)
    tournament = TournamentFactory(
        blind_structure=structure,
        scheduled_start=start,
        table_size=6,
        break_policy="none",
        late_registration_minutes=0,
        max_entrants=100,
    )
    entrants(tournament, 10, now=start - timedelta(minutes=10))
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    at_one = dict(Entry.objects.filter(tournament=tournament, table__number=1).values_list("pk", "chips"))
    loser, winner = sorted(at_one)[:2]
    won = at_one | {loser: at_one[loser] - 500, winner: at_one[winner] + 500}
    floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=won, now=timezone.now())

    body = " ".join(info(client, tournament).split())
    stack = tournament.starting_stack
    path = f"/tournaments/{tournament.pk}/tables"
    assert (
        f'<tr><td><a href="{path}/1/">Table 1</a></td><td class="money">5</td>'
        f'<td class="money">{stack + 500:,}</td><td class="money">{stack - 500:,}</td></tr>'
    ) in body
    assert (
        f'<tr><td><a href="{path}/2/">Table 2</a></td><td class="money">5</td>'
        f'<td class="money">{stack:,}</td><td class="money">{stack:,}</td></tr>'
    ) in body
    # Who sits where is on each table's page, not listed here seat by seat.
    name = Entry.objects.get(pk=loser).player.screen_name
    assert name not in body.split('class="levels table-list"')[1].split("</table>")[0]


def test_a_big_field_shows_its_best_places_so_far_and_the_players_list_has_the_rest(
    client, player, other_player, monkeypatch
):
    monkeypatch.setattr(lobby_views, "STANDINGS_SHOWN", 2)
    third = UserFactory()
    tournament = played_to_the_end([player, other_player, third])

    body = " ".join(info(client, tournament).split())
    finished = body.split('<table class="standings">')[1].split("</table>")[0]
    assert player.screen_name in finished
    assert other_player.screen_name in finished
    assert third.screen_name not in finished
    assert "The 2 best places so far: the players list has every player's place." in body
    # The players list (its first page) has the third's place.
    players = body.split(f'id="players-{tournament.pk}"')[1]
    assert third.screen_name in players

    monkeypatch.setattr(lobby_views, "STANDINGS_SHOWN", 3)
    assert "best places so far" not in info(client, tournament)
