"""Live updates on the real ASGI application (config.asgi), with WebsocketCommunicator,
on Redis (production's channel layer) and in memory (the embedded default): who may
subscribe to what, and which change reaches which group, after the commit only."""

import asyncio
import json
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone

from config.asgi import application
from lobby.live import THROTTLE_SECONDS, tournament_publish_trailing
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants
from tournaments.consumers import FORBIDDEN
from tournaments.models import Entry, Tournament
from tournaments.services.clock import tournament_advance, tournament_pause
from tournaments.services.editing import tournament_clone
from tournaments.services.entries import entry_register, entry_unregister
from tournaments.services.floor import floor_hand_finished
from wallet.services import deposit_create

# Committed for real: the consumer reads the session and the events on connections of
# its own (channels' database_sync_to_async closes a connection inside a test's transaction).
pytestmark = pytest.mark.django_db(transaction=True)

LAYERS = {
    "redis": settings.CHANNEL_LAYERS["default"],
    "memory": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
}
QUIET = 0.3  # seconds to wait to be sure nothing comes


@pytest.fixture(params=["redis", "memory"])
def layer(request):
    with override_settings(CHANNEL_LAYERS={"default": LAYERS[request.param]}):
        channel_layers.backends.clear()
        yield request.param
    channel_layers.backends.clear()


@pytest.fixture
def event(transactional_db):
    return TournamentFactory(blind_structure=BlindStructureFactory(), name="Evening Freezeout", buy_in=1000, fee=100)


@pytest.fixture
def people(player, other_player, staff):
    return {"player": player, "other": other_player, "staff": staff}


def second_over(event) -> None:
    """Let the second since the event's last live message pass (lobby.live's throttle)."""
    time.sleep(THROTTLE_SECONDS)


def funded(username: str):
    player = UserFactory(username=username)
    deposit_create(user=player, currency="EUR", amount=5_000, idempotency_key=f"fund-{username}")
    return player


def session_cookie(user) -> bytes:
    """The cookie of a new session of `user`'s, as their browser sends it."""
    client = Client()  # one each: a second login on one client would end the first session
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def opened(groups: str, cookie: bytes = b"") -> WebsocketCommunicator:
    """A browser's live socket (connected or refused: see .connected, .code)."""
    headers = [(b"origin", b"http://localhost")] + ([(b"cookie", cookie)] if cookie else [])
    socket = WebsocketCommunicator(application, f"/ws/live/?groups={groups}", headers=headers)
    socket.connected, socket.code = await socket.connect()
    return socket


async def received(socket: WebsocketCommunicator, timeout: float = QUIET) -> list[str]:
    """Every message that arrives until none has for `timeout`."""
    messages = []
    # receive_nothing, not a timed-out receive_from: that would end the application.
    while not await socket.receive_nothing(timeout):
        messages.append(await socket.receive_from())
    return messages


def refreshed(messages: list[str]) -> set[str]:
    """What a player's own socket was told to fetch again."""
    return {name for text in messages for name in json.loads(text)["refresh"]}


async def closed(*sockets: WebsocketCommunicator) -> None:
    for socket in sockets:
        if socket.connected:
            await socket.disconnect()


async def committed(django_capture_on_commit_callbacks, action):
    """Run `action` as a committed transaction: its after-commit callbacks (the live
    messages) run at the end, as in production."""

    def in_transaction():
        with django_capture_on_commit_callbacks(execute=True):
            return action()

    return await sync_to_async(in_transaction)()


def run(scenario) -> None:
    """Run an async scenario from a synchronous test: one event loop for all its
    sockets, with the database calls (sync_to_async) on the test's own connection."""
    async_to_sync(scenario)()


# Who may subscribe to what


@pytest.mark.parametrize(
    ("groups", "who", "allowed"),
    [
        ("lobby.en", None, True),
        ("lobby.da", "player", True),
        ("lobby.xx", None, False),  # no such language
        ("tournament-{event}.en", None, True),
        ("tournament-999999.en", None, False),  # no such event
        ("table-{event}-1.en", None, True),  # a table anyone may watch
        ("table-999999-1.en", None, False),
        ("tournament-{event}-1.en", None, False),
        ("user-{player}", "player", True),
        ("user-{player}", None, False),  # not signed in
        ("user-{other}", "player", False),  # another player's private group
        ("staff", "player", False),
        ("staff", "staff", True),
        ("secrets", "staff", False),
        ("", None, False),
    ],
)
def test_who_may_subscribe_to_which_group(layer, event, people, groups, who, allowed):  # noqa: PLR0917
    names = groups.format(event=event.pk, player=people["player"].pk, other=people["other"].pk)
    cookie = session_cookie(people[who]) if who else b""

    async def scenario():
        socket = await opened(names, cookie)
        assert socket.connected is allowed
        if not allowed:
            assert socket.code == FORBIDDEN  # refused at the handshake: the server answers 403
        await closed(socket)

    run(scenario)


def test_one_refused_group_refuses_the_whole_socket(layer, player, other_player):
    cookie = session_cookie(player)

    async def scenario():
        socket = await opened(f"lobby.en,user-{player.pk},user-{other_player.pk}", cookie)
        assert not socket.connected

    run(scenario)


def test_a_socket_from_another_site_is_refused(layer):
    async def scenario():
        socket = WebsocketCommunicator(
            application, "/ws/live/?groups=lobby.en", headers=[(b"origin", b"https://evil.example")]
        )
        connected, _ = await socket.connect()
        assert not connected

    run(scenario)


# Which change reaches which group


def test_nothing_is_rendered_for_a_group_nobody_joined(layer, event, django_capture_on_commit_callbacks):
    from tournaments.consumers import listened

    alice = funded("alice")

    async def scenario():
        info = await opened(f"tournament-{event.pk}.en")
        await committed(
            django_capture_on_commit_callbacks,
            lambda: entry_register(tournament_id=event.pk, player=alice, now=timezone.now()),
        )
        assert await received(info, timeout=1)
        await closed(info)

    run(scenario)
    assert listened([f"tournament-{event.pk}.en", f"tournament-{event.pk}.da", "lobby.en"]) == {
        f"tournament-{event.pk}.en"
    }


def test_a_registration_updates_lobby_and_info_in_every_language_and_tells_only_the_player(
    layer, event, django_capture_on_commit_callbacks
):
    alice, bob = funded("alice"), funded("bob")
    other = TournamentFactory(blind_structure=event.blind_structure, name="Other")
    alice_cookie, bob_cookie = session_cookie(alice), session_cookie(bob)

    async def scenario():
        lobby_en, lobby_da = await opened("lobby.en"), await opened("lobby.da")
        info, other_info = await opened(f"tournament-{event.pk}.en"), await opened(f"tournament-{other.pk}.en")
        alice_own, bob_own = await opened(f"user-{alice.pk}", alice_cookie), await opened(f"user-{bob.pk}", bob_cookie)

        await committed(
            django_capture_on_commit_callbacks,
            lambda: entry_register(tournament_id=event.pk, player=alice, now=timezone.now()),
        )

        row = await lobby_en.receive_from(3)
        assert f'<tr id="lobby-row-{event.pk}"' in row
        assert 'hx-swap-oob="true"' in row
        assert "1 / " in row  # one entrant now
        assert "Registering" in row
        assert "Tilmelding åben" in await lobby_da.receive_from(3)  # rendered in Danish for the Danish lobby
        parts = await info.receive_from(3)
        assert f'id="entrants-{event.pk}"' in parts
        assert f'id="prizes-{event.pk}"' in parts
        assert 'id="clock"' in parts
        assert "€10" in parts  # the pool
        assert refreshed(await received(alice_own, timeout=1)) == {f"registration-{event.pk}", "balances"}
        assert await received(bob_own) == []  # nothing private goes to anyone else
        assert await received(other_info) == []
        await closed(lobby_en, lobby_da, info, other_info, alice_own, bob_own)

    run(scenario)


def test_nothing_is_sent_when_the_change_rolls_back(layer, event, django_capture_on_commit_callbacks):
    alice = funded("alice")
    cookie = session_cookie(alice)

    def registered_then_undone():
        with transaction.atomic():
            entry_register(tournament_id=event.pk, player=alice, now=timezone.now())
            raise RuntimeError("the request failed after registering")

    async def scenario():
        lobby, own = await opened("lobby.en"), await opened(f"user-{alice.pk}", cookie)
        with pytest.raises(RuntimeError):
            await committed(django_capture_on_commit_callbacks, registered_then_undone)
        assert await received(lobby) == []
        assert await received(own) == []
        await closed(lobby, own)

    run(scenario)
    assert Tournament.objects.get(pk=event.pk).entries_count == 0


def test_a_storm_is_one_message_a_second_and_the_last_shows_the_final_state(
    layer, event, django_capture_on_commit_callbacks
):
    players = [funded(f"p{n}") for n in range(5)]

    async def scenario():
        lobby = await opened("lobby.en")
        for player in players:
            await committed(
                django_capture_on_commit_callbacks,
                lambda player=player: entry_register(tournament_id=event.pk, player=player, now=timezone.now()),
            )
        first = await received(lobby)
        assert len(first) == 1  # the first registration's; the others wait for the second to end
        assert "1 / " in first[0]
        # What lobby.tasks runs at the end of the second:
        await sync_to_async(tournament_publish_trailing)(event.pk)
        (last,) = await received(lobby)
        assert "5 / " in last
        await closed(lobby)

    run(scenario)


def test_the_clock_and_a_pause_reach_tournament_info(layer, event, staff, django_capture_on_commit_callbacks):
    for player in (funded("alice"), funded("bob")):
        entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    Tournament.objects.filter(pk=event.pk).update(scheduled_start=timezone.now() - timedelta(seconds=1))
    second_over(event)

    async def scenario():
        info = await opened(f"tournament-{event.pk}.en")
        await committed(
            django_capture_on_commit_callbacks, lambda: tournament_advance(tournament_id=event.pk, now=timezone.now())
        )
        started = await info.receive_from(3)
        assert "Late registration" in started
        assert "Level 1" in started
        assert "data-countdown" in started
        await sync_to_async(second_over)(event)
        await committed(
            django_capture_on_commit_callbacks,
            lambda: tournament_pause(tournament_id=event.pk, actor=staff, reason="Deal talks", now=timezone.now()),
        )
        paused = await info.receive_from(3)
        assert "Paused" in paused
        assert "Deal talks" in paused
        await closed(info)

    run(scenario)


def test_a_finished_hand_reaches_its_tables_watchers_only(layer, django_capture_on_commit_callbacks):
    now = timezone.now()
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), table_size=2, scheduled_start=now + timedelta(minutes=5)
    )
    players = entrants(tournament, 4, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    seated = Entry.objects.filter(table__tournament=tournament, table__number=1)
    stacks = dict(seated.values_list("pk", "chips"))
    names = {player.screen_name for player in players if seated.filter(player=player).exists()}

    async def scenario():
        first = await opened(f"table-{tournament.pk}-1.en")
        second = await opened(f"table-{tournament.pk}-2.en")
        await committed(
            django_capture_on_commit_callbacks,
            lambda: floor_hand_finished(
                tournament_id=tournament.pk, table=1, stacks=stacks, now=tournament.scheduled_start
            ),
        )
        (update,) = await received(first, timeout=1)
        assert f'id="table-{tournament.pk}-1"' in update
        assert "Hand 2 in play" in update
        assert all(name in update for name in names)
        assert await received(second) == []  # the other table did not change
        await closed(first, second)

    run(scenario)


def test_unregistering_tells_the_player_and_the_lobby(layer, event, django_capture_on_commit_callbacks):
    alice = funded("alice")
    entry_register(tournament_id=event.pk, player=alice, now=timezone.now())
    second_over(event)
    cookie = session_cookie(alice)

    async def scenario():
        lobby, own = await opened("lobby.en"), await opened(f"user-{alice.pk}", cookie)
        await committed(
            django_capture_on_commit_callbacks,
            lambda: entry_unregister(tournament_id=event.pk, player=alice, now=timezone.now()),
        )
        assert "0 / " in await lobby.receive_from(3)
        assert f"registration-{event.pk}" in refreshed(await received(own, timeout=1))
        await closed(lobby, own)

    run(scenario)


def test_a_new_event_asks_every_lobby_to_fetch_its_list_again(layer, event, admin, django_capture_on_commit_callbacks):
    async def scenario():
        english, danish = await opened("lobby.en"), await opened("lobby.da")
        await committed(
            django_capture_on_commit_callbacks,
            lambda: tournament_clone(tournament=event, actor=admin, start=event.scheduled_start + timedelta(days=7)),
        )
        assert json.loads(await english.receive_from(3)) == {"reload": True}
        assert json.loads(await danish.receive_from(3)) == {"reload": True}
        await closed(english, danish)

    run(scenario)


def test_a_player_with_no_page_open_is_sent_nothing_and_an_open_page_stays_listened(
    layer, event, monkeypatch, django_capture_on_commit_callbacks
):
    from tournaments import consumers

    alice, bob = funded("alice"), funded("bob")
    cookie = session_cookie(alice)
    sent = []
    monkeypatch.setattr(consumers, "_refreshes", {})  # never sent here: this test's own
    monkeypatch.setattr(consumers, "_wake", lambda: sent.append(dict(consumers._refreshes)))
    monkeypatch.setattr(consumers, "LISTENED_SECONDS", 1)  # marks that last a second, made again every half

    async def scenario():
        own = await opened(f"user-{alice.pk}", cookie)
        await asyncio.sleep(1.6)  # longer than a mark lasts: the open socket made it again
        for player in (alice, bob):
            await committed(
                django_capture_on_commit_callbacks,
                lambda player=player: entry_register(tournament_id=event.pk, player=player, now=timezone.now()),
            )
        await closed(own)

    run(scenario)
    asked = {group for refreshes in sent for group in refreshes}
    assert asked == {f"user-{alice.pk}"}  # bob, with no page open, costs no message
