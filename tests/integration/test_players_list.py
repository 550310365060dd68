"""Tournament Info's players list: stacks, tables and ranks while in, places and
prizes once out; searched by screen name, a page at a time."""

import pytest
from django.utils import timezone

from lobby.player_views import PLAYERS_PAGE_SIZE
from tests.factories import TournamentFactory, UserFactory, hand, registered, under_way
from tournaments.models import Entry, Tournament
from wallet.services import deposit_create


def players_page(client, tournament: Tournament, query: str = "", **headers) -> str:
    response = client.get(f"/tournaments/{tournament.pk}/players/{query}", headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def rows(body: str) -> list[list[str]]:
    """The list's rows, each as its cells' text."""
    table = body.split('<table class="levels players-list">')[1].split("</table>", maxsplit=1)[0]
    return [
        [" ".join(cell.split("</td>")[0].split(">", 1)[1].split()) for cell in row.split("<td")[1:]]
        for row in table.split("<tbody>")[1].split("<tr")[1:]
    ]


def crowd(tournament: Tournament, count: int, *, prefix: str = "Player") -> None:
    """`count` registered players with distinct stacks (most chips first by number)."""
    people = [UserFactory(screen_name=f"{prefix} {number:03d}") for number in range(count)]
    Entry.objects.bulk_create(
        Entry(tournament=tournament, player=person, chips=10_000 - number) for number, person in enumerate(people)
    )


def test_players_in_come_by_chips_with_table_and_rank_then_those_out_by_place(client, player, other_player):
    carol, dave = UserFactory(screen_name="Carol"), UserFactory(screen_name="Dave")
    playing = under_way(player, other_player, carol, dave)
    hand(playing, {dave: 0, carol: 15_000, other_player: 15_000})  # dave out in 4th
    hand(playing, {player: 0, carol: 20_000, other_player: 20_000})  # alice out in 3rd

    assert rows(players_page(client, playing)) == [
        ["1", "Bob", "1", "20,000", "", ""],
        ["1", "Carol", "1", "20,000", "", ""],
        ["", "Alice", "", "", "3", "…"],
        ["", "Dave", "", "", "4", "…"],
    ]


def test_tournament_info_shows_the_players_list_and_its_search_box(client, player, other_player):
    tournament = TournamentFactory()
    registered(tournament, player, other_player)
    body = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'<form class="filters" method="get" action="/tournaments/{tournament.pk}/players/"' in body
    assert f'hx-get="/tournaments/{tournament.pk}/players/"' in body
    assert "input changed delay:300ms" in body
    assert [row[1] for row in rows(body)] == ["Alice", "Bob"]  # equal stacks, by name
    assert [row[0] for row in rows(body)] == ["", ""], "no rank before the start"


def test_search_filters_by_screen_name_and_htmx_gets_the_list_alone(client, player, other_player):
    tournament = TournamentFactory()
    registered(tournament, player, other_player, UserFactory(screen_name="Alicia"))

    page = players_page(client, tournament, "?q=ali")  # without JavaScript: the whole page
    assert "<html" in page
    assert [row[1] for row in rows(page)] == ["Alice", "Alicia"]
    assert 'value="ali"' in page
    part = players_page(client, tournament, "?q=BOB", HX_Request="true")
    assert "<html" not in part
    assert [row[1] for row in rows(part)] == ["Bob"]
    assert "No player's screen name contains that." in players_page(client, tournament, "?q=zed")


def test_a_search_keeps_each_players_rank_in_the_whole_field(client, player, other_player):
    carol = UserFactory(screen_name="Carol")
    playing = under_way(player, other_player, carol)
    hand(playing, {carol: 15_000, other_player: 5_000})
    assert rows(players_page(client, playing, "?q=bob")) == [["3", "Bob", "1", "5,000", "", ""]]


def test_a_big_field_is_listed_a_page_at_a_time(client, db):
    tournament = TournamentFactory()
    crowd(tournament, PLAYERS_PAGE_SIZE + 5)

    first = players_page(client, tournament)
    assert len(rows(first)) == PLAYERS_PAGE_SIZE
    assert rows(first)[0][1] == "Player 000"
    assert f"{PLAYERS_PAGE_SIZE + 5} players" in first
    assert "Page 1 of 2" in first
    next_url = f"/tournaments/{tournament.pk}/players/?page=2"
    assert f'<a rel="next" href="{next_url}" hx-get="{next_url}">' in first
    second = players_page(client, tournament, "?page=2", HX_Request="true")
    assert [row[1] for row in rows(second)] == [f"Player {number:03d}" for number in range(50, 55)]
    searched = players_page(client, tournament, "?q=Player 0")
    assert f'href="/tournaments/{tournament.pk}/players/?q=Player+0&amp;page=2"' in searched


def test_a_screen_name_is_escaped(client, db):
    tournament = TournamentFactory()
    crowd(tournament, 1, prefix="<script>alert(1)</script>")
    for body in (players_page(client, tournament), client.get(f"/tournaments/{tournament.pk}/").content.decode()):
        assert "&lt;script&gt;alert(1)&lt;/script&gt; 000" in body
        assert "<script>alert(1)" not in body


def test_the_list_never_shows_anyones_wallet(client, player):
    tournament = TournamentFactory()
    registered(tournament, player)
    deposit_create(user=player, currency="EUR", amount=432_100, idempotency_key="rich")
    body = players_page(client, tournament)
    assert "Alice" in body
    assert "4,321" not in body
    assert "€" not in body.split('<table class="levels players-list">')[1].split("</table>")[0]


def test_the_list_reads_a_few_queries_however_big_the_field(client, db, django_assert_max_num_queries):
    small, big = TournamentFactory(), TournamentFactory(started_at=timezone.now(), status="running")
    crowd(small, 3, prefix="Small")
    crowd(big, 2 * PLAYERS_PAGE_SIZE, prefix="Big")
    with django_assert_max_num_queries(3):  # the event, the count, the page
        players_page(client, small)
    with django_assert_max_num_queries(4):  # under way: and the stacks above the page's, for the ranks
        body = players_page(client, big, "?q=big")
    assert rows(body)[0][:2] == ["1", "Big 000"]


def test_an_unknown_event_has_no_players_page(client, db):
    assert client.get("/tournaments/987654/players/").status_code == 404


@pytest.mark.parametrize("query", ["?q=a%00b", "?q=%ED%A0%80"])
def test_a_search_with_a_nul_or_bytes_that_are_not_text_is_refused_with_a_reason(client, player, query):
    tournament = TournamentFactory()
    registered(tournament, player)

    for headers in ({}, {"HX-Request": "true"}):
        response = client.get(f"/tournaments/{tournament.pk}/players/{query}", headers=headers)

        assert response.status_code == 400
        assert "a NUL character or bytes that are not UTF-8" in response.content.decode()
