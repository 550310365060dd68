"""The bet slider, the number box and the presets in real Chromium (issue 25): each
follows the others, so the slider never shows another amount than the one the Raise
button sends."""

import pytest
from playwright.sync_api import expect

from tests.e2e.test_live import log_in
from tests.tables import acting, in_play, started

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_slider_the_number_box_and_the_presets_stay_in_step(new_page):
    tournament, _ = started([1000, 1000, 1000])
    page = new_page()
    log_in(page, acting(in_play(tournament)).player.username)
    page.goto(f"/tournaments/{tournament.pk}/tables/1/")
    own = page.locator(f"#own-seat-{tournament.pk}")
    slider = own.get_by_role("slider", name="Amount")
    box = own.locator(f"#amount-{tournament.pk}")
    expect(slider).to_have_value("40")
    pot = own.get_by_role("button", name="Pot", exact=True)
    pot_amount = pot.get_attribute("data-amount-preset")

    box.fill("300")
    expect(slider).to_have_value("300")

    pot.click()
    expect(box).to_have_value(pot_amount)
    expect(slider).to_have_value(pot_amount)

    own.get_by_role("button", name="All in").click()
    expect(box).to_have_value("1000")
    expect(slider).to_have_value("1000")

    slider.fill("500")  # the slider still moves the box
    expect(box).to_have_value("500")
