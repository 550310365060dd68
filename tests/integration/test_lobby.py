import functools
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.selectors.entries import entry_refusal
from tournaments.services.entries import entry_register
from wallet.services import deposit_create


@pytest.fixture
def structure(db):
    return BlindStructureFactory()


def lobby_names(response) -> list[str]:
    html = response.content.decode()
    names = []
    for chunk in html.split('<td class="name">')[1:]:
        names.append(chunk.split(">", 1)[1].split("</a>", 1)[0])
    return names


@pytest.fixture
def field(structure):
    now = timezone.now()
    make = TournamentFactory
    make(name="Plain Holdem", blind_structure=structure, buy_in=1000, scheduled_start=now + timedelta(hours=1))
    make(
        name="Omaha Night",
        blind_structure=structure,
        game="omaha",
        betting="pl",
        scheduled_start=now + timedelta(hours=2),
    )
    make(name="Dollar Daily", blind_structure=structure, currency="USD", scheduled_start=now + timedelta(hours=3))
    make(name="Bounty Hunter", blind_structure=structure, bounty_kind="knockout", bounty_amount=500)
    make(name="High Roller", blind_structure=structure, buy_in=100_000, guarantee=10_000_000)
    make(name="Micro Turbo", blind_structure=structure, buy_in=100, speed="turbo")
    make(name="Running Now", blind_structure=structure, status="running", scheduled_start=now - timedelta(minutes=30))
    make(name="Old Final", blind_structure=structure, status="finished", scheduled_start=now - timedelta(days=2))
    make(name="Just Cancelled", blind_structure=structure, status="cancelled", scheduled_start=now - timedelta(hours=1))


@pytest.mark.usefixtures("field")
class TestLobby:
    def test_lobby_lists_active_and_recent_events_and_hides_old_finished_ones(self, client):
        names = lobby_names(client.get("/"))
        assert "Plain Holdem" in names
        assert "Running Now" in names
        assert "Just Cancelled" in names  # players must see that it was cancelled
        assert "Old Final" not in names

    def test_default_order_is_by_start_time(self, client):
        names = lobby_names(client.get("/"))
        assert names.index("Running Now") < names.index("Plain Holdem") < names.index("Omaha Night")

    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ("game=omaha", ["Omaha Night"]),
            ("limit=pl", ["Omaha Night"]),
            ("currency=USD", ["Dollar Daily"]),
            ("status=running", ["Running Now"]),
            ("status=finished", ["Old Final"]),
            ("tag=knockout", ["Bounty Hunter"]),
            ("tag=turbo", ["Micro Turbo"]),
            ("q=roller", ["High Roller"]),
            ("buy_in_min=500", ["High Roller"]),
            ("buy_in_max=1.50", ["Micro Turbo"]),
        ],
    )
    def test_each_filter_narrows_the_list(self, client, query, expected):
        assert lobby_names(client.get(f"/?{query}")) == expected

    def test_sorting_by_prize_pool_descending_puts_the_guarantee_first(self, client):
        assert lobby_names(client.get("/?sort=-prize_pool"))[0] == "High Roller"

    def test_htmx_request_gets_only_the_results_fragment(self, client):
        response = client.get("/?game=omaha", headers={"HX-Request": "true"})
        assert response.status_code == 200
        body = response.content.decode()
        assert "<html" not in body
        assert lobby_names(response) == ["Omaha Night"]

    def test_filter_links_keep_an_href_for_browsers_without_javascript(self, client):
        body = client.get("/?game=omaha").content.decode()
        assert 'href="?game=omaha&amp;sort=-start"' in body or 'href="?game=omaha&amp;sort=start"' in body

    @pytest.mark.parametrize(
        ("query", "message"),
        [
            ("game=chess", "chess is not one of the available choices"),
            ("buy_in_min=abc", "Enter a number"),
            ("buy_in_min=10&buy_in_max=5", "cannot be above"),
            ("sort=bogus", "bogus is not one of the available choices"),
            ("buy_in_min=-5", "greater than or equal to 0"),
        ],
    )
    def test_invalid_filters_get_a_400_with_a_message(self, client, query, message):
        response = client.get(f"/?{query}")
        assert response.status_code == 400
        assert message in response.content.decode()

    def test_invalid_filters_get_a_400_with_a_message_from_htmx_and_signed_in_too(self, client, player):
        response = client.get("/?game=chess", headers={"HX-Request": "true"})
        assert response.status_code == 400
        assert "<html" not in response.content.decode()
        assert "chess is not one of the available choices" in response.content.decode()
        client.force_login(player)
        response = client.get("/?game=chess")
        assert response.status_code == 400
        assert "chess is not one of the available choices" in response.content.decode()
        assert '<span class="who">Alice</span>' in response.content.decode()

    def test_page_beyond_the_end_shows_the_last_page(self, client):
        response = client.get("/?page=999")
        assert response.status_code == 200
        assert "Plain Holdem" in lobby_names(response)

    def test_shows_buy_in_fee_bounty_entrants_and_guarantee(self, client):
        body = client.get("/?q=bounty").content.decode()
        assert "€10 + €5 + €1" in body
        body = client.get("/?q=roller").content.decode()
        assert "€1,000 + €1" in body
        assert "GTD €100,000" in body
        assert "0 / 1000" in body


def test_lobby_paginates_fifty_a_page(client, structure):
    start = timezone.now() + timedelta(hours=1)
    for number in range(60):
        TournamentFactory(
            name=f"Event {number:02d}", blind_structure=structure, scheduled_start=start + timedelta(minutes=number)
        )
    first = client.get("/")
    assert len(lobby_names(first)) == 50
    assert "Page 1 of 2" in first.content.decode()
    second = client.get("/?page=2")
    assert lobby_names(second) == [f"Event {number:02d}" for number in range(50, 60)]


def test_times_are_shown_in_the_viewers_time_zone(client, structure):
    start = timezone.now().replace(hour=7, minute=25, second=0, microsecond=0) + timedelta(days=2)
    TournamentFactory(name="Morning", blind_structure=structure, scheduled_start=start)
    assert ", 07:25" in client.get("/").content.decode()
    client.cookies["tz"] = "Asia/Kolkata"  # UTC+5:30 all year
    assert ", 12:55" in client.get("/").content.decode()


def test_an_unknown_time_zone_cookie_falls_back_to_utc(client, structure):
    TournamentFactory(blind_structure=structure)
    client.cookies["tz"] = "Mars/Olympus_Mons"
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("sort", ["prize_pool", "buy_in"])
def test_sorting_compares_amounts_across_currencies_by_their_value(client, structure, sort):
    # 1,650 kr. is worth far less than €1,500; a T-Money pool counts as the euro it buys.
    make = TournamentFactory
    make(name="Krone Cup", blind_structure=structure, currency="DKK", buy_in=165_000, guarantee=165_000)
    make(name="Euro Cup", blind_structure=structure, currency="EUR", buy_in=150_000, guarantee=150_000)
    make(name="Dollar Cup", blind_structure=structure, currency="USD", buy_in=120_000, guarantee=120_000)
    make(name="Token Cup", blind_structure=structure, entry_kind="tmoney", currency="TMY", buy_in=1000, guarantee=1000)
    assert lobby_names(client.get(f"/?sort=-{sort}")) == ["Euro Cup", "Dollar Cup", "Krone Cup", "Token Cup"]
    assert lobby_names(client.get(f"/?sort={sort}")) == ["Token Cup", "Krone Cup", "Dollar Cup", "Euro Cup"]


def offers_registration(body: str, tournament) -> bool:
    return "Register…" in row_of(body, tournament)


def test_the_lobby_offers_register_exactly_where_the_registration_service_would_take_an_entry(client, structure):
    # Rule 9: open before the start and through late registration, never when closed or full.
    now = timezone.now()
    make = functools.partial(TournamentFactory, blind_structure=structure, late_registration_minutes=20)
    started = now - timedelta(hours=2)
    open_events = [
        make(name="Open", registration_opens_at=None),
        make(name="Late", status="late_registration", scheduled_start=now - timedelta(minutes=5)),
    ]
    closed_events = [
        make(name="Full", max_entrants=2, entries_count=2),
        make(name="Break", status="on_break", scheduled_start=started),
        make(name="Paused", status="paused", scheduled_start=started),
        make(name="Deal", status="paused", scheduled_start=started, deal_in_progress=True),
        make(name="Not yet", status="announced", registration_opens_at=now + timedelta(minutes=30)),
    ]
    body = client.get("/").content.decode()
    assert [offers_registration(body, event) for event in open_events] == [True, True]
    assert [offers_registration(body, event) for event in closed_events] == [False] * 5
    for event in [*open_events, *closed_events]:  # the same answer as the service's
        assert offers_registration(body, event) == (entry_refusal(event, now=timezone.now()) is None)


def test_a_signed_in_player_sees_registered_on_the_events_they_are_in_and_nobody_else_does(
    client, structure, player, other_player
):
    theirs = TournamentFactory(name="Theirs", blind_structure=structure)
    other = TournamentFactory(name="Other", blind_structure=structure)
    deposit_create(user=player, currency="EUR", amount=1100, idempotency_key="fund-player")
    entry_register(tournament_id=theirs.pk, player=player, now=timezone.now())
    visitor = client.get("/").content.decode()  # the shared parts, rendered first for a visitor

    client.force_login(player)
    for body in (client.get("/").content.decode(), client.get("/", headers={"HX-Request": "true"}).content.decode()):
        assert 'class="badge registered">Registered<' in row_of(body, theirs)
        assert "Registered" not in row_of(body, other)
    mark = client.get(f"/tournaments/{theirs.pk}/mark/").content.decode()
    assert f'id="lobby-mark-{theirs.pk}"' in mark
    assert "Registered" in mark

    assert "Registered" not in visitor
    client.force_login(other_player)
    assert "Registered" not in client.get("/").content.decode()
    assert "Registered" not in client.get(f"/tournaments/{theirs.pk}/mark/").content.decode()
    assert client.get(f"/tournaments/{other.pk + 1000}/mark/").status_code == 404


def test_a_registered_player_sees_registered_instead_of_register(client, structure, player, other_player):
    theirs = TournamentFactory(name="Theirs", blind_structure=structure)
    other = TournamentFactory(name="Other", blind_structure=structure)
    deposit_create(user=player, currency="EUR", amount=1100, idempotency_key="fund-player")
    entry_register(tournament_id=theirs.pk, player=player, now=timezone.now())

    client.force_login(player)
    for body in (client.get("/").content.decode(), client.get("/", headers={"HX-Request": "true"}).content.decode()):
        assert "Registered" in row_of(body, theirs)
        assert not offers_registration(body, theirs)
        assert offers_registration(body, other)
    # The mark the page fetches again when the player's entry changes says the same.
    assert "Register…" not in client.get(f"/tournaments/{theirs.pk}/mark/").content.decode()
    assert "Register…" in client.get(f"/tournaments/{other.pk}/mark/").content.decode()
    client.force_login(other_player)
    assert offers_registration(client.get("/").content.decode(), theirs)


def test_a_row_update_that_closes_registration_brings_a_mark_with_another_key(client, structure, player):
    # The page keeps a signed-in player's mark through row updates unless its key changes.
    event = TournamentFactory(name="Filling", blind_structure=structure, max_entrants=2, entries_count=1)
    client.force_login(player)
    open_mark = row_of(client.get("/").content.decode(), event)
    event.entries_count = 2
    event.save(update_fields=["entries_count"])

    full_mark = client.get(f"/tournaments/{event.pk}/mark/").content.decode()

    assert "Register…" in open_mark
    assert "Register…" not in full_mark
    key = 'data-own-key="'
    assert open_mark.split(key)[1].split('"')[0] != full_mark.split(key)[1].split('"')[0]


def row_of(body: str, tournament) -> str:
    return body.split(f'id="lobby-row-{tournament.pk}"')[1].split("</tr>", maxsplit=1)[0]
