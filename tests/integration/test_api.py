"""The public tournament API: /api/v1/tournaments/, its schema and its docs page."""

import html
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIRequestFactory

from config.api_errors import exception_handler
from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.services.refusals import TournamentError

LIST = "/api/v1/tournaments/"

pytestmark = pytest.mark.django_db


def detail(tournament) -> str:
    return f"{LIST}{tournament.pk}/"


@pytest.fixture
def structure():
    return BlindStructureFactory()


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["name"] for item in response.json()["results"]]


def future_day_at(hour: int, minute: int) -> datetime:
    day = timezone.now().astimezone(UTC) + timedelta(days=3)
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0)


# The list


def test_list_shows_the_lobbys_default_active_events(client, structure):
    now = timezone.now()
    TournamentFactory(name="Upcoming", blind_structure=structure)
    TournamentFactory(
        name="Running", status="running", scheduled_start=now - timedelta(hours=1), blind_structure=structure
    )
    TournamentFactory(
        name="Just finished", status="finished", scheduled_start=now - timedelta(hours=3), blind_structure=structure
    )
    TournamentFactory(
        name="Finished yesterday", status="finished", scheduled_start=now - timedelta(days=1), blind_structure=structure
    )
    TournamentFactory(
        name="Cancelled last week",
        status="cancelled",
        scheduled_start=now - timedelta(days=7),
        blind_structure=structure,
    )

    # Finished and cancelled events stay listed for 12 hours after their start.
    assert names(client.get(LIST)) == ["Just finished", "Running", "Upcoming"]


def test_list_item_has_the_lobby_row_in_minor_units_and_utc(client, structure):
    start = future_day_at(7, 25)
    tournament = TournamentFactory(
        name="Sunday Knockout",
        blind_structure=structure,
        scheduled_start=start,
        game="omaha",
        betting="pl",
        currency="USD",
        buy_in=2000,
        fee=200,
        bounty_kind="knockout",
        bounty_amount=500,
        speed="turbo",
        entries_count=7,
        max_entrants=180,
        prize_contributions=14000,
        guarantee=50000,
    )
    # The viewer's time zone cookie changes the pages, not the API.
    client.cookies["tz"] = "America/New_York"

    response = client.get(LIST)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    [item] = response.json()["results"]
    assert item == {
        "id": tournament.pk,
        "name": "Sunday Knockout",
        "game": {"code": "omaha", "label": "Omaha"},
        "betting": "pl",
        "entry_kind": "cash",
        "currency": "USD",
        "buy_in": 2000,
        "fee": 200,
        "bounty_amount": 500,
        "scheduled_start": start.strftime("%Y-%m-%dT07:25:00Z"),
        "status": "registering",
        "entrants": 7,
        "max_entrants": 180,
        "prize_pool": 50000,
        "guarantee": 50000,
        "tags": ["knockout", "turbo"],
        "url": f"http://testserver/api/v1/tournaments/{tournament.pk}/",
        "info_url": f"http://testserver/tournaments/{tournament.pk}/",
    }


def test_t_money_events_are_priced_in_t_money(client, structure):
    # Events stored before the admin insisted on currency T-Money for T-Money entries.
    TournamentFactory(blind_structure=structure, entry_kind="tmoney", currency="EUR")

    [item] = client.get(LIST).json()["results"]

    assert item["currency"] == "TMY"


@pytest.fixture
def field(structure):
    """Seven events, each the only one matching one filter value."""
    now = timezone.now()
    make = TournamentFactory
    make(name="Plain Holdem", blind_structure=structure, buy_in=1000)
    make(name="Omaha Night", blind_structure=structure, game="omaha", buy_in=1000)
    make(name="Pot Limit Special", blind_structure=structure, betting="pl", buy_in=1000)
    make(name="Dollar Daily", blind_structure=structure, currency="USD", buy_in=1000)
    make(name="Running Now", blind_structure=structure, status="running", scheduled_start=now - timedelta(minutes=30))
    make(name="Bounty Hunter", blind_structure=structure, bounty_kind="knockout", bounty_amount=500, buy_in=1000)
    make(name="High Roller", blind_structure=structure, buy_in=100000, guarantee=10_000_000)
    make(name="Micro", blind_structure=structure, buy_in=100)


BUY_IN_1000 = {"Plain Holdem", "Omaha Night", "Pot Limit Special", "Dollar Daily", "Running Now", "Bounty Hunter"}


@pytest.mark.usefixtures("field")
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("game=omaha", {"Omaha Night"}),
        ("limit=pl", {"Pot Limit Special"}),
        ("currency=USD", {"Dollar Daily"}),
        ("status=running", {"Running Now"}),
        ("tag=knockout", {"Bounty Hunter"}),
        ("buy_in_min=500", {"High Roller"}),
        ("buy_in_max=1.00", {"Micro"}),
        ("buy_in_min=5&buy_in_max=10", BUY_IN_1000),
        ("q=roller", {"High Roller"}),
        ("q=roller&game=omaha", set()),
    ],
)
def test_each_filter_narrows_the_list(client, query, expected):
    assert set(names(client.get(f"{LIST}?{query}"))) == expected


@pytest.mark.usefixtures("field")
def test_unknown_query_parameters_are_ignored_like_in_the_lobby(client):
    assert len(names(client.get(f"{LIST}?colour=red"))) == 8


def test_sorts_like_the_lobby(client, structure):
    start = timezone.now() + timedelta(hours=1)
    TournamentFactory(name="B small", blind_structure=structure, scheduled_start=start, prize_contributions=100)
    TournamentFactory(
        name="C guaranteed", blind_structure=structure, scheduled_start=start + timedelta(hours=1), guarantee=90000
    )
    TournamentFactory(
        name="A big", blind_structure=structure, scheduled_start=start + timedelta(hours=2), prize_contributions=50000
    )

    assert names(client.get(LIST)) == ["B small", "C guaranteed", "A big"]
    assert names(client.get(f"{LIST}?sort=name")) == ["A big", "B small", "C guaranteed"]
    assert names(client.get(f"{LIST}?sort=-start")) == ["A big", "C guaranteed", "B small"]
    # The prize pool is the guarantee when it is larger than the entries' prize parts.
    assert names(client.get(f"{LIST}?sort=-prize_pool")) == ["C guaranteed", "A big", "B small"]


def test_list_is_paginated_by_50_and_keeps_the_filters(client, structure):
    TournamentFactory.create_batch(60, blind_structure=structure, game="omaha")
    TournamentFactory(blind_structure=structure)

    first = client.get(f"{LIST}?game=omaha").json()
    second = client.get(first["next"]).json()

    assert first["count"] == 60
    assert len(first["results"]) == 50
    assert first["previous"] is None
    assert first["next"] == "http://testserver/api/v1/tournaments/?game=omaha&page=2"
    assert len(second["results"]) == 10
    assert second["next"] is None
    assert second["previous"] == "http://testserver/api/v1/tournaments/?game=omaha"
    ids = [item["id"] for item in first["results"] + second["results"]]
    assert len(set(ids)) == 60


@pytest.mark.parametrize(
    ("query", "field_name", "words"),
    [
        ("game=chess", "game", "chess is not one of the available choices"),
        ("limit=nolimit", "limit", "not one of the available choices"),
        ("status=over", "status", "not one of the available choices"),
        ("buy_in_min=abc", "buy_in_min", "Enter a number."),
        ("buy_in_min=NaN", "buy_in_min", "Enter a number."),
        ("buy_in_max=-1", "buy_in_max", "greater than or equal to 0"),
        ("buy_in_max=1.005", "buy_in_max", "decimal places"),
        ("buy_in_max=1e400", "buy_in_max", "digits"),
        ("buy_in_min=50&buy_in_max=10", "__all__", "The lowest buy-in cannot be above the highest."),
        ("sort=bogus", "sort", "bogus is not one of the available choices"),
        ("q=" + "x" * 81, "q", "at most 80 characters"),
        ("q=%00", "q", "Null characters are not allowed."),
    ],
)
def test_invalid_filter_is_a_400_with_the_forms_message(client, query, field_name, words):
    response = client.get(f"{LIST}?{query}")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_filter"
    assert words in body["message"]
    assert list(body["fields"]) == [field_name]
    assert words in " ".join(body["fields"][field_name])


LOBBY_ROW_NAME = re.compile(r'<td class="name"><a href="[^"]+">([^<]+)</a>')


@pytest.mark.usefixtures("field")
@pytest.mark.parametrize(
    "query",
    ["", "game=omaha", "tag=knockout&sort=-buy_in", "buy_in_min=5&buy_in_max=10", "status=running", "q=roller"],
)
def test_the_lobby_page_lists_what_the_api_lists_in_the_same_order(client, query):
    """One FilterSet (tournaments.filters.LobbyFilter) filters and sorts both."""
    page = client.get(f"/?{query}")
    assert page.status_code == 200
    assert LOBBY_ROW_NAME.findall(page.content.decode()) == names(client.get(f"{LIST}?{query}"))


@pytest.mark.parametrize("query", ["game=chess", "buy_in_min=50&buy_in_max=10", "sort=bogus&buy_in_max=-1"])
def test_the_lobby_page_refuses_what_the_api_refuses_in_the_same_words(client, query):
    api = client.get(f"{LIST}?{query}")
    page = client.get(f"/?{query}")
    assert api.status_code == page.status_code == 400
    assert html.escape(api.json()["message"], quote=False) in page.content.decode()


def test_every_refused_filter_is_named_in_one_message(client):
    body = client.get(f"{LIST}?game=chess&sort=bogus").json()

    assert set(body["fields"]) == {"game", "sort"}
    assert body["message"].startswith("Game: Select a valid choice.")
    assert "Sort: Select a valid choice." in body["message"]


@pytest.mark.parametrize("page", ["999", "0", "abc"])
def test_a_page_out_of_range_is_a_404_with_a_message(client, structure, page):
    TournamentFactory(blind_structure=structure)

    response = client.get(f"{LIST}?page={page}")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "Invalid page."}


def test_list_runs_the_same_queries_for_5_or_60_events(client, structure):
    def queries_for_a_page() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(LIST).status_code == 200
        return len(captured)

    TournamentFactory.create_batch(5, blind_structure=structure, bounty_kind="knockout", bounty_amount=100)
    few = queries_for_a_page()
    target = TournamentFactory(blind_structure=structure)
    TournamentFactory.create_batch(54, blind_structure=structure, satellite_target=target, guarantee=1000)

    assert queries_for_a_page() == few <= 2  # the count and the page


# The detail


def test_synchronised_breaks_fall_at_55_past_the_hour(client, structure):
    tournament = TournamentFactory(blind_structure=structure, scheduled_start=future_day_at(7, 25))

    body = client.get(detail(tournament)).json()

    day = tournament.scheduled_start.strftime("%Y-%m-%d")
    assert body["break_policy"] == "synchronised"
    assert [b["starts_at"] for b in body["breaks"][:2]] == [f"{day}T07:55:00Z", f"{day}T08:55:00Z"]
    assert body["breaks"][0] == {"starts_at": f"{day}T07:55:00Z", "ends_at": f"{day}T08:00:00Z", "addon": False}
    assert len(body["levels"]) == 12
    assert body["levels"][0] == {
        "number": 1,
        "small_blind": 10,
        "big_blind": 20,
        "ante": 0,
        "ante_posted_by": "each",
        "minutes": 20,
        "seconds": 0,
        "starts_at": f"{day}T07:25:00Z",
        "ends_at": f"{day}T07:45:00Z",
    }
    # The level clock stops for the break: level 2 ends five minutes later.
    assert body["levels"][1]["starts_at"] == f"{day}T07:45:00Z"
    assert body["levels"][1]["ends_at"] == f"{day}T08:10:00Z"


def test_interval_breaks_come_after_every_60_minutes_of_play(client, structure):
    tournament = TournamentFactory(
        blind_structure=structure, scheduled_start=future_day_at(7, 25), break_policy="interval"
    )

    body = client.get(detail(tournament)).json()

    day = tournament.scheduled_start.strftime("%Y-%m-%d")
    assert body["breaks"][0]["starts_at"] == f"{day}T08:25:00Z"
    assert body["levels"][3]["starts_at"] == f"{day}T08:30:00Z"


def test_detail_has_everything_tournament_info_shows(client, structure):
    main_event = TournamentFactory(
        name="Main Event", blind_structure=structure, scheduled_start=timezone.now() + timedelta(days=5)
    )
    start = future_day_at(18, 0)
    tournament = TournamentFactory(
        name="Rebuy Satellite",
        blind_structure=structure,
        scheduled_start=start,
        registration_opens_at=start - timedelta(hours=6),
        starting_stack=5000,
        table_size=6,
        min_entrants=6,
        max_entrants=60,
        late_registration_minutes=30,
        extended_late_registration_minutes=45,
        late_registration_closes_at_first_elimination=True,
        unregistration_deadline_minutes=10,
        rebuy_price=1000,
        rebuy_fee=100,
        rebuy_chips=5000,
        rebuy_limit=3,
        rebuy_levels=4,
        addon_price=1000,
        addon_fee=100,
        addon_chips=8000,
        prize_structure="satellite",
        satellite_target=main_event,
        satellite_seats=2,
        deals_allowed=False,
        shootout=True,
    )

    response = client.get(detail(tournament))

    assert response.status_code == 200
    body = response.json()
    day = start.strftime("%Y-%m-%d")
    assert body["url"] == f"http://testserver/api/v1/tournaments/{tournament.pk}/"
    assert body["info_url"] == f"http://testserver/tournaments/{tournament.pk}/"
    assert body["game"] == {"code": "holdem", "label": "Hold'em"}
    assert (body["betting"], body["speed"], body["entry_kind"], body["currency"]) == ("nl", "regular", "cash", "EUR")
    assert (body["starting_stack"], body["table_size"], body["min_entrants"], body["max_entrants"]) == (5000, 6, 6, 60)
    assert body["blind_structure"] == structure.name
    assert body["deadlines"] == {
        "registration_opens_at": f"{day}T12:00:00Z",
        "unregistration_allowed": True,
        "unregistration_closes_at": f"{day}T17:50:00Z",
        "late_registration_closes_at": f"{day}T18:45:00Z",
        "late_registration_closes_at_first_elimination": True,
    }
    assert body["rebuy"] == {"price": 1000, "fee": 100, "chips": 5000, "limit": 3, "levels": 4}
    assert body["addon"] == {"price": 1000, "fee": 100, "chips": 8000}
    assert body["prize_structure"] == "satellite"
    assert body["satellite"] == {
        "target": {
            "id": main_event.pk,
            "name": "Main Event",
            "url": f"http://testserver/api/v1/tournaments/{main_event.pk}/",
        },
        "seats": 2,
    }
    assert body["bounty"] == {"kind": "none", "amount": 0}
    assert body["deals"] == {"allowed": False, "leave_for_winner": 0}
    assert (body["heads_up"], body["shootout"], body["deepstack"]) == (False, True, False)
    assert body["tags"] == ["satellite", "rebuy"]


def test_detail_says_null_where_there_is_none(client, structure):
    tournament = TournamentFactory(blind_structure=structure, unregistration_allowed=False)

    body = client.get(detail(tournament)).json()

    assert body["rebuy"] is None
    assert body["addon"] is None
    assert body["satellite"] is None
    assert body["deadlines"]["registration_opens_at"] is None
    assert body["deadlines"]["unregistration_allowed"] is False
    assert body["deadlines"]["unregistration_closes_at"] is None


@pytest.mark.parametrize(("contributions", "guarantee"), [(41 * 1000, 0), (41 * 1000, 100_000)])
def test_payouts_sum_to_the_prize_pool(client, structure, contributions, guarantee):
    tournament = TournamentFactory(
        blind_structure=structure, entries_count=41, prize_contributions=contributions, guarantee=guarantee
    )

    body = client.get(detail(tournament)).json()

    assert body["prize_pool"] == max(contributions, guarantee)
    assert [payout["place"] for payout in body["payouts"]] == list(range(1, len(body["payouts"]) + 1))
    assert len(body["payouts"]) == 6  # about 15% of 41
    assert sum(payout["amount"] for payout in body["payouts"]) == body["prize_pool"]
    assert body["payouts_provisional"] is True  # registration is still open


def test_detail_runs_a_fixed_number_of_queries(client, structure):
    target = TournamentFactory(blind_structure=structure)
    tournament = TournamentFactory(
        blind_structure=structure, satellite_target=target, prize_structure="satellite", entries_count=10
    )

    with CaptureQueriesContext(connection) as captured:
        assert client.get(detail(tournament)).status_code == 200

    assert len(captured) == 2  # the tournament with its structure and target, then the levels


def test_unknown_tournament_is_a_404_with_a_message(client):
    response = client.get(f"{LIST}424242/")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No Tournament matches the given query."}


# Errors, methods, schema and docs


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
def test_only_get_is_allowed(client, structure, method):
    tournament = TournamentFactory(blind_structure=structure)

    for url in (LIST, detail(tournament)):
        response = getattr(client, method)(url)
        assert response.status_code == 405
        assert response.json()["code"] == "method_not_allowed"
        assert response["Allow"] == "GET, HEAD"


def test_a_refusal_by_the_rules_becomes_code_and_message():
    request = APIRequestFactory().get(LIST)

    response = exception_handler(TournamentError("The tournament is full.", "full"), {"request": request})

    assert response.status_code == 400
    assert response.data == {"code": "full", "message": "The tournament is full."}


def test_schema_is_a_valid_openapi_document_with_both_operations(client):
    response = client.get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = json.loads(response.content)
    validate_schema(schema)
    assert {"/api/v1/tournaments/", "/api/v1/tournaments/{id}/"} <= set(schema["paths"])
    listed = schema["paths"]["/api/v1/tournaments/"]["get"]
    assert {"game", "limit", "currency", "status", "tag", "buy_in_min", "buy_in_max", "q", "sort", "kind", "page"} == {
        parameter["name"] for parameter in listed["parameters"]
    }
    detail_fields = schema["components"]["schemas"]["TournamentDetail"]["properties"]
    assert {"levels", "breaks", "deadlines", "payouts", "rebuy", "addon", "satellite", "bounty", "deals"} <= set(
        detail_fields
    )


def test_docs_page_renders_from_our_own_static_files(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    # Its own script is a file too, so the page keeps to the Content-Security-Policy.
    assert "<script>" not in page
    assert "script-src 'self'" in response["Content-Security-Policy"]
    script = client.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in script.content.decode()


@pytest.mark.parametrize("path", ["/api/v1/tournaments/abc/", "/api/v1/nothing/", "/api/v2/tournaments/"])
def test_unknown_api_addresses_get_a_json_404(client, db, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_detail_has_the_tables_and_standings_tournament_info_shows(client):
    from tests.integration.test_deals import final_table
    from tournaments.models import Entry
    from tournaments.services.tables import floor_hand_finished

    tournament, _players = final_table(4, prize_structure="winner_takes_all")
    seated = list(Entry.objects.filter(tournament=tournament).select_related("player", "table").order_by("seat"))
    loser, winner = seated[0], seated[1]
    stacks = {entry.pk: entry.chips for entry in seated} | {loser.pk: 0, winner.pk: winner.chips + loser.chips}
    floor_hand_finished(tournament_id=tournament.pk, table=seated[0].table.number, stacks=stacks, now=timezone.now())

    body = client.get(detail(tournament)).json()
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()

    (table,) = body["tables"]
    assert table["number"] == seated[0].table.number
    assert [seat["player"] for seat in table["seats"]] == [entry.player.screen_name for entry in seated[1:]]
    assert [seat["chips"] for seat in table["seats"]] == [stacks[entry.pk] for entry in seated[1:]]
    assert sorted(seat["role"] for seat in table["seats"]) == ["big_blind", "button", "small_blind"]
    assert all(set(seat) == {"seat", "player", "chips", "role"} for seat in table["seats"])  # no cards, no wallet
    standings = body["standings"]
    assert standings["players_left"] == 3
    assert standings["average_stack"] == sum(stacks.values()) // 3
    assert standings["chip_leaders"][0] == {
        "player": winner.player.screen_name,
        "chips": stacks[winner.pk],
        "bounty": 0,
        "bounties_won": 0,
    }
    assert standings["finished"] == [
        {
            "place": "4",
            "best": 4,
            "worst": 4,
            "player": loser.player.screen_name,
            "prize": 0,
            "bounties_won": 0,
            "forfeited": False,
        }
    ]
    assert (body["hand_for_hand"], body["deal_in_progress"]) == (False, False)
    # The page shows the same players and places.
    for name in [seat["player"] for seat in table["seats"]] + [loser.player.screen_name]:
        assert name in page


def test_detail_before_the_start_has_no_tables_and_nobody_placed(client, structure):
    tournament = TournamentFactory(blind_structure=structure)

    body = client.get(detail(tournament)).json()

    assert body["tables"] == []
    assert body["standings"] == {"players_left": 0, "average_stack": 0, "chip_leaders": [], "finished": []}
