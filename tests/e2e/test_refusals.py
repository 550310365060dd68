"""A refused form in real Chromium (issue 25): the refusal shows beside the form
that caused it and the rest of the page stays, with DEBUG on (the demo) as in
production. django-htmx's debug script used to replace the whole document with the
bare 400 fragment."""

import pytest
from playwright.sync_api import expect

from tests.e2e.test_live import log_in
from tests.tables import acting, in_play, started

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def page_stays(page, number: int = 1):
    expect(page.locator("header.topbar")).to_be_visible()
    expect(page.get_by_role("heading", name=f"Table {number}", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Table chat")).to_be_visible()
    # The stylesheet still applies: the header is laid out by it.
    assert page.evaluate("getComputedStyle(document.querySelector('header.topbar')).display") == "flex"


def test_a_chat_message_held_back_shows_its_warning_beside_the_form(debug, new_page):
    tournament, _ = started([1000, 1000, 1000])
    writer = acting(in_play(tournament)).player
    page = new_page()
    log_in(page, writer.username)
    page.goto(f"/tournaments/{tournament.pk}/tables/1/")

    page.get_by_label("Message").fill("I had AsKd there")
    page.get_by_role("button", name="Send").click()

    form = page.locator(f"#chat-form-{tournament.pk}")
    expect(form.get_by_role("alert")).to_contain_text("players may not discuss it (rule 19)")
    expect(form.get_by_label("Message")).to_have_value("I had AsKd there")
    page_stays(page)


def test_a_raise_refused_because_the_turn_moved_shows_beside_the_buttons(debug, new_page):
    tournament, _ = started([1000, 1000, 1000])
    player = acting(in_play(tournament)).player
    first = new_page()
    log_in(first, player.username)
    url = f"/tournaments/{tournament.pk}/tables/1/"
    first.goto(url)
    second = first.context.new_page()  # the same player's other tab, still showing his turn
    second.goto(url)
    expect(second.get_by_role("button", name="Raise")).to_be_visible()

    first.get_by_role("button", name="Call 20").click()
    expect(first.get_by_text("Waiting for the other players.")).to_be_visible()
    second.get_by_role("button", name="Raise").click()

    own = second.locator(f"#own-seat-{tournament.pk}")
    expect(own.get_by_role("alert")).to_contain_text("The hand has moved on since you chose")
    page_stays(second)
