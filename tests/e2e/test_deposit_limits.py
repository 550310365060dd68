"""Responsible gaming in a real browser (issue 30): a player sets a deposit limit from
his wallet (lower at once, higher pending and cancelled, by keyboard alone), and takes
a break: he is logged out, told where to get help, and refused at the next log-in;
axe-core finds no serious violation on the pages."""

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


def test_a_player_takes_a_break_is_logged_out_told_where_to_get_help_and_cannot_log_in(page):
    player = UserFactory(username="hugo", preferred_currency="EUR")
    player.set_password("correct horse battery")
    player.save()
    log_in(page, "hugo")
    page.goto(reverse("responsible:limits"))

    page.get_by_label("24-hour break").check()
    page.get_by_label("I understand that I cannot play or deposit until it ends.").check()
    page.get_by_role("button", name="Start it now").click()

    expect(page.get_by_role("heading", name="Your break has started")).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text("You have chosen a break from play until")
    expect(page.get_by_text("StopSpillet")).to_be_visible()
    assert serious_violations(page) == []
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("hugo")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("You have chosen a break from play until")).to_be_visible()
    expect(page.get_by_role("button", name="Log out")).to_have_count(0)
