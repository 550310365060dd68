"""Table chat and conduct (rules 19, 20): the players seated at a table write and
everyone watching reads, live; a message discussing the hand in play is held back
(not heads-up); staff mute a player and read any table's chat log."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import Client
from django.urls import reverse

from audit.models import AuditEntry
from tests.factories import UserFactory
from tests.integration.test_live import closed, opened, received
from tests.tables import in_play, started
from tournaments.models import ChatMessage, ChatWord, Entry, Hand, HandStatus
from tournaments.services.chat import RATE_MESSAGES
from tournaments.services.clock import tournament_pause
from tournaments.services.tables import hands_check_down

pytestmark = pytest.mark.django_db


def chat_url(tournament, number: int = 1) -> str:
    return reverse("lobby:table_chat", args=[tournament.pk, number])


def table_url(tournament, number: int = 1) -> str:
    return reverse("lobby:table", args=[tournament.pk, number])


def seated(tournament, number: int = 1) -> list[Client]:
    """A signed-in client for each player seated at table `number`."""
    clients = []
    for entry in Entry.objects.filter(table__tournament=tournament, table__number=number).select_related("player"):
        client = Client()
        client.force_login(entry.player)
        clients.append(client)
    return clients


def say(client: Client, tournament, text: str, number: int = 1):
    return client.post(chat_url(tournament, number), {"text": text}, HTTP_HX_REQUEST="true")


def test_a_seated_player_writes_and_a_spectator_reads_it_escaped_with_his_screen_name():
    tournament, _ = started([1000, 1000, 1000])
    writer = seated(tournament)[0]
    name = Entry.objects.filter(table__tournament=tournament).first().player.screen_name

    response = say(writer, tournament, "Good luck all <script>alert(1)</script>")

    assert response.status_code == 200
    page = Client().get(table_url(tournament)).text
    assert "Good luck all &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
    assert f"<strong>{name}</strong>: Good luck all &lt;script&gt;" in page
    # The spectator has no form to write with.
    assert 'name="text"' not in page
    assert "Only the players seated at this table can write here." in page


def test_spectators_players_at_other_tables_and_visitors_cannot_write():
    tournament, _ = started([1000] * 8)  # two tables of four
    other_table = seated(tournament, 2)[0]
    watcher = Client()
    watcher.force_login(UserFactory())

    refused_other = say(other_table, tournament, "Hello table one")
    refused_watcher = say(watcher, tournament, "Hello")
    anonymous = Client().post(chat_url(tournament), {"text": "Hello"})

    assert refused_other.status_code == refused_watcher.status_code == 400
    assert "Only the players seated at this table can write in its chat." in refused_other.text
    assert anonymous.status_code == 302
    assert not ChatMessage.objects.exists()


def test_discussing_the_hand_in_play_is_held_back_with_a_warning_and_logged():
    tournament, _ = started([1000, 1000, 1000])
    assert in_play(tournament).status == HandStatus.PLAYING
    writer = seated(tournament)[0]

    response = say(writer, tournament, "I folded two KINGS there")

    assert response.status_code == 400
    assert "players may not discuss it (rule 19)" in response.text
    assert 'value="I folded two KINGS there"' in response.text  # kept for him to change
    message = ChatMessage.objects.get()
    assert message.held
    assert "two KINGS" not in Client().get(table_url(tournament)).text
    assert AuditEntry.objects.get(action="tournaments.chat.held").data["text"] == "I folded two KINGS there"
    # Words inside other words are not card words.
    assert say(writer, tournament, "Thanks, that was a kingsized pot").status_code == 200
    assert say(writer, tournament, "As I said, well played").status_code == 200


@pytest.mark.parametrize("text", ["I had AsKd there", "folded Ah Kh", "my A♠ K♦ lost", "10♥ again"])
def test_cards_written_out_during_a_hand_are_held_back(text):
    tournament, _ = started([1000, 1000, 1000])
    writer = seated(tournament)[0]

    response = say(writer, tournament, text)

    assert response.status_code == 400
    assert ChatMessage.objects.get().held
    assert text not in Client().get(table_url(tournament)).text


def test_the_same_words_are_fine_between_hands(staff):
    tournament, _ = started([1000, 1000, 1000])
    now = tournament.scheduled_start
    tournament_pause(tournament_id=tournament.pk, actor=staff, reason="Deal talks", now=now)
    hands_check_down(tournament_id=tournament.pk, now=now)  # the hand ends; the next waits
    assert not Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).exists()

    response = say(seated(tournament)[0], tournament, "Nice kings")

    assert response.status_code == 200
    assert not ChatMessage.objects.get().held


@pytest.mark.parametrize("heads_up_event", [False, True])
def test_the_rule_does_not_apply_heads_up(heads_up_event):
    fields = {"heads_up": True, "table_size": 2} if heads_up_event else {}
    tournament, _ = started([1000, 1000], **fields)
    assert in_play(tournament).status == HandStatus.PLAYING

    response = say(seated(tournament)[0], tournament, "You have aces again?")

    assert response.status_code == 200
    assert not ChatMessage.objects.get().held


def test_the_room_edits_its_list_of_words():
    tournament, _ = started([1000, 1000, 1000])
    ChatWord.objects.create(word="rivered")
    writer = seated(tournament)[0]

    assert say(writer, tournament, "You rivered me").status_code == 400
    ChatWord.objects.filter(word="kings").delete()
    assert say(writer, tournament, "kings are overrated").status_code == 200


def test_writing_too_fast_empty_or_too_long_is_refused():
    tournament, _ = started([1000, 1000, 1000])
    writer = seated(tournament)[0]

    assert say(writer, tournament, "   ").status_code == 400
    assert say(writer, tournament, "x" * 201).status_code == 400
    for n in range(RATE_MESSAGES):
        assert say(writer, tournament, f"hi {n}").status_code == 200
    too_fast = say(writer, tournament, "one more")

    assert too_fast.status_code == 400
    assert "You are writing too fast" in too_fast.text
    assert ChatMessage.objects.count() == RATE_MESSAGES


@pytest.mark.django_db(transaction=True)
def test_a_message_reaches_every_socket_watching_the_table_and_a_muted_player_s_does_not(staff):
    tournament, _ = started([1000, 1000, 1000])
    writer = seated(tournament)[0]
    player = Entry.objects.filter(table__tournament=tournament).first().player
    writer.force_login(player)
    staff_client = Client()
    staff_client.force_login(staff)
    group = f"table-{tournament.pk}-1"

    async def heard(text: str) -> list[str]:
        socket = await opened(f"{group}.en,{group}.da")
        assert socket.connected
        await sync_to_async(say)(writer, tournament, text)
        messages = await received(socket, timeout=1.0)
        await closed(socket)
        return messages

    sent = async_to_sync(heard)("Well played")
    assert sum("Well played" in text for text in sent) == 2  # both languages

    muted = staff_client.post(
        reverse("support:mute", args=[player.pk]), {"minutes": "30", "reason": "Abuse at table 1"}
    )
    assert muted.status_code == 302
    assert AuditEntry.objects.get(action="tournaments.chat.muted").actor == staff

    after = async_to_sync(heard)("You are all idiots")

    assert not any("idiots" in text for text in after)
    assert ChatMessage.objects.filter(text__contains="idiots").count() == 0
    refused = say(writer, tournament, "Still there?")
    assert refused.status_code == 400
    assert "Abuse at table 1" in refused.text


def test_staff_read_any_table_s_chat_log_with_the_held_messages(staff):
    tournament, _ = started([1000, 1000, 1000])
    writer = seated(tournament)[0]
    say(writer, tournament, "Hello")
    say(writer, tournament, "I had the flush")
    staff_client = Client()
    staff_client.force_login(staff)

    log = staff_client.get(reverse("support:chat_log"), {"tournament": tournament.pk, "table": 1})

    assert log.status_code == 200
    assert "Hello" in log.text
    assert "I had the flush" in log.text
    assert "Held back (rule 19)" in log.text


def test_players_cannot_read_chat_logs_or_mute(player):
    tournament, entries = started([1000, 1000, 1000])
    client = Client()
    client.force_login(player)

    log = client.get(reverse("support:chat_log"), {"tournament": tournament.pk, "table": 1})
    mute = client.post(reverse("support:mute", args=[entries[0].player_id]), {"minutes": "30", "reason": "x"})

    assert log.status_code == mute.status_code == 403
    assert not AuditEntry.objects.filter(action="tournaments.chat.muted").exists()


@pytest.mark.parametrize("text", ["hello\x00there", "\x00"])
def test_a_message_with_a_nul_is_refused_with_a_message_and_stores_nothing(text):
    tournament, _ = started([1000, 1000, 1000])
    writer = seated(tournament)[0]

    refused = say(writer, tournament, text)

    assert refused.status_code == 400
    assert "The text holds a character that cannot be stored" in refused.text
    assert not ChatMessage.objects.exists()
