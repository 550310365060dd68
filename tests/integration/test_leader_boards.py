"""Leader Boards (issue 29): an event that counts awards points for each finish when
it ends, by the documented formula; a result voided by a review loses its points,
audited, the ledger untouched; the board's page ranks the period's players with the
viewer's own row highlighted and reachable without paging; the API gives the boards
and a player's points; a deal's page says points are not part of a deal."""

from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import TournamentFactory, UserFactory
from tests.integration.test_integrity import finish_with_withheld_winner
from tournaments.models import BoardKind, Entry, LeaderBoard, LeaderBoardPoints
from tournaments.rules.leader_boards import finish_points
from tournaments.services.integrity import prize_confiscate
from tournaments.services.leader_boards import leader_board_award

pytestmark = pytest.mark.django_db


def test_a_finished_event_awards_each_finish_its_points_and_a_voided_result_loses_them():
    tournament, winner, staff = finish_with_withheld_winner()
    earned = {p.entry_id: p for p in LeaderBoardPoints.objects.filter(tournament=tournament)}
    entries = Entry.objects.filter(tournament=tournament)
    assert set(earned) == {entry.pk for entry in entries}
    buy_in = tournament.buy_in / 100  # euros: the reference money
    for entry in entries:
        expected = finish_points(entrants=3, place=entry.finish_best, buy_in=buy_in)
        assert (earned[entry.pk].place, earned[entry.pk].points) == (entry.finish_best, expected)
    assert earned[winner.pk].board.kind == BoardKind.TOURNAMENT
    assert leader_board_award(tournament=tournament, now=timezone.now()) == 0  # once an entry

    prize_confiscate(entry_id=winner.pk, actor=staff, reason="Chip dumping, confirmed", now=timezone.now())

    withdrawn = LeaderBoardPoints.objects.get(entry=winner)
    assert withdrawn.withdrawn_at is not None
    audit = AuditEntry.objects.get(action="tournaments.leader_board.withdrawn")
    assert (audit.actor, audit.reason, audit.data["points"]) == (
        staff,
        "Chip dumping, confirmed",
        str(withdrawn.points),
    )
    call_command("wallet_audit", stdout=StringIO())  # points are never money
    page = Client().get("/leader-boards/tournament/day/").text
    assert winner.player.screen_name not in page  # his points no longer count


def test_an_event_that_does_not_count_awards_nothing():
    tournament = TournamentFactory(leader_board=False)
    assert leader_board_award(tournament=tournament, now=timezone.now()) == 0
    assert not LeaderBoardPoints.objects.exists()


def points_for(players, *, kind=BoardKind.TOURNAMENT, at=None):
    """Points rows for `players`, the first with most (one finish each)."""
    board, _ = LeaderBoard.objects.get_or_create(kind=kind)
    tournament = TournamentFactory()
    for rank, player in enumerate(players):
        entry = Entry.objects.create(tournament=tournament, player=player, finish_best=rank + 1)
        LeaderBoardPoints.objects.create(
            board=board,
            entry=entry,
            player=player,
            tournament=tournament,
            place=rank + 1,
            entrants=len(players),
            points=Decimal(1000 - rank),
            earned_at=at or timezone.now(),
        )


def test_the_board_ranks_the_periods_players_and_shows_his_own_row_from_any_page():
    players = [UserFactory(username=f"p{n:03d}", screen_name=f"Player {n:03d}") for n in range(60)]
    points_for(players)
    me = players[55]
    client = Client()
    client.force_login(me)

    first = client.get("/leader-boards/tournament/month/").text
    assert "Player 000" in first
    assert "Player 055" in first.split("<tbody>")[1]  # his row, after the first page's fifty
    assert "Your place: 56, with 945.00 points from 1 finishes." in first
    assert f'id="board-player-{me.pk}" class="own" aria-current="true"' in first
    second = client.get("/leader-boards/tournament/month/?page=2").text
    assert "Player 050" in second
    assert "Player 000" not in second

    assert "Player 000" not in Client().get("/leader-boards/sit_and_go/month/").text  # the other board
    last_year = (timezone.now() - timedelta(days=400)).date().isoformat()
    assert (
        "No points earned in this period yet." in Client().get(f"/leader-boards/tournament/year/?date={last_year}").text
    )
    bad = Client().get("/leader-boards/tournament/day/?date=yesterday")
    assert bad.status_code == 400
    assert "Give the date as year-month-day" in bad.text
    assert Client().get("/leader-boards/cash/day/").status_code == 404


def test_the_api_gives_a_board_and_a_players_points():
    players = [UserFactory(username=f"a{n}", screen_name=f"Api {n}") for n in range(3)]
    points_for(players)
    board = Client().get("/api/v1/leader-boards/tournament/?period=month").json()
    assert [(row["place"], row["player"], row["points"]) for row in board["results"]] == [
        (1, "Api 0", "1000.00"),
        (2, "Api 1", "999.00"),
        (3, "Api 2", "998.00"),
    ]
    mine = Client()
    mine.force_login(players[1])
    assert mine.get("/api/v1/me/points/?period=year").json() == {
        "period": "year",
        "points": {"tournament": "999.00", "sit_and_go": "0.00"},
    }
    assert Client().get("/api/v1/me/points/").status_code in (401, 403)
    assert Client().get("/api/v1/leader-boards/tournament/?period=week").status_code == 400


def test_points_earned_tell_every_open_board_page_to_fetch_its_standings_again():
    from live.delivery import Refresh
    from live.groups import may_join
    from lobby.live import publish
    from tournaments.events import LeaderBoardChanged

    messages = publish([LeaderBoardChanged(), LeaderBoardChanged()])  # once, however many finishes

    assert messages == [Refresh("leader-boards.en", ("leader-board",)), Refresh("leader-boards.da", ("leader-board",))]
    assert may_join(["leader-boards.en"], None)  # a visitor's page may listen


def test_an_admin_sets_a_boards_formula_and_a_player_may_not(admin_client, client):
    board = LeaderBoard.objects.create(kind=BoardKind.SIT_AND_GO)
    response = admin_client.post(
        f"/admin/tournaments/leaderboard/{board.pk}/change/",
        {"kind": "sit_and_go", "scale": "20", "buy_in_offset": "0.25"},
    )
    assert response.status_code == 302
    board.refresh_from_db()
    assert board.scale == Decimal("20")
    client.force_login(UserFactory(username="nosy"))
    assert client.get(f"/admin/tournaments/leaderboard/{board.pk}/change/").status_code == 302  # to the admin's login
