"""The lobby in a real Chromium: filters and sorting swap the results in place."""

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.conftest import BROWSER_TIME_ZONE
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory

pytestmark = pytest.mark.e2e

DANISH_DAYS = ["mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag", "søndag"]


@pytest.fixture
def room(transactional_db):
    """Three events a few hours ahead, in start order."""
    structure = BlindStructureFactory()
    soon = timezone.now() + timedelta(hours=3)
    return [
        TournamentFactory(
            name="Morning Hold'em",
            blind_structure=structure,
            scheduled_start=soon,
            prize_contributions=50_000,
        ),
        TournamentFactory(
            name="Omaha Deepstack",
            game="omaha",
            betting="pl",
            deepstack=True,
            blind_structure=structure,
            scheduled_start=soon + timedelta(hours=1),
            status="late_registration",
            prize_contributions=123_450,
        ),
        TournamentFactory(
            name="Sunday Major",
            blind_structure=structure,
            scheduled_start=soon + timedelta(hours=2),
            status="announced",
            guarantee=1_000_000,
        ),
    ]


def names(page):
    return page.locator("table.lobby-table td.name")


def mark_the_page(page):
    """A value that lives only as long as this document: a full reload loses it."""
    page.evaluate("window.__marker = 42")


def assert_not_reloaded(page):
    assert page.evaluate("window.__marker") == 42


def test_the_lobby_lists_the_tournaments_with_their_status(page, room):
    page.goto("/")
    expect(page).to_have_title("Tournament lobby · Poker room")
    expect(page.locator("h1")).to_have_text("Tournament lobby")
    expect(names(page)).to_have_text(["Morning Hold'em", "Omaha Deepstack", "Sunday Major"])
    expect(page.locator("td.status .badge")).to_have_text(["Registering", "Late registration", "Announced"])
    expect(page.locator("td.pool").nth(1)).to_have_text("€1,234.50")
    expect(page.locator(".summary")).to_have_text("3 tournaments")
    # The page's script has stored the browser's zone and says so.
    expect(page.locator("footer [data-tz]")).to_have_text("Europe/Copenhagen")


def test_choosing_a_game_narrows_the_list_without_a_reload(page, room):
    page.goto("/")
    expect(names(page)).to_have_count(3)
    mark_the_page(page)
    page.select_option("#id_game", "omaha")
    expect(names(page)).to_have_text(["Omaha Deepstack"])
    expect(page.locator(".summary")).to_have_text("1 tournament")
    expect(page).to_have_url(re.compile(r"[?&]game=omaha(&|$)"))
    assert_not_reloaded(page)
    # Back restores the unfiltered list from the history htmx pushed.
    page.go_back()
    expect(names(page)).to_have_count(3)
    expect(page).not_to_have_url(re.compile("game="))


def test_typing_in_the_search_box_narrows_the_list_without_a_reload(page, room):
    page.goto("/")
    mark_the_page(page)
    page.locator("#id_q").press_sequentially("sunday")
    expect(names(page)).to_have_text(["Sunday Major"])
    expect(page).to_have_url(re.compile(r"[?&]q=sunday(&|$)"))
    assert_not_reloaded(page)


def test_clicking_a_column_header_sorts_without_a_reload(page, room):
    page.goto("/")
    mark_the_page(page)
    prize_pool = page.locator("thead th", has_text="Prize pool")
    prize_pool.get_by_role("link").click()
    expect(prize_pool).to_have_attribute("aria-sort", "ascending")
    expect(names(page)).to_have_text(["Morning Hold'em", "Omaha Deepstack", "Sunday Major"])
    prize_pool.get_by_role("link").click()
    expect(prize_pool).to_have_attribute("aria-sort", "descending")
    expect(prize_pool).to_contain_text("▼")
    # The guarantee (€10,000) is the biggest pool, then €1,234.50, then €500.
    expect(names(page)).to_have_text(["Sunday Major", "Omaha Deepstack", "Morning Hold'em"])
    expect(page).to_have_url(re.compile(r"[?&]sort=-prize_pool(&|$)"))
    assert_not_reloaded(page)


def test_a_filter_chosen_after_sorting_keeps_the_sort(page, room):
    page.goto("/")
    mark_the_page(page)
    prize_pool = page.locator("thead th", has_text="Prize pool")
    prize_pool.get_by_role("link").click()
    expect(prize_pool).to_have_attribute("aria-sort", "ascending")
    prize_pool.get_by_role("link").click()
    expect(prize_pool).to_have_attribute("aria-sort", "descending")
    page.select_option("#id_game", "holdem")
    expect(names(page)).to_have_text(["Sunday Major", "Morning Hold'em"])
    expect(page).to_have_url(re.compile(r"[?&]sort=-prize_pool(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]game=holdem(&|$)"))
    assert_not_reloaded(page)


def test_the_filter_form_works_without_javascript(new_page, room):
    page = new_page(java_script_enabled=False)
    page.goto("/")
    page.select_option("#id_game", "omaha")
    # Without htmx nothing happens until the form is sent.
    expect(names(page)).to_have_count(3)
    with page.expect_navigation():
        page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"[?&]game=omaha(&|$)"))
    expect(names(page)).to_have_text(["Omaha Deepstack"])
    expect(page.locator("#id_game")).to_have_value("omaha")


@pytest.mark.parametrize(
    "case",
    [
        ("/", "Buy-in from", "-5", "Buy-in from: Ensure this value is greater than or equal to 0."),
        ("/", "Buy-in to", "999999999999999999999", "Buy-in to: Ensure that there are no more than 12 digits"),
        ("/", "Buy-in to", "1e", "Buy-in to: Enter a number."),
        ("/da/", "Indskud fra", "-5", "Indskud fra: Denne værdi skal være større end eller lig 0."),
    ],
    ids=["negative", "huge", "not-a-number", "danish"],
)
@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "no-javascript"])
def test_an_invalid_buy_in_filter_is_refused_with_a_message_on_the_page(new_page, room, case, javascript):
    path, field, value, message = case
    page = new_page(java_script_enabled=javascript)
    page.goto(path)
    page.get_by_label(field).fill(value)
    page.locator("#filters button[type=submit]").click()

    expect(page.locator("#results [role=alert]")).to_contain_text(message)
    expect(names(page)).to_have_count(0)


def test_the_danish_lobby_is_in_danish(page, room):
    page.goto("/da/")
    expect(page).to_have_title("Turneringslobby · Pokerrum")
    expect(page.locator("h1")).to_have_text("Turneringslobby")
    expect(page.locator("thead th")).to_have_text(
        ["Start ▲", "Turnering", "Spil", "Indskud", "Deltagere", "Præmiepulje", "Status", "Typer"]
    )
    expect(page.locator("td.status .badge")).to_have_text(["Tilmelding åben", "Sen tilmelding", "Annonceret"])
    expect(page.locator("td.pool").nth(1)).to_have_text("1.234,50\u00a0€")
    expect(page.locator(".summary")).to_have_text("3 turneringer")
    expect(page.locator("label[for=id_game]")).to_have_text("Spil:")
    expect(page.get_by_role("button", name="Filtrer")).to_be_visible()
    # The start begins with the Danish day, abbreviated ("tirs." or "tir") as the
    # browser or the server writes it.
    local_start = room[0].scheduled_start.astimezone(ZoneInfo(BROWSER_TIME_ZONE))
    start_text = page.locator("td.start").first.inner_text()
    day = start_text.split()[0].rstrip(".")
    assert len(day) >= 3
    assert DANISH_DAYS[local_start.weekday()].startswith(day), start_text
    assert f"{local_start:%H}" in start_text


def test_a_danish_filter_keeps_the_danish_address_and_words(page, room):
    page.goto("/da/")
    mark_the_page(page)
    page.select_option("#id_game", "omaha")
    expect(page.locator(".summary")).to_have_text("1 turnering")
    expect(page).to_have_url(re.compile(r"/da/\?.*game=omaha"))
    assert_not_reloaded(page)


def test_the_header_language_select_switches_to_danish_and_back(page, room):
    page.goto("/?game=omaha")
    with page.expect_navigation():
        page.select_option("#language-select", label="Dansk")
    expect(page).to_have_url(re.compile(r"/da/\?game=omaha$"))
    expect(page.locator("h1")).to_have_text("Turneringslobby")
    expect(names(page)).to_have_text(["Omaha Deepstack"])
    with page.expect_navigation():
        page.select_option("#language-select", label="English")
    expect(page).to_have_url(re.compile(r"/\?game=omaha$"))
    expect(page).not_to_have_url(re.compile("/da/"))
    expect(page.locator("h1")).to_have_text("Tournament lobby")


def test_the_language_switcher_works_without_javascript(new_page, room):
    page = new_page(java_script_enabled=False)
    page.goto("/")
    page.select_option("#language-select", label="Dansk")
    with page.expect_navigation():
        page.get_by_role("button", name="Change").click()
    expect(page.locator("h1")).to_have_text("Turneringslobby")


def test_a_signed_in_player_has_their_own_header_beside_visitors_and_logs_out_from_the_lobby(new_page, room):
    visitor = new_page()
    visitor.goto("/")
    expect(visitor.locator("header .account")).to_contain_text("Log in")
    UserFactory(username="alice", screen_name="Alice")
    player = new_page()
    player.goto("/accounts/login/?next=/")
    player.get_by_label("Username").fill("alice")
    player.get_by_label("Password").fill("correct horse battery")
    player.get_by_role("button", name="Log in").click()
    expect(player).to_have_url(re.compile(r"/$"))
    expect(player.locator("header .who")).to_have_text("Alice")
    expect(names(player)).to_have_count(3)
    visitor.reload()
    expect(visitor.locator("header .account")).not_to_contain_text("Alice")
    # The header's form posts with this player's own CSRF token, in Danish too.
    with player.expect_navigation():
        player.select_option("#language-select", label="Dansk")
    expect(player.locator("header .who")).to_have_text("Alice")
    player.get_by_role("button", name="Log ud").click()
    expect(player.locator("header .account")).to_contain_text("Log ind")
    expect(player.locator("header .who")).to_have_count(0)


# Live updates on a filtered lobby, and a signed-in player's own marks


LIVE = 10_000  # ms: a live update


def funded_entrant(event, username: str):
    from tournaments.services.entries import entry_register
    from wallet.services import deposit_create

    player = UserFactory(username=username, screen_name=username.capitalize())
    deposit_create(user=player, currency="EUR", amount=5_000, idempotency_key=f"fund-{username}")
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    return player


def listening(page, path: str):
    page.goto(path, timeout=LIVE)  # the ASGI server's first answer may be slow to come
    expect(page.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)
    return page


def test_a_filtered_lobby_takes_live_updates_of_rows_it_does_not_show_without_an_error(asgi_page, transactional_db):
    structure = BlindStructureFactory()
    holdem = TournamentFactory(name="Evening Hold'em", blind_structure=structure, max_entrants=100)
    omaha = TournamentFactory(name="Evening Omaha", game="omaha", blind_structure=structure, max_entrants=100)
    lobby = asgi_page()
    console = []
    lobby.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    listening(lobby, "/?game=omaha")
    expect(lobby.locator(f"#lobby-row-{holdem.pk}")).to_have_count(0)

    funded_entrant(holdem, "hannah")  # a row this page does not show
    funded_entrant(omaha, "olga")  # then one it shows: messages arrive in order

    expect(lobby.locator(f"#lobby-row-{omaha.pk} .entrants")).to_have_text("1 / 100", timeout=LIVE)
    expect(lobby.locator(f"#lobby-row-{holdem.pk}")).to_have_count(0)
    assert not [line for line in console if "htmx" in line], console


def test_a_signed_in_player_sees_registered_on_their_rows_and_keeps_it_through_live_updates(
    asgi_page, transactional_db
):
    structure = BlindStructureFactory()
    theirs = TournamentFactory(name="Alice's Event", blind_structure=structure, max_entrants=100)
    other = TournamentFactory(name="Someone Else's", blind_structure=structure, max_entrants=100)
    alice = funded_entrant(theirs, "alice")
    funded_entrant(other, "bob")
    page = asgi_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(alice.username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    listening(page, "/")

    expect(page.locator(f"#lobby-row-{theirs.pk} .badge.registered")).to_have_text("Registered")
    expect(page.locator(f"#lobby-row-{other.pk} .badge.registered")).to_have_count(0)

    funded_entrant(theirs, "carla")  # the shared row comes again, live
    expect(page.locator(f"#lobby-row-{theirs.pk} .entrants")).to_have_text("2 / 100", timeout=LIVE)
    expect(page.locator(f"#lobby-row-{theirs.pk} .badge.registered")).to_have_text("Registered")
