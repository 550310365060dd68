"""A player sets a deposit limit in a real browser (issue 30): from his wallet to his
limits, a lower limit at once, a higher one pending and cancelled, by keyboard alone;
axe-core finds no serious violation on the page."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from responsible.models import DepositLimit
from tests.e2e.test_accessibility import serious_violations
from tests.e2e.test_live import log_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_player_sets_raises_and_cancels_his_daily_limit(page):
    player = UserFactory(username="greta", preferred_currency="EUR")
    player.set_password("correct horse battery")
    player.save()
    log_in(page, "greta")
    page.goto(reverse("lobby:wallet"))
    page.get_by_role("link", name="Deposit limits").click()

    page.get_by_label("Period").select_option("day")
    amount = page.get_by_role("textbox", name=re.compile(r"^Limit"))
    amount.fill("50")
    amount.press("Enter")  # the keyboard alone
    expect(page.get_by_text("Your limit applies now.")).to_be_visible()
    expect(page.locator("#limit-day")).to_contain_text("€50")

    amount.fill("80")
    page.get_by_role("button", name="Save the limit").click()
    expect(page.locator("#limit-day")).to_contain_text("€80 from")  # pending for 24 hours
    assert serious_violations(page) == []
    page.locator("#limit-day").get_by_role("button", name="Cancel").click()
    expect(page.get_by_text("The pending change is cancelled")).to_be_visible()
    expect(page.locator("#limit-day")).not_to_contain_text("€80")
    limit = DepositLimit.objects.get(player=player, period="day")
    assert (limit.amount, limit.pending_amount) == (5_000, None)
