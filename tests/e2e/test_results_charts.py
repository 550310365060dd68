"""After the event, in real Chromium (issue 29): a finished tournament's page draws
its charts (the prizes, the players left, the average stack, the chip leaders) with the numbers the
standings give, the winner's results page draws his results over time, the Leader
Board highlights his row, the Sit & Go tab lists the open Sit & Go; axe-core finds no
serious violation on any of them. Screenshots go to SCREENSHOTS for a person to look at."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.test_accessibility import serious_violations
from tests.e2e.test_live import log_in
from tests.e2e.test_table_layout import SCREENSHOTS
from tests.factories import BlindStructureFactory
from tests.integration.test_integrity import finish_with_withheld_winner
from tournaments.demo import demo_finished_load
from tournaments.models import Entry, Purchase, SitAndGo, Tournament
from tournaments.services.sit_and_go import sit_and_gos_open

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def finished(transactional_db):
    tournament, winner, _staff = finish_with_withheld_winner()
    start = timezone.now() - timedelta(hours=1)  # instants as a real event's (the test played it at once)
    Tournament.objects.filter(pk=tournament.pk).update(started_at=start)
    Entry.objects.filter(tournament=tournament).update(created_at=start - timedelta(minutes=30))
    Purchase.objects.filter(entry__tournament=tournament).update(created_at=start - timedelta(minutes=30))
    losers = Entry.objects.filter(tournament=tournament).exclude(pk=winner.pk).order_by("-finish_best")
    for minutes, loser in zip((10, 20), losers, strict=True):
        Entry.objects.filter(pk=loser.pk).update(ended_at=start + timedelta(minutes=minutes))
    cache.clear()  # the charts kept from the finish's live update (lobby.views.CHART_SECONDS)
    winner.player.set_password("correct horse battery")
    winner.player.save()
    SitAndGo.objects.create(name="Turbo 6", buy_in=500, fee=50, blind_structure=BlindStructureFactory())
    sit_and_gos_open(now=timezone.now())
    return tournament, winner


def test_a_finished_events_charts_the_winners_results_and_his_board_row(page, finished):
    tournament, winner = finished
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    found = {}

    page.goto(reverse("lobby:tournament", args=[tournament.pk]))
    charts = page.locator("svg.line-chart")
    expect(charts).to_have_count(4)  # prizes, players left, average stack, the chip leaders
    for index in range(4):
        box = charts.nth(index).bounding_box()
        assert box["width"] > 200
        assert box["height"] > 50
    page.get_by_text("The numbers in the charts").click()
    players_left = page.locator(".field-numbers tbody tr td:nth-child(2)").all_inner_texts()
    assert players_left == ["3", "2", "1"]  # as the standings: two out, then the winner alone
    page.evaluate("window.scrollTo(0, 0)")  # the tables' sticky headers where a reader sees them
    page.screenshot(path=SCREENSHOTS / "finished-tournament.png", full_page=True)
    found["tournament info, finished"] = serious_violations(page)

    page.goto("/?kind=sit_and_go")
    expect(page.locator("tr", has_text="Turbo 6 #1")).to_contain_text("When full")
    found["sit & go tab"] = serious_violations(page)

    log_in(page, winner.player.username)
    page.goto(reverse("lobby:my_results"))
    expect(page.locator("svg.line-chart polyline")).to_have_count(1)
    expect(page.locator(".results")).to_contain_text("1 of 3")
    page.screenshot(path=SCREENSHOTS / "my-results.png", full_page=True)
    found["my results"] = serious_violations(page)

    page.goto(reverse("lobby:leader_board", args=["tournament", "day"]))
    own = page.locator("tr.own")
    expect(own).to_have_count(1)
    expect(own).to_contain_text(winner.player.screen_name)
    expect(page.locator(".own-standing")).to_contain_text("Your place: 1")
    found["leader board"] = serious_violations(page)
    assert found == {name: [] for name in found}


def test_the_demos_finished_event_charts_what_its_standings_say(page, migrated_data):
    event = demo_finished_load(now=timezone.now())
    standings = list(
        Entry.objects.filter(tournament=event, finish_best__isnull=False)
        .order_by("finish_best", "pk")
        .values_list("player__screen_name", "finish_best")
    )
    assert len(standings) == event.entries_count == 18

    page.goto(reverse("lobby:tournament", args=[event.pk]))
    expect(page.locator("svg.line-chart")).to_have_count(4)
    page.get_by_text("The numbers in the charts").click()
    players_left = [int(text) for text in page.locator(".field-numbers tbody tr td:nth-child(2)").all_inner_texts()]
    assert players_left[0] == 18
    assert players_left[-1] == 1
    assert players_left == sorted(players_left, reverse=True)  # nobody joins after the start here
    # Each elimination is a place in the standings: 17 players out, one winner.
    assert 18 - players_left[-1] == sum(1 for _, place in standings if place > 1)
    legend = page.locator(".legend li").all_inner_texts()
    assert legend == [name for name, _ in standings[:5]]  # the chip leaders' lines: the first five places
    paid = page.locator("table.payouts tbody tr").count()
    expect(page.locator("svg.line-chart rect.bar")).to_have_count(min(paid, 30))
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=SCREENSHOTS / "demo-finished-event.png", full_page=True)
    assert serious_violations(page) == []
