"""Live updates in real browsers (several contexts at once) against the ASGI server:
what one player does shows in everybody else's lobby and Tournament Info without a
reload; a dropped connection shows, reconnects and catches up."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.services.entries import entry_register
from wallet.services import deposit_create

LIVE = 10_000  # ms: a live update, or a reconnection after backoff


@pytest.fixture
def event(transactional_db):
    return TournamentFactory(
        blind_structure=BlindStructureFactory(), name="Evening Freezeout", buy_in=1000, fee=100, max_entrants=100
    )


def funded(username: str):
    player = UserFactory(username=username, screen_name=username.capitalize())
    deposit_create(user=player, currency="EUR", amount=5_000, idempotency_key=f"fund-{username}")
    return player


def listening(page, path: str):
    """Open `path` and wait until its live socket is open; mark the page, to tell a
    reload (which would lose the mark) from a live update."""
    page.goto(path)
    expect(page.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)
    page.evaluate("window.notReloaded = true")
    return page


def not_reloaded(page) -> bool:
    return page.evaluate("window.notReloaded === true")


def log_in(page, username: str):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def test_a_registration_shows_at_once_in_other_browsers_and_in_the_players_other_tab(asgi_page, event):
    funded("alice")
    lobby = listening(asgi_page(), "/")
    info = listening(asgi_page(), f"/tournaments/{event.pk}/")
    player = asgi_page()
    log_in(player, "alice")
    wallet = listening(player.context.new_page(), "/wallet/")  # the player's other tab
    expect(wallet.locator("#balances")).to_contain_text("€50")

    listening(player, f"/tournaments/{event.pk}/")
    player.get_by_role("button", name=re.compile(r"^Register: pay €11")).click()
    expect(player.locator(f"#registration-{event.pk}")).to_contain_text("You are registered")

    expect(lobby.locator(f"#lobby-row-{event.pk} .entrants")).to_have_text("1 / 100", timeout=LIVE)
    expect(info.locator(f"#entrants-{event.pk}")).to_contain_text("1 / 100", timeout=LIVE)
    expect(info.locator(f"#prizes-{event.pk}")).to_contain_text("€10", timeout=LIVE)
    expect(wallet.locator("#balances")).to_contain_text("€39", timeout=LIVE)
    assert not_reloaded(lobby)
    assert not_reloaded(info)


def test_a_dropped_connection_shows_reconnects_and_catches_up(asgi_page, asgi_server, event):
    info = listening(asgi_page(), f"/tournaments/{event.pk}/")
    banner = info.locator("#live-status")
    expect(banner).to_be_hidden()

    asgi_server.stop()
    expect(banner).to_be_visible(timeout=LIVE)
    expect(banner).to_contain_text("reconnecting")
    # Meanwhile someone registers: no message can reach the page.
    entry_register(tournament_id=event.pk, player=funded("bob"), now=timezone.now())
    asgi_server.start()

    expect(banner).to_be_hidden(timeout=LIVE)
    expect(info.locator(f"#entrants-{event.pk}")).to_contain_text("1 / 100", timeout=LIVE)


def test_tournament_info_lists_a_new_entrant_live_in_each_view_of_its_players(asgi_page, event):
    funded("alice")
    entry_register(tournament_id=event.pk, player=funded("bob"), now=timezone.now())
    players = f"#players-{event.pk}"
    info = listening(asgi_page(), f"/tournaments/{event.pk}/")
    searching = listening(asgi_page(), f"/tournaments/{event.pk}/")
    searching.get_by_label("Screen name").fill("ali")
    expect(searching.locator(players)).to_contain_text("No player's screen name contains that.")
    player = asgi_page()
    log_in(player, "alice")
    listening(player, f"/tournaments/{event.pk}/")
    expect(player.locator(players)).to_contain_text("1 player")

    player.get_by_role("button", name=re.compile(r"^Register: pay €11")).click()
    expect(player.locator(f"#registration-{event.pk}")).to_contain_text("You are registered")

    for page in (player, info):
        expect(page.locator(players)).to_contain_text("2 players", timeout=LIVE)
        expect(page.locator(players)).to_contain_text("Alice")
    # A page searching the list gets its own search's answer, not the first page.
    expect(searching.locator(players)).to_contain_text("1 player", timeout=LIVE)
    expect(searching.locator(players)).to_contain_text("Alice")
    expect(searching.locator(players)).not_to_contain_text("Bob")
    expect(searching.get_by_label("Screen name")).to_have_value("ali")
    assert not_reloaded(player)
    assert not_reloaded(info)
    assert not_reloaded(searching)


def test_the_lobby_row_says_registered_instead_of_register_live_once_the_player_registers(asgi_page, event):
    funded("alice")
    player = asgi_page()
    log_in(player, "alice")
    lobby = listening(player.context.new_page(), "/")  # the player's other tab
    row = lobby.locator(f"#lobby-row-{event.pk}")
    expect(row.get_by_role("link", name="Register…")).to_be_visible()

    listening(player, f"/tournaments/{event.pk}/")
    player.get_by_role("button", name=re.compile(r"^Register: pay €11")).click()
    expect(player.locator(f"#registration-{event.pk}")).to_contain_text("You are registered")

    expect(row).to_contain_text("Registered", timeout=LIVE)
    expect(row.get_by_role("link", name="Register…")).to_have_count(0)
    expect(row.locator(".entrants")).to_have_text("1 / 100")
    assert not_reloaded(lobby)
