"""My tables (issue 28): every table where the player is seated on one page, the one
waiting for him first and marked, the page's title saying so; he plays there as on
a table's own page."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.test_live import log_in
from tests.tables import in_play, started
from tournaments.models import Entry
from tournaments.selectors.replays import entry_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_his_tables_side_by_side_the_one_waiting_for_him_first(new_page):
    first, _ = started([1000, 1000, 1000])
    second, _ = started([1000, 1000, 1000])
    waiting_row = in_play(second)
    player = Entry.objects.get(pk=entry_of(waiting_row, waiting_row.to_act)).player
    # The same player seated in the first event too, at a turn not his.
    other_row = in_play(first)
    idle = next(pk for seat, pk in other_row.seats.items() if int(seat) != other_row.to_act)
    Entry.objects.filter(pk=idle).update(player=player)

    page = new_page(viewport={"width": 1400, "height": 1000})
    log_in(page, player.username)
    page.get_by_role("link", name="My tables").click()
    tables = page.locator(".my-table")
    expect(tables).to_have_count(2)
    waiting = tables.filter(has=page.locator(".own-seat form.actions"))
    expect(waiting).to_have_count(1)
    expect(waiting).to_contain_text(second.name)
    expect(page).to_have_title("● My tables · Poker room")
    other = tables.filter(has_text=first.name)
    assert waiting.bounding_box()["x"] < other.bounding_box()["x"]  # brought forward: first in its row
    for table in (waiting, other):  # at each table his own seat at the bottom of the felt
        mine = table.locator("[data-own-seat]").get_attribute("data-own-seat")
        ring, seat = (
            table.locator("ol.seats-ring").bounding_box(),
            table.locator(f'li[data-seat="{mine}"]').bounding_box(),
        )
        assert abs((seat["x"] + seat["width"] / 2) - (ring["x"] + ring["width"] / 2)) < 10
        assert seat["y"] > ring["y"] + ring["height"] / 2

    waiting.locator('button[value="cc"]').click()  # he plays there as on the table's page
    expect(page.locator(".own-seat form.actions")).to_have_count(0)
    expect(page).to_have_title("My tables · Poker room")
    assert len(in_play(second).actions) == 1


def test_a_player_at_no_table_is_told_so(new_page):
    _tournament, entries = started([1000, 1000])
    Entry.objects.filter(pk=entries[0].pk).update(table=None, status="eliminated")
    page = new_page()
    log_in(page, entries[0].player.username)
    page.goto(reverse("lobby:my_tables"))
    expect(page.get_by_text("You are not seated at any table now.")).to_be_visible()


def test_the_keys_act_at_the_table_he_is_in(new_page):
    first, _ = started([1000, 1000, 1000])
    second, _ = started([1000, 1000, 1000])
    rows = [in_play(first), in_play(second)]
    player = Entry.objects.get(pk=entry_of(rows[1], rows[1].to_act)).player
    Entry.objects.filter(pk=entry_of(rows[0], rows[0].to_act)).update(player=player)  # both wait for him

    page = new_page(viewport={"width": 1400, "height": 1000})
    log_in(page, player.username)
    page.goto(reverse("lobby:my_tables"))
    waiting = page.locator(".my-table").filter(has=page.locator(".own-seat form.actions"))
    expect(waiting).to_have_count(2)
    labels = [waiting.nth(index).get_attribute("aria-labelledby") for index in (0, 1)]
    first_shown, second_shown = (page.locator(f'section[aria-labelledby="{label}"]') for label in labels)
    second_shown.locator(".own-seat form.actions button[value='cc']").focus()  # he is at the second one
    page.keyboard.press("f")  # the page's shortcut, at the table he is in
    expect(second_shown.locator(".own-seat form.actions")).to_have_count(0)
    expect(first_shown.locator(".own-seat form.actions")).to_be_visible()
    folded, kept = (first, second) if labels[1] == f"h-my-table-{first.pk}" else (second, first)
    assert [kind for _seat, kind, _amount in in_play(folded).actions] == ["f"]
    assert in_play(kept).actions == []
