"""A player's results page (issue 29): his finished events with place, prize,
bounties and points, the totals, and a chart of his results over time beside a table
of the same numbers; his own view adds what he paid and his net, which nobody else
sees."""

import re

import pytest
from django.test import Client

from tests.factories import UserFactory
from tests.integration.test_integrity import finish_with_withheld_winner
from tournaments.models import Entry, LeaderBoardPoints, Purchase
from wallet.money import format_money

pytestmark = pytest.mark.django_db


def test_his_own_results_show_what_he_paid_and_his_net_and_others_see_the_public_part():
    tournament, winner, _staff = finish_with_withheld_winner()
    paid = sum(p.price + p.fee + p.bounty for p in Purchase.objects.filter(entry=winner))
    points = LeaderBoardPoints.objects.get(entry=winner).points
    currency = tournament.pool_currency
    own = Client()
    own.force_login(winner.player)

    page = own.get(f"/players/{winner.player_id}/results/").text

    row = page.split(f'href="/tournaments/{tournament.pk}/"')[1].split("</tr>")[0]
    assert "1 of 3" in row
    assert format_money(3000, currency) in row
    assert str(points) in row
    assert format_money(paid, currency) in row
    assert "Net (won less paid)" in page
    assert format_money(3000 - paid, currency) in page
    # The chart and its numbers: one point an event, the running total the table says.
    assert len(re.search(r'<polyline class="series" points="([^"]*)"', page).group(1).split()) == 2  # from 0
    numbers = page.split('class="levels chart-numbers"')[1].split("</table>")[0]
    assert format_money(3000 - paid, currency) in numbers

    public = Client().get(f"/players/{winner.player_id}/results/").text
    assert format_money(3000, currency) in public
    assert "Net (won less paid)" not in public
    assert ">Paid<" not in public
    assert format_money(paid, currency) not in public.split('class="levels results"')[1]

    loser = Entry.objects.filter(tournament=tournament).exclude(pk=winner.pk).order_by("-finish_best").first()
    theirs = Client().get(f"/players/{loser.player_id}/results/").text
    assert f"{loser.finish_best} of 3" in theirs


def test_my_results_needs_a_login_and_an_unknown_player_is_a_404():
    assert Client().get("/my/results/").status_code == 302
    player = UserFactory(username="newbie")
    me = Client()
    me.force_login(player)
    assert me.get("/my/results/").url == f"/players/{player.pk}/results/"
    assert "No finished tournament yet." in me.get(f"/players/{player.pk}/results/").text
    assert Client().get("/players/999999/results/").status_code == 404
