"""Responsible gaming in a real browser (issue 30): a player sets a deposit limit from
his wallet (lower at once, higher pending and cancelled, by keyboard alone), chooses a
reality check and is reminded, and takes a break: he is logged out, told where to get
help, and refused at the next log-in; axe-core finds no serious violation on the pages."""

import re
from datetime import timedelta
from importlib import import_module

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from responsible.models import DepositLimit
from responsible.reality import reality_check_set
from responsible.signals import SIGNED_IN_AT
from tests.e2e.test_accessibility import serious_violations
from tests.e2e.test_live import listening, log_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def player_named(username: str):
    player = UserFactory(username=username, preferred_currency="EUR")
    player.set_password("correct horse battery")
    player.save()
    return player


def take_a_break(page) -> None:
    page.goto(reverse("responsible:limits"))
    page.get_by_label("24-hour break").check()
    page.get_by_label("I understand that I cannot play or deposit until it ends.").check()
    page.get_by_role("button", name="Start it now").click()
    expect(page.get_by_role("heading", name="Your break has started")).to_be_visible()


def logged_in_ago(page, ago: timedelta) -> None:
    """As if the page's session had logged in `ago`."""
    key = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == settings.SESSION_COOKIE_NAME)
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    session[SIGNED_IN_AT] = (timezone.now() - ago).isoformat()
    session.save()


def test_a_player_sets_raises_and_cancels_his_daily_limit(page):
    player = player_named("greta")
    log_in(page, "greta")
    page.goto(reverse("lobby:wallet"))
    page.get_by_role("link", name=re.compile(r"^Responsible gaming:")).click()

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
    player_named("hugo")
    log_in(page, "hugo")

    take_a_break(page)

    expect(page.get_by_role("status")).to_contain_text("You have chosen a break from play until")
    expect(page.get_by_text("StopSpillet")).to_be_visible()
    assert serious_violations(page) == []
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("hugo")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("You have chosen a break from play until")).to_be_visible()
    expect(page.get_by_role("button", name="Log out")).to_have_count(0)


def test_a_player_chooses_a_reality_check_and_is_reminded_in_a_dialog_he_closes_by_keyboard(page):
    player_named("ines")
    log_in(page, "ines")
    page.goto(reverse("responsible:limits"))
    page.get_by_label("Remind me").select_option("15")
    page.get_by_role("button", name="Save the reminder").click()
    expect(page.get_by_text("You will be reminded every 15 minutes of play.")).to_be_visible()

    logged_in_ago(page, timedelta(minutes=15) - timedelta(seconds=2))
    page.goto(reverse("lobby:wallet"))

    reminder = page.get_by_role("dialog", name="Reality check")
    expect(reminder).to_be_visible(timeout=15_000)
    expect(reminder).to_contain_text("You have been logged in for 1")  # 14 or 15 minutes
    expect(reminder).to_contain_text("Your net result since you logged in: €0")
    expect(reminder.get_by_role("button", name="Keep playing")).to_be_focused()
    assert serious_violations(page) == []
    page.keyboard.press("Enter")
    expect(reminder).to_have_count(0)
    expect(page.locator("#reality-check[hx-trigger]")).to_have_count(1)  # the next one is asked for


def test_a_break_taken_on_one_device_logs_out_the_page_open_on_another_at_once(asgi_page):
    player_named("jens")
    desktop, phone = asgi_page(), asgi_page()
    log_in(desktop, "jens")
    listening(desktop, reverse("lobby:lobby"))
    log_in(phone, "jens")

    take_a_break(phone)

    expect(desktop.get_by_role("link", name="Log in")).to_be_visible()  # the lobby loaded again, logged out
    expect(desktop.get_by_role("button", name="Log out")).to_have_count(0)


@pytest.mark.parametrize("script", [True, False], ids=["with-script", "without-script"])
def test_a_reminder_due_when_a_page_loads_is_on_it_and_closes_with_or_without_a_script(new_page, script):
    player = player_named("ines")
    reality_check_set(player=player, minutes=15)
    page = new_page(java_script_enabled=script)
    log_in(page, "ines")
    logged_in_ago(page, timedelta(minutes=16))
    page.goto(reverse("lobby:wallet"))

    reminder = page.get_by_role("dialog", name="Reality check")
    expect(reminder).to_be_visible()
    expect(reminder).to_contain_text("You have been logged in for 16 min")
    modal = page.evaluate("document.querySelector('#reality-check').matches(':modal')")
    assert modal is script  # with a script, nothing else on the page can be used until it closes
    reminder.get_by_role("button", name="Keep playing").click()
    expect(reminder).to_be_hidden()
    page.goto(reverse("lobby:wallet"))  # shown once
    expect(page.get_by_role("dialog", name="Reality check")).to_have_count(0)
