"""Tournament Info's charts (issue 29): the prizes by place, and the players left and
the average stack over time, each drawn as SVG with the same numbers in a table; and
a finished event's players list with each finish's Leader Board points."""

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from tests.integration.test_integrity import finish_with_withheld_winner
from tournaments.models import Entry, Hand, LeaderBoardPoints, Purchase, Tournament
from tournaments.selectors.charts import field_over_time

pytestmark = pytest.mark.django_db


def test_a_finished_events_page_charts_its_field_and_prizes_and_lists_the_points():
    tournament, winner, _staff = finish_with_withheld_winner()
    # The event's instants as a real one's (the test played it at once).
    start = timezone.now() - timedelta(hours=1)
    Tournament.objects.filter(pk=tournament.pk).update(started_at=start)
    Purchase.objects.filter(entry__tournament=tournament).update(created_at=start - timedelta(minutes=30))
    Entry.objects.filter(tournament=tournament).update(created_at=start - timedelta(minutes=30))
    total = sum(Purchase.objects.filter(entry__tournament=tournament).values_list("chips", flat=True))
    losers = Entry.objects.filter(tournament=tournament).exclude(pk=winner.pk).order_by("-finish_best")
    for minutes, loser in zip((10, 20), losers, strict=True):
        Entry.objects.filter(pk=loser.pk).update(ended_at=start + timedelta(minutes=minutes))
    cache.clear()  # the charts kept from the finish's live update (lobby.views.CHART_SECONDS)
    tournament.refresh_from_db()

    field = field_over_time(tournament)
    assert [(point.at - start, point.players_left, point.average_stack) for point in field] == [
        (timedelta(0), 3, total // 3),
        (timedelta(minutes=10), 2, total // 2),
        (timedelta(minutes=20), 1, total),  # every chip with the winner
    ]
    page = Client().get(f"/tournaments/{tournament.pk}/").text

    players_chart, stack_chart = re.findall(r'<polyline class="series" points="([^"]*)"', page)
    assert len(players_chart.split()) == len(stack_chart.split()) == len(field)
    numbers = page.split('class="levels field-numbers"')[1].split("</table>")[0]
    assert re.findall(r'<td class="money">(\d+)</td><td class="money">', numbers) == [
        str(point.players_left) for point in field
    ]
    assert page.count('<rect class="bar"') == 1  # winner takes all: one place paid
    # The chip leaders (its three places): the stack each started the hand with, then his end.
    assert len(re.findall(r'<polyline class="series leader-\d"', page)) == 3
    leaders = page.split('class="levels leader-numbers"')[1].split("</table>")[0]
    winner_rows = re.findall(
        rf"<td>{winner.player.screen_name}</td><td><time[^>]*>[^<]*</time></td><td class=\"money\">([^<]*)</td>",
        leaders,
    )
    assert winner_rows == ["1,000", "3,000"]
    points = LeaderBoardPoints.objects.get(entry=winner).points
    players_list = page.split('class="levels players-list"')[1]
    row = players_list.split(f"<td>{winner.player.screen_name}</td>")[1].split("</tr>")[0]
    assert str(points) in row
    assert Entry.objects.filter(tournament=tournament, finish_best__isnull=False).count() == 3
    final = Hand.objects.filter(tournament=tournament).latest("started_at").table.number
    assert f'href="/tournaments/{tournament.pk}/tables/{final}/">The final table' in page

    # In Danish too, the charts' coordinates are numbers for the browser, never written
    # with the language's decimal comma (an SVG attribute "36,0" is not a number).
    for address in (f"/da/tournaments/{tournament.pk}/", f"/da/players/{winner.player_id}/results/"):
        danish = Client().get(address).text
        assert '<html lang="da"' in danish
        svgs = re.findall(r"<svg.*?</svg>", danish, re.DOTALL)
        coordinates = [
            value for svg in svgs for value in re.findall(r' (?:x|y|x1|x2|y1|y2|cx|cy|width|height)="([^"]*)"', svg)
        ]
        assert coordinates, address
        assert all(re.fullmatch(r"-?\d+(\.\d+)?", value) for value in coordinates), address
