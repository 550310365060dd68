"""A signed-in player's "My tournaments" page, and their "Go to my table" on the
lobby's rows and on Tournament Info."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from lobby.views import tournament_live_html
from tests.factories import TournamentFactory, UserFactory, hand, registered, under_way
from tournaments.models import Entry, Tournament
from tournaments.services.entries import entry_unregister


def my_page(client) -> str:
    response = client.get("/my/tournaments/")
    assert response.status_code == 200
    return response.content.decode()


def row(body: str, tournament: Tournament) -> str:
    return body.split(f'id="mine-{tournament.pk}"')[1].split("</tr>", maxsplit=1)[0]


def squeezed(text: str) -> str:
    return " ".join(text.split())


def test_a_seated_player_sees_their_table_seat_stack_rank_and_the_way_to_their_table(client, player, other_player):
    carol, dave = UserFactory(screen_name="Carol"), UserFactory(screen_name="Dave")
    playing = under_way(player, other_player, carol, dave, name="Evening Turbo")
    coming = TournamentFactory(name="Sunday Major")
    registered(coming, player)
    hand(playing, {player: 12_000, other_player: 8_000})  # from 10,000 each

    client.force_login(player)
    body = my_page(client)
    seat = Entry.objects.get(tournament=playing, player=player).seat
    mine = squeezed(row(body, playing))
    assert f"Table 1, seat {seat}" in mine
    assert f'href="/tournaments/{playing.pk}/tables/1/">Go to my table</a>' in mine
    assert "12,000" in mine
    assert "1 of 4" in mine
    assert f'href="/tournaments/{playing.pk}/"' in mine
    assert "Late registration" in mine
    assert "<time datetime=" in mine
    assert "data-local" in mine

    upcoming = squeezed(row(body, coming))
    assert "Sunday Major" in upcoming
    assert "Go to my table" not in upcoming
    assert "Table" not in upcoming
    assert body.index(f'id="mine-{playing.pk}"') < body.index(f'id="mine-{coming.pk}"'), "by start time"


def test_equal_stacks_share_a_rank(client, player, other_player):
    carol, dave = UserFactory(screen_name="Carol"), UserFactory(screen_name="Dave")
    playing = under_way(player, other_player, carol, dave)
    hand(playing, {dave: 14_000, other_player: 6_000})  # player and carol: 10,000 each

    client.force_login(player)
    assert "2 of 4" in row(my_page(client), playing)
    client.force_login(carol)
    assert "2 of 4" in row(my_page(client), playing)
    client.force_login(other_player)
    assert "4 of 4" in row(my_page(client), playing)


def test_once_out_the_page_shows_the_place_and_prize_and_no_table(client, player, other_player):
    carol = UserFactory(screen_name="Carol")
    playing = under_way(player, other_player, carol)
    hand(playing, {carol: 0, player: 20_000})
    client.force_login(carol)
    out = squeezed(row(my_page(client), playing))
    assert "Place 3 …" in out  # paid once the payouts are final
    assert "Go to my table" not in out
    assert " of " not in out

    hand(playing, {other_player: 0, player: 30_000})  # the end
    playing.refresh_from_db()
    assert playing.status == "finished"
    client.force_login(player)
    won = squeezed(row(my_page(client), playing))
    assert "Place 1: €30" in won
    assert "Finished" in won
    assert "Go to my table" not in won
    client.force_login(other_player)
    assert "Place 2" in row(my_page(client), playing)


def test_another_players_entries_and_an_unregistered_entry_never_appear(client, player, other_player):
    theirs = TournamentFactory(name="Bob's Event")
    registered(theirs, other_player)
    left = TournamentFactory(name="Left Event")
    registered(left, player)
    entry_unregister(tournament_id=left.pk, player=player, now=timezone.now())

    client.force_login(player)
    body = my_page(client)
    assert "Bob&#x27;s Event" not in body
    assert "Left Event" not in body
    assert "You are in no tournament now." in body


def test_an_event_over_long_ago_is_left_out(client, player, other_player):
    old = under_way(player, other_player)
    hand(old, {other_player: 0, player: 20_000})
    Tournament.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=30))
    client.force_login(player)
    assert f'id="mine-{old.pk}"' not in my_page(client)


def test_an_anonymous_visitor_is_sent_to_log_in(client, db):
    response = client.get("/my/tournaments/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/my/tournaments/")


def test_the_header_links_to_my_tournaments_for_a_signed_in_player_only(client, player):
    assert 'href="/my/tournaments/"' not in client.get("/wallet/", follow=True).content.decode()
    client.force_login(player)
    assert '<a href="/my/tournaments/">My tournaments</a>' in my_page(client)


def test_the_page_reads_its_rows_in_one_query_however_many_events(client, player, django_assert_max_num_queries):
    events = [TournamentFactory() for _ in range(2)]
    for event in events:
        registered(event, player)
    client.force_login(player)
    my_page(client)
    with django_assert_max_num_queries(3) as few:  # session, user, the rows
        my_page(client)
    for event in [TournamentFactory() for _ in range(4)]:
        registered(event, player)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert my_page(client).count('id="mine-') == 6


# "Go to my table" where the lobby and Tournament Info show the event


def test_the_lobby_row_offers_go_to_my_table_to_the_seated_player_alone(player, other_player):
    playing = under_way(player, UserFactory())
    coming = TournamentFactory()
    registered(coming, player)
    visitor = Client().get("/").content.decode()  # the shared parts, rendered first for a visitor

    alice = Client()
    alice.force_login(player)
    for body in (alice.get("/").content.decode(), alice.get("/", headers={"HX-Request": "true"}).content.decode()):
        mark = body.split(f'id="lobby-mark-{playing.pk}"')[1].split("</td>", maxsplit=1)[0]
        assert "Registered" in mark
        assert f'href="/tournaments/{playing.pk}/tables/1/">Go to my table</a>' in mark
        assert "Go to my table" not in body.split(f'id="lobby-mark-{coming.pk}"')[1].split("</td>", maxsplit=1)[0]
    own = alice.get(f"/tournaments/{playing.pk}/mark/").content.decode()
    assert 'data-own-key="late_registration.open"' in own
    assert "Go to my table" in own

    assert "Go to my table" not in visitor
    assert f'id="lobby-mark-{playing.pk}" class="own-mark" data-own data-own-key="late_registration.open"' in visitor
    bob = Client()
    bob.force_login(other_player)
    assert "Go to my table" not in bob.get("/").content.decode()
    assert "Go to my table" not in bob.get(f"/tournaments/{playing.pk}/mark/").content.decode()


def test_tournament_info_offers_go_to_my_table_to_the_seated_player_alone(client, player, other_player):
    playing = under_way(player, UserFactory())
    assert "Go to my table" not in client.get(f"/tournaments/{playing.pk}/").content.decode()

    client.force_login(player)
    body = client.get(f"/tournaments/{playing.pk}/").content.decode()
    assert f'<a class="button" href="/tournaments/{playing.pk}/tables/1/">Go to my table</a>' in body
    own = client.get(f"/tournaments/{playing.pk}/mark/?on=info").content.decode()
    assert f'id="info-mark-{playing.pk}"' in own
    assert "Go to my table" in own
    # The live update everyone gets carries the mark empty, with the same key.
    shared = tournament_live_html(playing, timezone.now())
    key = own.split('data-own-key="')[1].split('"')[0]
    assert f'data-own-key="{key}"' in shared
    assert "Go to my table" not in shared

    client.force_login(other_player)
    assert "Go to my table" not in client.get(f"/tournaments/{playing.pk}/").content.decode()


@pytest.mark.parametrize("path", ["/tournaments/{pk}/mark/", "/tournaments/{pk}/mark/?on=info"])
def test_the_own_mark_of_an_unknown_event_is_404(client, db, path):
    assert client.get(path.format(pk=987654)).status_code == 404
