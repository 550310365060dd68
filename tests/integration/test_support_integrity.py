"""Rule 20 in the staff console: the open flags with links to their hands; clear,
withhold, pay and confiscate, each with a reason; players get 403."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.tables import started
from tournaments.models import Entry, FlagStatus, Hand, IntegrityFlag, IntegritySignal, PrizeHold, SignalKind
from wallet.models import TransferReason

pytestmark = pytest.mark.django_db


@pytest.fixture
def flagged():
    tournament, (taker, giver, _third) = started([1000] * 3)
    flag = IntegrityFlag.objects.create(
        kind=SignalKind.CHIP_TRANSFER,
        tournament=tournament,
        player=taker.player,
        other=giver.player,
        created_at=timezone.now(),
    )
    hand = Hand.objects.filter(tournament=tournament).first()
    IntegritySignal.objects.create(
        kind=SignalKind.CHIP_TRANSFER, hand=hand, player=taker.player, other=giver.player, detail="knockout", flag=flag
    )
    return flag, taker, hand


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_staff_see_the_open_flags_with_their_hands(staff, flagged):
    flag, _taker, hand = flagged

    response = logged_in(staff).get(reverse("support:integrity"))

    assert response.status_code == 200
    page = response.content.decode()
    assert f'href="/tournaments/{hand.tournament_id}/hands/{hand.pk}/"' in page
    assert "knockout" in page
    assert reverse("support:integrity_withhold", args=[flag.pk]) in page


def test_players_get_403_on_every_integrity_page(player, flagged):
    flag, taker, _hand = flagged
    client = logged_in(player)
    urls = [
        reverse("support:integrity_decide", args=[flag.pk]),
        reverse("support:integrity_withhold", args=[flag.pk]),
        reverse("support:integrity_pay", args=[taker.pk]),
        reverse("support:integrity_confiscate", args=[taker.pk]),
    ]

    assert client.get(reverse("support:integrity")).status_code == 403
    for url in urls:
        assert client.post(url, {"decision": "cleared", "player": taker.player_id, "reason": "x"}).status_code == 403
    assert IntegrityFlag.objects.get().status == FlagStatus.OPEN
    assert Entry.objects.get(pk=taker.pk).prize_hold == PrizeHold.NONE


def test_staff_withhold_and_clear_with_a_reason_and_are_refused_without_one(staff, flagged):
    flag, taker, _hand = flagged
    client = logged_in(staff)
    withhold = reverse("support:integrity_withhold", args=[flag.pk])
    decide = reverse("support:integrity_decide", args=[flag.pk])

    assert client.post(withhold, {"player": taker.player_id, "reason": " "}).status_code == 400
    assert client.post(decide, {"decision": "cleared", "reason": ""}).status_code == 400
    assert Entry.objects.get(pk=taker.pk).prize_hold == PrizeHold.NONE

    assert client.post(withhold, {"player": taker.player_id, "reason": "Review"}).status_code == 302
    assert Entry.objects.get(pk=taker.pk).prize_hold == PrizeHold.WITHHELD
    assert client.post(decide, {"decision": "cleared", "reason": "Friends, nothing wrong"}).status_code == 302
    assert IntegrityFlag.objects.get().status == FlagStatus.CLEARED
    # Decided once: a second decision is refused.
    assert client.post(decide, {"decision": "confirmed", "reason": "Again"}).status_code == 400

    # Withheld before the prize is due: paying lifts the hold, nothing moves yet.
    page = client.get(reverse("support:integrity")).content.decode()
    assert reverse("support:integrity_pay", args=[taker.pk]) in page
    response = client.post(reverse("support:integrity_pay", args=[taker.pk]), {"reason": "Cleared"})
    assert response.status_code == 302
    assert Entry.objects.get(pk=taker.pk).prize_hold == PrizeHold.NONE
    assert not taker.player.accounts.filter(incoming__reason=TransferReason.PRIZE).exists()
    call_command("wallet_audit", stdout=StringIO())


def test_confiscating_a_prize_not_yet_due_is_refused(staff, flagged):
    flag, taker, _hand = flagged
    client = logged_in(staff)
    client.post(reverse("support:integrity_withhold", args=[flag.pk]), {"player": taker.player_id, "reason": "R"})

    response = client.post(reverse("support:integrity_confiscate", args=[taker.pk]), {"reason": "Dumping"})

    assert response.status_code == 400
    assert "not due yet" in response.content.decode()
    assert Entry.objects.get(pk=taker.pk).prize_hold == PrizeHold.WITHHELD


def test_a_sit_out_flag_shows_without_hand_links(staff, flagged):
    flag, taker, _hand = flagged
    sat_out = IntegrityFlag.objects.create(
        kind=SignalKind.SIT_OUT_TOGETHER,
        tournament=flag.tournament,
        player=taker.player,
        other=flag.other,
        created_at=timezone.now(),
    )
    IntegritySignal.objects.create(
        kind=SignalKind.SIT_OUT_TOGETHER,
        ref="sit_out:1:2",
        player=taker.player,
        other=flag.other,
        detail="sat out 5 s apart",
        flag=sat_out,
    )

    page = logged_in(staff).get(reverse("support:integrity")).content.decode()

    assert "started sitting out together" in page
    assert "sat out 5 s apart" in page
