"""The README's player walk-through ("For players: try it"), step by step as it is
written, on the demo's own data: alice registers for the Sunday Major, sees it in
her wallet, unregisters after the confirmation and sees what came back."""

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tournaments import demo as demo_room

pytestmark = pytest.mark.django_db(transaction=True)

EVENT = "Sunday Major €50,000 GTD"


@pytest.fixture
def demo(migrated_data, monkeypatch):
    # The demo's own logins, balances and events; fewer of its 300 bots, which only
    # fill the events, so that loading it takes seconds.
    monkeypatch.setattr(demo_room, "BOTS", 24)
    demo_room.demo_load(now=timezone.now())


def settled(page):
    """htmx wires up new content as it settles; click only after that."""
    page.wait_for_function("() => !document.querySelector('.htmx-added, .htmx-settling')")


def test_a_player_registers_and_unregisters_as_the_readme_says(demo, page):
    # 1. Log in as alice / alice-demo.
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("alice-demo")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    # 2. In the lobby, search for "Sunday" and open the Sunday Major.
    page.goto("/")
    page.get_by_label("Search").fill("Sunday")
    page.get_by_label("Search").press("Enter")
    page.get_by_role("link", name=EVENT).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(EVENT)

    # 3. Under "Your registration", press "Register: pay €109".
    card = page.locator("section.registration")
    settled(page)
    card.get_by_role("button", name="Register: pay €109").click()
    expect(card).to_contain_text("You are registered. Good luck!")

    # 4. The wallet shows €391, and the buy-in and the fee, each naming the event.
    page.get_by_role("link", name="Wallet").click()
    expect(page.locator("#balances")).to_contain_text("€391")
    history = page.locator("table.history")
    expect(history.locator("tr", has_text="Buy-in").get_by_role("link", name=EVENT)).to_be_visible()
    expect(history.locator("tr", has_text="Fee").get_by_role("link", name=EVENT)).to_be_visible()

    # 5. Back on the event's page, "Unregister…" asks first; "Yes, unregister" says what came back.
    history.get_by_role("link", name=EVENT).first.click()
    settled(page)
    card.get_by_role("button", name="Unregister").click()
    expect(card).to_contain_text(f"Unregister from {EVENT}? You get back €109 in cash.")
    settled(page)
    card.get_by_role("button", name="Yes, unregister").click()
    expect(card).to_contain_text(f"You are unregistered from {EVENT}. Back in your wallet: €109 in cash.")
    page.get_by_role("link", name="Wallet").click()
    expect(page.locator("#balances")).to_contain_text("€500")
    expect(page.locator("table.history tr", has_text="Refund").get_by_role("link", name=EVENT)).to_have_count(2)
