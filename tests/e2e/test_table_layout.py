"""The seats around the felt (issue 28): on a wide screen the player's own seat is at
the bottom centre and the others clockwise around the felt, the board and the pot in
the middle; on a phone (390 px) the seats are a list that fits the screen. The
screenshots are written to SCREENSHOTS for a person to look at."""

import os
import tempfile
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.test_live import log_in
from tests.tables import in_play, seat_of, started

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(os.environ.get("SCREENSHOTS", Path(tempfile.gettempdir()) / "portal-screenshots"))


def centre(box: dict) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("size", [9, 6, 2])
def test_on_a_wide_screen_his_own_seat_is_at_the_bottom_and_the_others_around_the_felt(new_page, size):
    tournament, entries = started([1000] * size, table_size=size)
    row = in_play(tournament)
    me = entries[0]
    page = new_page(viewport={"width": 1280, "height": 1000})
    log_in(page, me.player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    ring = page.locator("ol.seats-ring.around")
    expect(ring).to_be_visible()
    ring_x, ring_y = centre(ring.bounding_box())
    mine = seat_of(row, me)
    own_x, own_y = centre(page.locator(f'li[data-seat="{mine}"]').bounding_box())
    assert abs(own_x - ring_x) < 10  # bottom centre
    assert own_y > ring_y
    for seat in range(1, size + 1):
        x, y = centre(page.locator(f'li[data-seat="{seat}"]').bounding_box())
        assert y <= own_y + 1  # nobody below him
        if seat != mine:
            assert (x, y) != (own_x, own_y)
    felt_x, felt_y = centre(page.locator(".felt").bounding_box())
    assert abs(felt_x - ring_x) < 10
    assert abs(felt_y - ring_y) < 40
    if size > 2:  # the next seat clockwise is to his left
        following = mine % size + 1
        assert centre(page.locator(f'li[data-seat="{following}"]').bounding_box())[0] < own_x
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"table-{size}-max-desktop.png", full_page=True)


def test_on_a_phone_the_seats_are_a_list_that_fits_the_screen(new_page):
    tournament, entries = started([1000] * 9, table_size=9)
    row = in_play(tournament)
    page = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    log_in(page, entries[0].player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    expect(page.locator(".own-seat form.actions, .own-seat .note").first).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "table-9-max-phone.png", full_page=True)
    wider = page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391)"
        ".map(e => e.tagName + '.' + e.className).slice(0, 5)"
    )
    assert wider == []  # nothing wider than the phone
    for seat in range(1, 10):
        box = page.locator(f'li[data-seat="{seat}"]').bounding_box()
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= 390
