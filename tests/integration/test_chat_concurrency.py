"""Table chat and staff's mute under twenty requests at once, on real threads and
connections of PostgreSQL: the rate limit holds (rule 19's chat is the player's, at
all his tables), a repeated click is stored once, a mute is decided and audited once."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import UserFactory
from tests.integration.test_registration_concurrency import race, refusals
from tests.tables import started
from tournaments.models import ChatMessage, ChatMute
from tournaments.services.chat import RATE_MESSAGES, chat_post

pytestmark = pytest.mark.django_db(transaction=True)

CLICKS = 20


def signed_in(user) -> list[Client]:
    """A client a click, each signed in as `user` (a client is not shared by threads)."""
    clients = [Client() for _ in range(CLICKS)]
    for client in clients:
        client.force_login(user)
    return clients


def test_twenty_messages_at_once_keep_to_the_rate_limit():
    tournament, entries = started([1000, 1000, 1000])
    player = entries[0].player
    at = timezone.now()

    def say(number: int):
        return lambda: chat_post(tournament_id=tournament.pk, table=1, player=player, text=f"hello {number}", now=at)

    outcomes = race([say(number) for number in range(CLICKS)])

    assert refusals(outcomes, allowed={"chat_too_fast"}) == {"chat_too_fast": CLICKS - RATE_MESSAGES}
    assert ChatMessage.objects.filter(player=player).count() == RATE_MESSAGES


def test_twenty_identical_sends_at_once_are_one_message():
    tournament, entries = started([1000, 1000, 1000])
    writers = signed_in(entries[0].player)
    url = reverse("lobby:table_chat", args=[tournament.pk, 1])

    outcomes = race([lambda w=w: w.post(url, {"text": "Good luck all"}, HTTP_HX_REQUEST="true") for w in writers])

    assert refusals(outcomes, allowed=set()) == {}
    assert [outcome.value.status_code for outcome in outcomes] == [200] * CLICKS
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["Good luck all"]


def test_twenty_identical_mutes_at_once_are_one_mute_audited_once():
    _, entries = started([1000, 1000, 1000])
    player = entries[0].player
    clients = signed_in(UserFactory(is_staff=True))
    url = reverse("support:mute", args=[player.pk])

    outcomes = race([lambda c=c: c.post(url, {"minutes": "30", "reason": "Abuse at table 1"}) for c in clients])

    assert refusals(outcomes, allowed=set()) == {}
    assert [outcome.value.status_code for outcome in outcomes] == [302] * CLICKS
    assert ChatMute.objects.filter(player=player).count() == 1
    assert AuditEntry.objects.filter(action="tournaments.chat.muted").count() == 1
