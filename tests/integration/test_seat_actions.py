"""Each seat's last action on the table page (issue 28): "Raise 300", "Call",
"Check", "Bet 400" beside the player until the street ends; folds and all-ins keep
their own marks."""

import re

import pytest
from django.urls import reverse

from tests.tables import act, in_play, started
from tournaments.rules.hands import ActionKind

pytestmark = pytest.mark.django_db


def said(client, tournament, row) -> dict[int, str]:
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    seats = re.findall(r'data-seat="(\d+)".*?</li>', page, re.S)
    shown = {}
    for seat in seats:
        block = page.split(f'data-seat="{seat}"', 1)[1].split("</li>", 1)[0]
        found = re.search(r'<span class="said">([^<]+)</span>', block)
        if found:
            shown[int(seat)] = found.group(1)
    return shown


def test_the_table_shows_each_seats_last_action_until_the_street_ends(client):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    first = row.to_act
    row = act(row, ActionKind.BET_RAISE, 300)
    second = row.to_act
    row = act(row, ActionKind.CHECK_CALL)
    assert said(client, tournament, row) == {first: "Raise 300", second: "Call"}
    row = act(row, ActionKind.CHECK_CALL)  # the last call: the flop comes
    assert said(client, tournament, row) == {}
    opener = row.to_act
    row = act(row, ActionKind.CHECK_CALL)
    bettor = row.to_act
    row = act(row, ActionKind.BET_RAISE, 400)
    assert said(client, tournament, row) == {opener: "Check", bettor: "Bet 400"}
