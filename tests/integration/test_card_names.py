"""Cards a screen reader can name (rule 6's cards as the pages show them): each card
on the table, the hand's page and its replayer says its rank and suit in words, in
the page's language; a card the viewer may not see has no name on his page."""

import pytest
from django.urls import reverse
from django.utils import translation

from lobby.templatetags.poker import card_name
from tests.integration.test_hand_history import replayer_data, shown_down
from tests.tables import in_play, prepare, started

pytestmark = pytest.mark.django_db


def test_a_card_is_named_by_its_rank_and_suit_in_each_language():
    assert [card_name(code) for code in ("As", "Kh", "Qd", "Jc", "Ts", "2h")] == [
        "Ace of spades",
        "King of hearts",
        "Queen of diamonds",
        "Jack of clubs",
        "10 of spades",
        "2 of hearts",
    ]
    with translation.override("da"):
        assert [card_name(code) for code in ("As", "Kh", "Td")] == ["spar es", "hjerter konge", "ruder 10"]
    assert card_name("") == "hidden card"


def test_a_players_own_cards_are_named_on_his_table_page_in_his_language(client):
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    row = in_play(tournament)
    prepare(row, {alice: "AsKh", bob: "QsQh", carol: "7c2d"})
    client.force_login(alice.player)
    table = reverse("lobby:table", args=[tournament.pk, row.table.number])

    page = client.get(table).text
    assert 'role="img" aria-label="Ace of spades">A♠</span>' in page
    assert 'aria-label="King of hearts"' in page
    assert "Queen of spades" not in page  # Bob's, hidden from her
    with translation.override("da"):
        danish = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    assert 'aria-label="spar es"' in danish


def test_the_hand_page_and_its_replayer_name_the_cards_shown_and_only_those(client):
    tournament, (alice, _bob, _carol), row = shown_down()
    client.force_login(alice.player)

    page = client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text
    steps = replayer_data(page)["steps"]
    names = {shown["name"] for step in steps for shown in step["board"]}
    assert names == {"2 of clubs", "7 of diamonds", "9 of hearts", "Jack of spades", "3 of diamonds"}
    assert 'aria-label="King of spades"' in page  # Bob's, shown down
    assert "Queen of spades" not in page  # Carol's, folded
