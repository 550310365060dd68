"""Dates in the browser: the page's script writes an instant in the browser's own
zone in the site's one format (as the server does), keeping the year; the admin,
visited first, stores the zone and says which one it shows times in."""

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.conftest import BROWSER_TIME_ZONE
from tests.e2e.test_live import log_in
from tests.factories import UserFactory
from wallet.tickets import ticket_issue


@pytest.fixture
def ticket_holder(transactional_db):
    player = UserFactory(username="alice", screen_name="Alice")
    last_day = date(timezone.localdate().year + 1, 12, 31)
    # Valid through 31 December in Copenhagen: it expires as 1 January begins there.
    ends = datetime(last_day.year + 1, 1, 1, tzinfo=ZoneInfo(BROWSER_TIME_ZONE))
    ticket_issue(owner=player, value=1100, currency="EUR", expires_at=ends, reason="Satellite")
    return player, last_day


def rendered_in_utc(page) -> None:
    """As on a first visit: the server writes times in UTC, the script in the browser's zone."""
    page.context.add_cookies([{"name": "tz", "value": "UTC", "url": page.url}])


DANISH_DAYS = ["man", "tir", "ons", "tor", "fre", "lør", "søn"]


@pytest.mark.parametrize(("prefix", "month"), [("", "Dec"), ("/da", "dec")])
def test_a_ticket_valid_through_new_years_eve_reads_as_its_last_minute_in_the_browsers_zone(
    page, ticket_holder, prefix, month
):
    _player, last_day = ticket_holder
    log_in(page, "alice")
    rendered_in_utc(page)

    page.goto(f"{prefix}/wallet/")

    weekday = DANISH_DAYS[last_day.weekday()] if prefix else last_day.strftime("%a")
    mark = "." if prefix else ""
    expect(page.locator("table.tickets tbody time")).to_have_text(f"{weekday} 31{mark} {month} {last_day.year}, 23:59")


def test_the_admin_visited_first_shows_times_in_the_browsers_zone_and_says_so(page, admin):
    page.goto("/admin/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()

    expect(page.locator("#user-tools")).to_contain_text(f"Times are in {BROWSER_TIME_ZONE}.")
