"""The README's staff walk-through on the demo's data, in the browser: the demo's
`staff` login pauses, resumes, cancels and postpones events from the admin's
tournament list; a player reaches none of it."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.conftest import BROWSER_TIME_ZONE
from tournaments.demo import demo_load
from tournaments.models import Status, Tournament

CHANGELIST = "/admin/tournaments/tournament/"


@pytest.fixture
def demo(migrated_data):
    demo_load(now=timezone.now())


def admin_login(page, username: str, password: str) -> None:
    page.goto("/admin/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def run_action(page, event: Tournament, action: str) -> None:
    """On the admin's tournament list: tick the event, choose the action, Go."""
    page.goto(CHANGELIST)
    page.locator(f'input[name="_selected_action"][value="{event.pk}"]').check()
    page.locator('select[name="action"]').select_option(label=action)
    page.locator('button[name="index"]').click()


def first(**filters) -> Tournament:
    return Tournament.objects.filter(**filters).order_by("scheduled_start", "pk").first()


def in_play() -> Tournament:
    """An event whose clock runs. Whether it is in late registration, playing a level
    or on a break depends on the hour the demo is loaded at."""
    event = first(
        status__in=[Status.LATE_REGISTRATION, Status.RUNNING, Status.ON_BREAK], paused_at=None, entries_count__gt=0
    )
    assert event is not None, "the demo has no event in play"
    return event


def test_staff_pause_resume_cancel_and_postpone_events_from_the_admin(page, demo):
    playing = in_play()
    # Well ahead of their start, as a postponement must be.
    registering = Tournament.objects.filter(
        status=Status.REGISTERING, entries_count__gt=0, scheduled_start__gt=timezone.now() + timedelta(hours=1)
    ).order_by("scheduled_start", "pk")
    to_cancel, to_postpone = registering[0], registering[1]

    admin_login(page, "staff", "staff-demo")
    page.locator(f'#content a[href="{CHANGELIST}"]').first.click()
    # Staff view the list (admins change events) and run the actions from it.
    expect(page.get_by_role("heading", name="Select tournament to view")).to_be_visible()

    # Pause, with a reason players see beside the clock.
    run_action(page, playing, "Pause the clock")
    expect(page.get_by_role("heading", name="Pause the clock")).to_be_visible()
    page.get_by_label("Reason").fill("Server incident at table 2")
    page.locator('input[type="submit"][value="Pause the clock"]').click()
    expect(page.locator(".messagelist")).to_contain_text("Paused 1 event.")
    info = page.context.new_page()
    info.goto(f"/tournaments/{playing.pk}/")
    expect(info.locator("#clock")).to_contain_text("Paused: Server incident at table 2")

    # Resume.
    run_action(page, playing, "Resume the clock")
    expect(page.locator(".messagelist")).to_contain_text("Resumed 1 event.")
    info.reload()
    expect(info.locator("#clock")).not_to_contain_text("Paused")
    playing.refresh_from_db()
    assert playing.paused_at is None

    # Cancel, rolling back: a confirmation page with a reason, everyone refunded.
    run_action(page, to_cancel, "Cancel (roll back, refund everything)")
    expect(page.get_by_role("heading", name="Cancel and refund everything")).to_be_visible()
    page.get_by_label("Reason").fill("Venue closed")
    page.locator('input[type="submit"]').click()
    expect(page.locator(".messagelist")).to_contain_text("Cancelled 1 event; every entrant was refunded.")
    to_cancel.refresh_from_db()
    assert to_cancel.status == Status.CANCELLED

    # Postpone by a day: the entries are kept. The form reads the time in the
    # viewer's zone, which the portal's pages have told the server by now.
    new_start = (to_postpone.scheduled_start + timedelta(days=1)).astimezone(ZoneInfo(BROWSER_TIME_ZONE))
    entries = to_postpone.entries_count
    run_action(page, to_postpone, "Postpone")
    expect(page.get_by_role("heading", name="Postpone")).to_be_visible()
    page.locator('input[name="new_start_0"]').fill(new_start.strftime("%Y-%m-%d"))
    page.locator('input[name="new_start_1"]').fill(new_start.strftime("%H:%M:%S"))
    page.get_by_label("Reason").fill("Clashes with the final")
    page.locator('input[type="submit"]').click()
    expect(page.locator(".messagelist")).to_contain_text("Postponed 1 event.")
    to_postpone.refresh_from_db()
    assert to_postpone.scheduled_start == new_start.replace(microsecond=0)
    assert to_postpone.entries_count == entries
    info.goto(f"/tournaments/{to_postpone.pk}/")
    expect(info.locator("body")).to_contain_text("Postponed: first announced for")


def test_a_player_cannot_reach_the_admins_actions(page, demo):
    playing = in_play()

    admin_login(page, "alice", "alice-demo")

    expect(page.locator(".errornote")).to_contain_text("staff account")
    page.goto(CHANGELIST)
    expect(page.get_by_label("Username")).to_be_visible()  # sent back to the admin's login
    playing.refresh_from_db()
    assert playing.paused_at is None
