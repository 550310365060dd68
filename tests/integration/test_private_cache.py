"""Pages that carry a player's own hole cards are his alone (issue 25): no shared
cache and no back-button copy may keep them, as `/my/hands/` already was."""

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.tables import in_play, seat_of, started
from tournaments.models import HandStatus
from tournaments.rules.hands import ActionKind
from tournaments.services.tables import hand_act, hand_report

pytestmark = pytest.mark.django_db


def private(response) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


def test_every_page_with_his_own_cards_is_sent_private_and_not_stored(client):
    tournament, entries = started([1000, 1000])
    row = in_play(tournament)
    alice = entries[0]
    client.force_login(alice.player)
    table = (tournament.pk, row.table.number)
    pages = {
        "table": client.get(reverse("lobby:table", args=table)),
        "own part": client.get(reverse("lobby:table_own", args=table)),
        "sit out": client.post(reverse("lobby:table_sit", args=table), {"sitting_out": "0"}),
    }
    # The hand is over after one fold; its page, its PHH and his histories.
    to_act = next(entry for entry in entries if seat_of(row, entry) == row.to_act)
    acted = hand_act(
        hand_id=row.pk, player_id=to_act.player_id, at=0, kind=ActionKind.FOLD.value, amount=None, now=timezone.now()
    ).hand
    assert acted.status == HandStatus.FINISHED
    assert hand_report(hand_id=row.pk, now=timezone.now())
    hand = reverse("lobby:hand", args=[tournament.pk, row.pk])
    pages |= {
        "hand": client.get(hand),
        "hand PHH": client.get(hand, {"format": "phh"}),
        "table PHH": client.get(reverse("lobby:table_history", args=table)),
        "his PHH": client.get(reverse("lobby:own_history", args=[tournament.pk])),
        "my hands": client.get(reverse("lobby:my_hands")),
    }
    new = in_play(tournament)
    if seat_of(new, alice) != new.to_act:  # her turn first: her action is taken
        other = entries[1].player_id
        hand_act(hand_id=new.pk, player_id=other, at=0, kind=ActionKind.FOLD.value, amount=None, now=timezone.now())
        assert hand_report(hand_id=new.pk, now=timezone.now())
        new = in_play(tournament)
    pages["action"] = client.post(
        reverse("lobby:table_act", args=table), {"hand": new.pk, "at": 0, "kind": ActionKind.FOLD.value}
    )

    assert {name: response.status_code for name, response in pages.items()} == dict.fromkeys(pages, 200)
    assert [name for name, response in pages.items() if not private(response)] == []
