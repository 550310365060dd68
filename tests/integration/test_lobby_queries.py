"""The lobby's cost and freshness: a fixed number of SQL queries however many
tournaments exist, and a shared render that is never more than a second old."""

import re
import time
from datetime import timedelta
from types import SimpleNamespace
from unittest import mock

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from lobby.fresh_cache import forget_local_copies
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


def queries_of(client: Client, url: str, **headers) -> int:
    """SQL queries of one request that finds nothing shared."""
    cache.clear()
    forget_local_copies()
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


def test_signed_in_lobby_adds_only_the_session_and_the_user(client, structure, player):
    client.force_login(player)
    add_events(structure, 3)
    few = queries_of(client, "/")
    add_events(structure, 117)
    assert queries_of(client, "/") == few
    assert few <= 4


def without_csrf_tokens(html: str) -> str:
    return re.sub(r'(csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]+"', r"\1", html)


class Clock:
    """Stands in for the lobby's `time` module, to check the age limit to the instant."""

    def __init__(self):
        self.start = float(int(time.time()))  # whole seconds: start + 1.0 - start is exactly 1.0
        self.now = self.start

    def time(self) -> float:
        return self.now

    def at(self, seconds: float) -> None:
        self.now = self.start + seconds


@pytest.fixture
def clock():
    cache.clear()
    forget_local_copies()
    fake = Clock()
    stand_in = SimpleNamespace(time=fake.time)
    with mock.patch("lobby.views.time", stand_in), mock.patch("lobby.fresh_cache.time", stand_in):
        yield fake


def test_a_request_within_the_age_limit_reuses_the_shared_render(client, structure, clock):
    add_events(structure, 3)
    first = client.get("/").content.decode()
    clock.at(0.9)
    with CaptureQueriesContext(connection) as page:
        again = client.get("/").content.decode()
    with CaptureQueriesContext(connection) as fragment:
        results = client.get("/", headers={"HX-Request": "true"}).content.decode()
    assert len(page) == 0
    assert len(fragment) == 0
    assert without_csrf_tokens(again) == without_csrf_tokens(first)  # a token is masked anew for every response
    # The fragment, less the out-of-band sort field that only htmx swaps in.
    assert results.split('<input type="hidden" name="sort" id="lobby-sort"')[0] in first


def test_a_tournament_added_elsewhere_shows_once_the_render_is_a_second_old(client, structure, clock):
    add_events(structure, 3)
    client.get("/")
    client.get("/", headers={"HX-Request": "true"})
    Tournament.objects.bulk_create([TournamentFactory.build(name="Fresh Event", blind_structure=structure)])
    clock.at(0.99)
    assert "Fresh Event" not in client.get("/").content.decode()
    clock.at(1.0)  # one second after the rows were read, at the latest
    assert "Fresh Event" in client.get("/").content.decode()
    assert "Fresh Event" in client.get("/", headers={"HX-Request": "true"}).content.decode()


def test_a_new_tournament_shows_within_a_second_of_real_time(client, structure):
    add_events(structure, 3)
    client.get("/")
    Tournament.objects.bulk_create([TournamentFactory.build(name="Fresh Event", blind_structure=structure)])
    added = time.monotonic()
    while True:
        asked = time.monotonic() - added  # the age that counts is the page's when it is asked for
        if "Fresh Event" in client.get("/").content.decode():
            break
        assert asked <= 1.1, "the lobby was more than a second stale"
        time.sleep(0.02)
    assert asked <= 1.1


def test_a_shared_page_carries_each_visitors_own_csrf_token(structure):
    add_events(structure, 3)
    tokens = []
    for _ in range(2):
        visitor = Client(enforce_csrf_checks=True)
        body = visitor.get("/").content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1)
        assert f'"X-CSRFToken": "{token}"' in body
        response = visitor.post("/i18n/setlang/", {"language": "da", "next": "/"}, headers={"X-CSRFToken": token})
        assert response.status_code == 302  # accepted: the token matches this visitor's cookie
        tokens.append(token)
    assert tokens[0] != tokens[1]


def test_a_signed_in_header_is_never_shared(client, structure, player):
    add_events(structure, 3)
    client.force_login(player)
    assert "Alice" in client.get("/").content.decode()
    stranger = Client().get("/").content.decode()
    assert "Alice" not in stranger
    assert "Log in" in stranger


# Signed in: the shared page with this viewer's own header filled in.


def lobby_as(client: Client) -> str:
    response = client.get("/")
    assert response.status_code == 200
    assert "Cookie" in response["Vary"]  # a cache in front must keep one viewer's page from another
    return response.content.decode()


def account_area(html: str) -> str:
    return html.split('<div class="account">', 1)[1].split("</header>", 1)[0]


def test_a_signed_in_player_sees_their_own_name_and_staff_the_admin_link(structure, player, staff, clock):
    add_events(structure, 3)
    lobby_as(Client())  # the shared page, rendered for a visitor
    alice, sam = Client(), Client()
    alice.force_login(player)
    sam.force_login(staff)
    with CaptureQueriesContext(connection) as captured:
        page = lobby_as(alice)
    assert not [query for query in captured if "tournaments_" in query["sql"]], "not the shared page"
    assert '<span class="who">Alice</span>' in account_area(page)
    assert "Log out" in page
    assert "Log in" not in page
    assert ">Admin</a>" not in page
    page = lobby_as(sam)
    assert '<span class="who">Sam</span>' in account_area(page)
    assert ">Admin</a>" in page


def test_the_next_signed_in_player_never_sees_the_one_before(structure, player, other_player, staff, clock):
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


def test_a_signed_in_hit_reads_only_the_session_and_the_user_however_many_tournaments(client, structure, player):
    client.force_login(player)
    tables_read = []
    for count in (3, 117):
        add_events(structure, count)
        cache.clear()
        forget_local_copies()
        lobby_as(Client())  # the shared page, rendered for a visitor
        with CaptureQueriesContext(connection) as captured:
            assert "Alice" in lobby_as(client)
        tables_read.append(sorted(re.findall(r'FROM "(\w+)"', " ".join(query["sql"] for query in captured))))
    assert tables_read[0] == tables_read[1]
    assert set(tables_read[0]) <= {"django_session", "accounts_user"}


def test_the_logout_form_on_a_shared_page_carries_a_valid_token(structure, staff):
    add_events(structure, 3)
    lobby_as(Client())  # the shared page, rendered for a visitor
    sam = Client(enforce_csrf_checks=True)
    sam.force_login(staff)
    page = lobby_as(sam)
    logout_form = r'<form action="([^"]+)" method="post">.*?name="csrfmiddlewaretoken" value="([^"]+)".*?Log out'
    logout = re.search(logout_form, page)
    response = sam.post(logout.group(1), {"csrfmiddlewaretoken": logout.group(2)})
    assert response.status_code in (200, 302)  # not 403: the token matches this viewer's cookie
    page = lobby_as(sam)
    assert "Sam" not in page
    assert "Log in" in page
