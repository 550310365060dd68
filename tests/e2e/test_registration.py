"""Registering from the lobby and from Tournament Info in a real browser."""

import re

import pytest
from playwright.sync_api import expect

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from wallet.services import deposit_create


@pytest.fixture
def event(transactional_db):
    return TournamentFactory(blind_structure=BlindStructureFactory(), name="Evening Freezeout", buy_in=1000, fee=100)


@pytest.fixture
def player_page(page, transactional_db):
    player = UserFactory(username="alice", screen_name="Alice")
    deposit_create(user=player, currency="EUR", amount=5_000, idempotency_key="alice")
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    return page


def settled(page):
    """htmx wires up new content as it settles; a click before that submits the form
    the old way (as it would for a person on a very slow computer)."""
    page.wait_for_function("() => !document.querySelector('.htmx-added, .htmx-settling')")


def test_register_and_unregister_from_a_lobby_row(event, player_page):
    page = player_page
    page.goto("/")
    row = page.locator("tr", has_text="Evening Freezeout")
    row.get_by_role("link", name="Register…").click()
    card = page.locator(f"#registration-{event.pk}")
    expect(card).to_contain_text("Your registration")
    settled(page)

    card.get_by_role("button", name=re.compile(r"^Register: pay €11")).click()
    expect(card).to_contain_text("You are registered. Good luck!")
    assert page.evaluate("location.pathname") == "/"  # the lobby's address is kept

    card.get_by_role("button", name="Unregister").click()
    expect(card).to_contain_text("Unregister from Evening Freezeout? You get back €11 in cash.")
    settled(page)
    card.get_by_role("button", name="Yes, unregister").click()
    expect(card).to_contain_text("You are unregistered from Evening Freezeout. Back in your wallet: €11 in cash.")
    assert page.evaluate("location.pathname") == "/"

    row.get_by_role("link", name="Register…").click()  # a second click closes the card
    expect(page.locator(".registration-row")).to_have_count(0)


def test_register_on_tournament_info_and_see_the_wallet(event, player_page):
    page = player_page
    page.goto(f"/tournaments/{event.pk}/")
    card = page.locator(f"#registration-{event.pk}")
    card.get_by_role("button", name=re.compile(r"^Register: pay €11")).click()
    expect(card).to_contain_text("You are registered with 10,000 chips.")
    page.goto("/wallet/")
    expect(page.locator("body")).to_contain_text("€39")
