"""The lobby's cost and freshness: a fixed number of SQL queries however many
tournaments exist; rendered parts shared by every viewer and a visitor's page kept
whole, never more than LOBBY_CACHE_SECONDS old; a signed-in player's page their own."""

import re
import time
from datetime import timedelta
from unittest import mock

import pytest
from django.core.cache import caches
from django.db import connection
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.views.decorators.cache import cache_page

from lobby import views
from lobby.views import LOBBY_CACHE_SECONDS
from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.models import Tournament

LOBBY_URLS = ["/", "/?sort=-buy_in&page=2", "/?tag=knockout", "/da/"]


@pytest.fixture
def structure(db):
    return BlindStructureFactory()


def add_events(structure, count: int) -> None:
    start = timezone.now() + timedelta(hours=1)
    Tournament.objects.bulk_create(
        TournamentFactory.build(
            blind_structure=structure,
            scheduled_start=start + timedelta(minutes=number),
            buy_in=100 * (number % 7 + 1),
            bounty_kind="knockout" if number % 3 == 0 else "none",
            bounty_amount=50 if number % 3 == 0 else 0,
        )
        for number in range(count)
    )


def forget_everything_cached() -> None:
    for alias in ("default", "local"):
        caches[alias].clear()


def queries_of(client: Client, url: str, **headers) -> int:
    """SQL queries of one request that finds nothing shared."""
    forget_everything_cached()
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, headers=headers)
    assert response.status_code == 200
    return len(captured)


@pytest.mark.parametrize("url", LOBBY_URLS)
def test_lobby_queries_do_not_grow_with_the_number_of_tournaments(client, structure, url):
    add_events(structure, 3)
    few = queries_of(client, url)
    add_events(structure, 117)
    many = queries_of(client, url)
    assert few == many
    assert many <= 4


def test_the_start_bound_that_spares_reading_history_keeps_old_events_still_in_play(client, structure):
    """The default lobby reads the start index from the oldest event in play on."""
    now = timezone.now()
    for name, days_ago, status in [
        ("Marathon Day 3", 3, "running"),
        ("Long Finished", 2, "finished"),
        ("Old Announced", 5, "announced"),
        ("Just Cancelled", 0.25, "cancelled"),
    ]:
        TournamentFactory(
            name=name, blind_structure=structure, status=status, scheduled_start=now - timedelta(days_ago)
        )
    body = client.get("/").content.decode()
    assert "Marathon Day 3" in body
    assert "Old Announced" in body
    assert "Just Cancelled" in body
    assert "Long Finished" not in body
    assert "3 tournaments" in body


def test_htmx_results_queries_do_not_grow_with_the_number_of_tournaments(client, structure):
    add_events(structure, 3)
    few = queries_of(client, "/?sort=name", HX_Request="true")
    add_events(structure, 117)
    assert queries_of(client, "/?sort=name", HX_Request="true") == few
    assert few <= 4


def test_signed_in_lobby_adds_only_the_session_the_user_and_their_entries(client, structure, player):
    client.force_login(player)
    add_events(structure, 3)
    few = queries_of(client, "/")
    add_events(structure, 117)
    assert queries_of(client, "/") == few
    assert few <= 5  # and one for the player's own entries among the rows (their marks)


def csrf_tokens(html: str) -> list[str]:
    return re.findall(r'(?:name="csrfmiddlewaretoken" value=|"X-CSRFToken": )"([^"]+)"', html)


@pytest.fixture
def long_lived():
    """Shared renders that outlive a slow test run: what is shared is then certain."""
    visitor_page = cache_page(60, cache="local")(views._visitor_lobby_page.__wrapped__)
    with mock.patch("lobby.views.LOBBY_CACHE_SECONDS", 60), mock.patch("lobby.views._visitor_lobby_page", visitor_page):
        yield


# Visitors (no session cookie): one page, kept whole and shared.


def test_visitors_share_one_page_kept_whole(structure, long_lived):
    add_events(structure, 3)
    first = Client().get("/")
    with CaptureQueriesContext(connection) as captured:
        again = Client().get("/")  # another visitor
    assert len(captured) == 0
    assert again.content == first.content
    assert "Cookie" in again["Vary"]  # a cache in front keeps a signed-in player's page apart
    # Nobody's token and no cookie: nothing in it is the first visitor's.
    assert csrf_tokens(first.content.decode()) == []
    assert not first.cookies
    assert "Log in" in first.content.decode()


def test_a_visitors_page_and_the_results_htmx_fetches_are_the_same_render(client, structure, long_lived):
    add_events(structure, 3)
    page = client.get("/").content.decode()
    with CaptureQueriesContext(connection) as captured:
        results = client.get("/", headers={"HX-Request": "true"}).content.decode()
    assert len(captured) == 0
    # The fragment, less the out-of-band sort field that only htmx swaps in.
    assert results.split('<input type="hidden" name="sort" id="lobby-sort"')[0] in page


def test_a_visitor_switches_language_from_the_shared_page_without_a_token(structure, long_lived):
    add_events(structure, 3)
    visitor = Client(enforce_csrf_checks=True)
    page = visitor.get("/?game=omaha").content.decode()
    switcher = re.search(r'<form class="language" action="([^"]+)" method="get">.*?</form>', page, re.S).group(0)
    danish = re.search(r'<select id="language-select" name="(\w+)".*?<option value="([^"]+)">Dansk', switcher, re.S)
    response = visitor.get("/i18n/setlang/", {danish.group(1): danish.group(2).replace("&amp;", "&")})
    assert response.status_code == 302
    assert response["Location"] == "/da/?game=omaha"
    assert "<h1>Turneringslobby</h1>" in visitor.get(response["Location"]).content.decode()


def test_a_page_that_used_a_csrf_token_is_never_kept_for_the_next_visitor(structure):
    """Django's per-view cache rule: a response that sets a cookie is not kept; a
    token on the page would set the visitor's CSRF cookie, and be theirs alone."""
    renders = []

    def page_with_a_token(request, parts, marks):
        renders.append(get_token(request))
        return HttpResponse(renders[-1])

    with mock.patch("lobby.views._lobby_page", page_with_a_token):
        first, second = Client().get("/"), Client().get("/")
    assert len(renders) == 2
    assert first.cookies["csrftoken"].value != second.cookies["csrftoken"].value
    assert first.content != second.content


# Freshness: nothing older than LOBBY_CACHE_SECONDS.


def poll_until_shown(client: Client, name: str, since: float, headers: dict | None = None) -> float:
    """How long after `since` a request first showed `name`; fails once a request
    asked for more than LOBBY_CACHE_SECONDS (and a little) after `since` did not."""
    while True:
        asked = time.monotonic() - since  # the age that counts is the render's when it is asked for
        if name in client.get("/", headers=headers).content.decode():
            return asked
        assert asked <= LOBBY_CACHE_SECONDS + 0.1, f"the lobby was more than {LOBBY_CACHE_SECONDS} s stale"
        time.sleep(0.02)


@pytest.mark.parametrize("headers", [{}, {"HX-Request": "true"}], ids=["page", "htmx"])
def test_a_new_tournament_shows_visitors_within_the_cache_lifetime(client, structure, headers):
    add_events(structure, 3)
    client.get("/", headers=headers)
    Tournament.objects.bulk_create([TournamentFactory.build(name="Fresh Event", blind_structure=structure)])
    poll_until_shown(client, "Fresh Event", since=time.monotonic(), headers=headers)


def test_a_new_tournament_shows_a_signed_in_player_within_the_cache_lifetime(client, structure, player):
    add_events(structure, 3)
    client.force_login(player)
    client.get("/")
    Tournament.objects.bulk_create([TournamentFactory.build(name="Fresh Event", blind_structure=structure)])
    poll_until_shown(client, "Fresh Event", since=time.monotonic())


def test_a_visitors_page_is_built_from_the_rows_as_they_are_and_shared_from_there(
    client, structure, player, long_lived
):
    """Never from parts kept earlier: its age is its own, and signed-in players and
    htmx share the render."""
    add_events(structure, 3)
    signed_in = Client()
    signed_in.force_login(player)
    signed_in.get("/")  # renders the shared parts
    Tournament.objects.bulk_create([TournamentFactory.build(name="Fresh Event", blind_structure=structure)])
    assert "Fresh Event" not in signed_in.get("/").content.decode()  # the parts kept
    assert "Fresh Event" in client.get("/").content.decode()  # a visitor's page: the rows as they are
    with CaptureQueriesContext(connection) as captured:
        assert "Fresh Event" in signed_in.get("/").content.decode()  # and shared from there
    assert not [query for query in captured if "tournaments_tournament" in query["sql"]]


def test_within_the_lifetime_a_change_waits_for_the_next_render(client, structure, long_lived):
    add_events(structure, 3)
    client.get("/")
    Tournament.objects.bulk_create([TournamentFactory.build(name="Fresh Event", blind_structure=structure)])
    assert "Fresh Event" not in client.get("/").content.decode()
    forget_everything_cached()  # as the lifetime's end does
    assert "Fresh Event" in client.get("/").content.decode()


# Signed in: the normal template, rendered for this player, around the shared parts.


def lobby_as(client: Client) -> str:
    response = client.get("/")
    assert response.status_code == 200
    assert "Cookie" in response["Vary"]  # a cache in front must keep one viewer's page from another
    return response.content.decode()


def account_area(html: str) -> str:
    return html.split('<div class="account">', 1)[1].split("</header>", 1)[0]


def test_a_signed_in_header_is_never_shared(client, structure, player):
    add_events(structure, 3)
    client.force_login(player)
    assert "Alice" in lobby_as(client)
    visitor = lobby_as(Client())
    assert "Alice" not in visitor
    assert "Log in" in visitor


def test_a_signed_in_player_sees_their_own_name_and_staff_the_admin_link(structure, player, staff, long_lived):
    add_events(structure, 3)
    lobby_as(Client())  # the shared parts, rendered for a visitor
    alice, sam = Client(), Client()
    alice.force_login(player)
    sam.force_login(staff)
    with CaptureQueriesContext(connection) as captured:
        page = lobby_as(alice)
    assert not [query for query in captured if "tournaments_tournament" in query["sql"]], "not the shared parts"
    assert '<span class="who">Alice</span>' in account_area(page)
    assert "Log out" in page
    assert "Log in" not in page
    assert ">Admin</a>" not in page
    page = lobby_as(sam)
    assert '<span class="who">Sam</span>' in account_area(page)
    assert ">Admin</a>" in page


def test_the_next_signed_in_player_never_sees_the_one_before(structure, player, other_player, staff, long_lived):
    add_events(structure, 3)
    viewers = {name: Client() for name in ("Sam", "Alice", "Bob")}
    for name, user in (("Sam", staff), ("Alice", player), ("Bob", other_player)):
        viewers[name].force_login(user)
    pages = {name: lobby_as(client) for name, client in viewers.items()}  # one shared render, Sam's miss first
    for name, page in pages.items():
        others = {"Sam", "Alice", "Bob"} - {name}
        assert f'<span class="who">{name}</span>' in page
        assert not any(other in page for other in others)
    assert ">Admin</a>" not in pages["Alice"] + pages["Bob"]
    visitor = lobby_as(Client())
    assert not any(name in visitor for name in viewers)
    assert "Log in" in visitor
    assert ">Admin</a>" not in visitor


def test_a_signed_in_page_is_rendered_for_each_request(client, structure, player, long_lived):
    add_events(structure, 3)
    client.force_login(player)
    assert '<span class="who">Alice</span>' in lobby_as(client)
    player.screen_name = "Alice the Bold"
    player.save()
    assert '<span class="who">Alice the Bold</span>' in lobby_as(client)  # at once, not a second later


def test_a_signed_in_hit_reads_only_the_session_the_user_and_their_entries_however_many_tournaments(
    client, structure, player
):
    client.force_login(player)
    tables_read = []
    for count in (3, 117):
        add_events(structure, count)
        forget_everything_cached()
        lobby_as(Client())  # the shared parts, rendered for a visitor
        with CaptureQueriesContext(connection) as captured:
            assert "Alice" in lobby_as(client)
        tables_read.append(sorted(re.findall(r'FROM "(\w+)"', " ".join(query["sql"] for query in captured))))
    assert tables_read[0] == tables_read[1]
    # The player's own entries among the rows, for their "Registered" marks.
    assert set(tables_read[0]) <= {"django_session", "accounts_user", "tournaments_entry"}


def test_a_signed_in_page_carries_the_players_own_csrf_token(structure, staff, other_player):
    add_events(structure, 3)
    sam, bob = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    sam.force_login(staff)
    bob.force_login(other_player)
    page = lobby_as(sam)
    logout_form = r'<form action="([^"]+)" method="post">.*?name="csrfmiddlewaretoken" value="([^"]+)".*?Log out'
    logout_url, token = re.search(logout_form, page).groups()
    assert f'"X-CSRFToken": "{token}"' in page  # htmx sends it too
    assert token not in csrf_tokens(lobby_as(bob))
    assert bob.post(logout_url, {"csrfmiddlewaretoken": token}).status_code == 403  # Sam's is not Bob's
    response = sam.post(logout_url, {"csrfmiddlewaretoken": token})
    assert response.status_code in (200, 302)  # not 403: the token matches this viewer's cookie
    page = lobby_as(sam)
    assert "Sam" not in page
    assert "Log in" in page
