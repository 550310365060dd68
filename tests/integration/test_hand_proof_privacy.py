"""An attacker reads finished hands' pages (issue 25): many random hands played
through the services, each hand's page fetched by a spectator and by every player
dealt in. From the page alone (the players list, the replayer's data, the deck's
proof and its one-liners) a viewer learns exactly the cards he saw: the board, the
hands shown down, his own. Every other card, burnt and undealt ones included, shows
its hash alone, so a hidden hand is only "two of the cards this viewer did not see"."""

import json
import random
import re

import pytest
from django.test import Client
from django.utils import timezone

from lobby.templatetags.poker import card
from tests.tables import started
from tournaments.models import Entry, Hand, HandStatus
from tournaments.rules.bots import bot_action
from tournaments.rules.hands import FULL_DECK, card_salt
from tournaments.selectors.replays import entry_of, replay
from tournaments.services.tables import hand_act, hand_report

pytestmark = pytest.mark.django_db

HANDS = 30


def play_hands(count: int, rng: random.Random) -> list[Hand]:
    """`count` finished hands of random play by bots, at the two tables of six-handed
    events (bots go all in often: a new event starts when one ends)."""
    finished: list[Hand] = []
    while len(finished) < count:
        tournament, _ = started([5000] * 12, table_size=6)
        while len(finished) < count:
            row = Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).order_by("pk").first()
            if row is None:
                break
            while row.status == HandStatus.PLAYING:
                action = bot_action(replay(row), rng)
                player = Entry.objects.get(pk=entry_of(row, action.seat)).player_id
                row = hand_act(
                    hand_id=row.pk,
                    player_id=player,
                    at=len(row.actions),
                    kind=action.kind.value,
                    amount=action.amount,
                    now=timezone.now(),
                ).hand
            assert hand_report(hand_id=row.pk, now=timezone.now())
            finished.append(row)
    return finished


def named_cards(page: str) -> set[str]:
    """Every card the page names: as a code in the proof (`<code>Qs</code>`, the
    one-liner's 'Qs:salt'), as people read it (Q♠), or in the replayer's data."""
    found = {code for code in FULL_DECK if f"<code>{code}</code>" in page or f"'{code}:" in page or card(code) in page}
    data = re.search(r'<script id="replayer-data" type="application/json">(.*?)</script>', page, re.S)
    if data:
        texts = {each["text"] for seat in json.loads(data.group(1))["seats"] for each in seat["cards"]}
        steps = json.loads(data.group(1))["steps"]
        texts |= {each["text"] for step in steps for each in step["board"]}
        found |= {code for code in FULL_DECK if card(code) in texts}
    return found


def test_a_hand_page_names_only_the_cards_its_viewer_saw_over_many_random_hands():
    hands = play_hands(HANDS, random.Random(25))
    spectator = Client()
    clients: dict[int, Client] = {}
    folded_hidden = 0
    for row in hands:
        played = replay(row)
        deck = [row.deck[i : i + 2] for i in range(0, len(row.deck), 2)]
        shown = {int(seat) for seat in row.result["shown"]}
        board = set(row.result["board"])
        viewers: list[tuple[int | None, Client]] = [(None, spectator)]
        for seat, entry in row.seats.items():
            player = Entry.objects.get(pk=entry).player
            if player.pk not in clients:
                clients[player.pk] = Client()
                clients[player.pk].force_login(player)
            viewers.append((int(seat), clients[player.pk]))
        for viewer, client in viewers:
            page = client.get(f"/tournaments/{row.tournament_id}/hands/{row.pk}/").content.decode()
            assert "Verified" in page
            saw = board | {code for seat in shown | {viewer} - {None} for code in played.hole_cards(seat)}

            assert named_cards(page) == saw
            # The rest, burnt and undealt cards among them, stay as hashes without salts:
            # an unseen hand could be any two of them.
            unseen = [position for position, code in enumerate(deck, 1) if code not in saw]
            assert len(unseen) == 52 - len(saw)
            assert not any(card_salt(row.salt, position) in page for position in unseen)
            for seat in set(played.seats) - shown - {viewer}:
                assert set(played.hole_cards(seat)) <= {deck[position - 1] for position in unseen}
                folded_hidden += played.folded(seat)
    assert folded_hidden > HANDS  # the random hands did hide folded players' cards from others
