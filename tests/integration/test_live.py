"""Live updates on the real ASGI application (config.asgi), with WebsocketCommunicator,
on Redis (production's channel layer) and in memory (the embedded default): who may
subscribe to what, and which change reaches which group, after the commit only.
Then one commit's delivery (live.delivery) as the sending loop is handed it: how many
messages, to whom, after how many reads of who is listening."""

import asyncio
import json
import logging
import time
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.cache import cache, caches
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone

from config.asgi import application
from deals.events import NegotiationChanged
from deals.services import chop_request
from live import delivery, groups, sending, throttle
from live.consumers import FORBIDDEN
from live.delivery import deliver
from live.groups import listened_key, mark_listened
from live.throttle import THROTTLE_SECONDS
from lobby import live as lobby_live
from lobby.live import CHIPS_SECONDS, tournament_publish_trailing
from lobby.tasks import tournament_publish_task
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants
from tests.integration.test_deals import final_table
from tests.integration.test_integrity import finish_with_withheld_winner
from tests.tables import act, acting, in_play, prepare, started
from tournaments.events import EntryChanged, TablesChanged, TournamentChanged
from tournaments.models import Entry, EntryStatus, Hand, HandStatus, Tournament
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import replay
from tournaments.services.clock import tournament_advance, tournament_pause
from tournaments.services.editing import tournament_clone
from tournaments.services.entries import entry_register, entry_unregister
from tournaments.services.integrity import prize_confiscate
from tournaments.services.tables import floor_hand_finished, hand_act, hand_report
from wallet.events import BalancesChanged
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
    """Let the second since the event's last live message pass (live.throttle)."""
    time.sleep(THROTTLE_SECONDS)


def heads_up_tables(count: int):
    """An event of `count` players started at tables of two, its first hands dealt; and its players."""
    now = timezone.now()
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), table_size=2, scheduled_start=now + timedelta(minutes=5)
    )
    players = entrants(tournament, count, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    return tournament, players


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
        ("table-{event}-1.en,tables-{event}.en", None, True),  # a table's page: the table and the event's clock
        ("tables-999999.en", None, False),
        ("tournament-{event}-1.en", None, False),
        ("user-{player}", "player", True),
        ("user-{player}", None, False),  # not signed in
        ("user-{other}", "player", False),  # another player's private group
        ("own-{player}.da", "player", True),  # his own part of his table pages, in Danish
        ("own-{player}.en", None, False),
        ("own-{other}.en", "player", False),  # another player's cards
        ("own-{player}.xx", "player", False),  # no such language
        ("own-{player}", "player", False),
        ("staff", "player", False),
        ("staff", "staff", True),
        ("secrets", "staff", False),
        ("", None, False),
        # Names matched whole, in ASCII digits: no trailing newline, no other script's digits.
        ("user-{player}%0A", "player", False),
        ("lobby.en%0A", None, False),
        ("tables-{event}.en%0A", None, False),
        ("user-{player_arabic}", "player", False),
        ("tournament-{event_arabic}.en", None, False),
    ],
)
def test_who_may_subscribe_to_which_group(layer, event, people, groups, who, allowed):  # noqa: PLR0917
    arabic = str.maketrans("0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669")
    names = groups.format(
        event=event.pk,
        player=people["player"].pk,
        other=people["other"].pk,
        player_arabic=quote(str(people["player"].pk).translate(arabic)),
        event_arabic=quote(str(event.pk).translate(arabic)),
    )
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


# Which change reaches which sockets


def test_a_socket_marks_its_groups_listened_and_nothing_else(layer, event):
    async def scenario():
        info = await opened(f"tournament-{event.pk}.en")
        await closed(info)

    run(scenario)
    marked = cache.get_many([listened_key(g) for g in (f"tournament-{event.pk}.en", f"tournament-{event.pk}.da")])
    assert list(marked) == [listened_key(f"tournament-{event.pk}.en")]


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

        (row,) = await received(lobby_en, timeout=1)
        assert f'<tr id="lobby-row-{event.pk}"' in row
        assert 'hx-swap-oob="true"' in row
        assert "1 / " in row  # one entrant now
        assert "Registering" in row
        (row_da,) = await received(lobby_da)
        assert "Tilmelding åben" in row_da  # rendered in Danish for the Danish lobby
        (parts,) = await received(info)
        assert f'id="entrants-{event.pk}"' in parts
        assert f'id="prizes-{event.pk}"' in parts
        assert 'id="clock"' in parts
        assert "€10" in parts  # the pool
        # Her card and her balances, in one message.
        (own,) = await received(alice_own)
        assert json.loads(own).keys() == {"refresh"}  # one message names both parts, in any order
        assert sorted(json.loads(own)["refresh"]) == sorted(
            [f"registration-{event.pk}", f"lobby-mark-{event.pk}", "balances"]
        )
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
    layer, event, monkeypatch, django_capture_on_commit_callbacks
):
    players = [funded(f"p{n}") for n in range(5)]
    monkeypatch.setattr(throttle, "THROTTLE_SECONDS", 10)  # long enough for five registrations on a busy machine
    queued = []
    monkeypatch.setattr(tournament_publish_task, "apply_async", lambda *args, **options: queued.append((args, options)))

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
        assert queued == [(((event.pk,), {}), {"countdown": 10})]  # one message at its end
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
    tournament, players = heads_up_tables(4)
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
        update, last_hands = await received(first, timeout=1)
        assert f'id="table-{tournament.pk}-1"' in update
        assert f'id="table-recent-{tournament.pk}-1"' in last_hands  # the hand that ended
        assert "in play." in update  # the next hand, dealt
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
        (row,) = await received(lobby, timeout=1)
        assert "0 / " in row
        (own_message,) = await received(own)
        assert refreshed([own_message]) == {f"registration-{event.pk}", f"lobby-mark-{event.pk}", "balances"}
        await closed(lobby, own)

    run(scenario)


def test_a_new_event_asks_every_lobby_to_fetch_its_list_again(layer, event, admin, django_capture_on_commit_callbacks):
    async def scenario():
        english, danish = await opened("lobby.en"), await opened("lobby.da")
        await committed(
            django_capture_on_commit_callbacks,
            lambda: tournament_clone(tournament=event, actor=admin, start=event.scheduled_start + timedelta(days=7)),
        )
        # Only that: the new event's row is in the list each lobby fetches.
        assert [json.loads(text) for text in await received(english, timeout=1)] == [{"reload": True}]
        assert [json.loads(text) for text in await received(danish)] == [{"reload": True}]
        await closed(english, danish)

    run(scenario)


def test_an_open_page_stays_listened_however_long_it_is_open(layer, player, monkeypatch):
    cookie, alice_own = session_cookie(player), f"user-{player.pk}"
    monkeypatch.setattr(groups, "LISTENED_SECONDS", 1)  # marks that last a second, made again every half

    async def scenario():
        own = await opened(alice_own, cookie)
        await asyncio.sleep(1.6)  # longer than a mark lasts: the open socket made it again
        assert await cache.aget(listened_key(alice_own))
        await closed(own)

    run(scenario)


# One commit's delivery: what the sending loop is handed, after how many reads


@pytest.fixture
def sent(monkeypatch):
    """What the delivery hands to the sending loop, in order: texts, and refreshes."""
    texts, refreshes = [], []
    monkeypatch.setattr(sending, "send", lambda group, text: texts.append((group, text)))
    monkeypatch.setattr(sending, "send_refresh", lambda group, names: refreshes.append((group, list(names))))
    return SimpleNamespace(texts=texts, refreshes=refreshes, groups=lambda: [group for group, _ in texts])


@pytest.fixture
def reads(monkeypatch):
    """The keys of every cache read (each a round trip to Redis), from any thread."""
    backend = type(caches["default"])
    log: list[list[str]] = []

    def counting(read):
        def counted(self, keys, *args, **kwargs):
            log.append([keys] if isinstance(keys, str) else list(keys))
            return read(self, keys, *args, **kwargs)

        return counted

    for name in ("get", "get_many", "has_key"):
        monkeypatch.setattr(backend, name, counting(getattr(backend, name)))
    return log


@pytest.fixture
def renders(monkeypatch):
    """Which of lobby.live's parts are rendered, for which event."""
    counted = []

    def counting(render):
        return lambda *args, **kwargs: counted.append(render.__name__) or render(*args, **kwargs)

    for render in (
        lobby_live.lobby_row_html,
        lobby_live.info_live_context,
        lobby_live.tournament_live_html,
        lobby_live.table_live_html,
    ):
        monkeypatch.setattr(lobby_live, render.__name__, counting(render))
    return counted


def listening(*names: str) -> None:
    """Pages are open on the groups `names` (their sockets' marks)."""
    async_to_sync(mark_listened)(names)


def live_reads(reads: list[list[str]]) -> list[list[str]]:
    """The reads of what live updates keep in the cache: listened marks, the throttle's keys."""
    return [keys for keys in reads if any(key.startswith("live:") for key in keys)]


def test_a_registration_is_one_message_per_listened_group_after_one_read(
    event, sent, reads, renders, django_capture_on_commit_callbacks
):
    alice = funded("alice")
    listening("lobby.en", "lobby.da", f"tournament-{event.pk}.en", f"tournament-{event.pk}.da", f"user-{alice.pk}")
    reads.clear()

    with django_capture_on_commit_callbacks(execute=True):
        entry_register(tournament_id=event.pk, player=alice, now=timezone.now())

    (read,) = live_reads(reads)
    assert {listened_key("lobby.en"), listened_key(f"user-{alice.pk}")} <= set(read)
    assert sorted(sent.groups()) == sorted(
        ["lobby.en", "lobby.da", f"tournament-{event.pk}.en", f"tournament-{event.pk}.da"]
    )
    ((group, names),) = sent.refreshes  # one message for the player's group
    assert (group, sorted(names)) == (
        f"user-{alice.pk}",
        sorted([f"registration-{event.pk}", f"lobby-mark-{event.pk}", "balances"]),
    )
    # Tournament Info's parts read once for both languages.
    assert sorted(renders) == ["info_live_context"] + ["lobby_row_html"] * 2 + ["tournament_live_html"] * 2


def test_nothing_is_rendered_or_sent_for_groups_nobody_listens_to(
    event, sent, reads, renders, django_capture_on_commit_callbacks
):
    alice = funded("alice")
    listening(f"tournament-{event.pk}.da")  # one Danish page of the event's Tournament Info
    reads.clear()

    with django_capture_on_commit_callbacks(execute=True):
        entry_register(tournament_id=event.pk, player=alice, now=timezone.now())

    assert len(live_reads(reads)) == 1
    assert sent.groups() == [f"tournament-{event.pk}.da"]
    assert sent.refreshes == []
    assert renders == ["info_live_context", "tournament_live_html"]


def test_a_registration_by_a_player_with_no_page_open_costs_one_cache_read(
    event, sent, reads, renders, django_capture_on_commit_callbacks
):
    bob = funded("bob")
    listening("lobby.en")
    # Another process sent within the second and queued its end-of-second message.
    cache.set(f"live:sent:tournament-{event.pk}", True, timeout=60)
    cache.set(f"live:trailing:tournament-{event.pk}", time.time() + 30, timeout=60)
    reads.clear()

    with django_capture_on_commit_callbacks(execute=True):
        entry_register(tournament_id=event.pk, player=bob, now=timezone.now())

    assert len(reads) == 1  # the listened marks and the throttle's keys, for the event, his card and his balances
    assert sent.texts == sent.refreshes == renders == []  # that message carries the change; bob has no page open

    # This process now knows the queued message carries its changes: the next commit
    # reads nothing of the event's lobby row and Tournament Info, only the player's mark
    # (and finds it unheard), with the table pages' (their players left, at a pace of
    # their own), in its one round trip.
    carol = funded("carol")
    reads.clear()
    with django_capture_on_commit_callbacks(execute=True):
        entry_register(tournament_id=event.pk, player=carol, now=timezone.now())
    assert len(reads) == 1
    assert listened_key(f"user-{carol.pk}") in reads[0]
    assert not [key for key in reads[0] if f"tournament-{event.pk}" in key]
    assert sent.texts == sent.refreshes == renders == []


def test_nothing_is_read_or_sent_when_the_change_rolls_back(event, sent, reads, django_capture_on_commit_callbacks):
    alice = funded("alice")
    listening("lobby.en", f"user-{alice.pk}")
    reads.clear()

    def registered_then_undone():
        with transaction.atomic():
            entry_register(tournament_id=event.pk, player=alice, now=timezone.now())
            raise RuntimeError("the request failed after registering")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        registered_then_undone()

    assert reads == []
    assert sent.texts == sent.refreshes == []


def test_a_players_refreshes_of_one_commit_leave_in_one_message(event, sent, reads):
    alice, bob = funded("alice"), funded("bob")
    other = TournamentFactory(blind_structure=event.blind_structure)
    listening(f"user-{alice.pk}")  # bob has no page open
    reads.clear()

    deliver(
        [
            EntryChanged(event.pk, alice.pk),
            BalancesChanged(frozenset({alice.pk, bob.pk})),
            EntryChanged(other.pk, alice.pk),
            EntryChanged(event.pk, bob.pk),
        ]
    )

    assert len(reads) == 1
    assert sent.refreshes == [
        (
            f"user-{alice.pk}",
            [
                f"registration-{event.pk}",
                f"lobby-mark-{event.pk}",
                "balances",
                f"registration-{other.pk}",
                f"lobby-mark-{other.pk}",
            ],
        )
    ]


def test_an_event_changed_twice_in_one_commit_is_sent_once_in_full(event, sent, renders):
    listening("lobby.en", f"tournament-{event.pk}.en")

    deliver([TournamentChanged(event.pk, clock_only=True), TournamentChanged(event.pk)])

    assert sent.groups() == ["lobby.en", f"tournament-{event.pk}.en"]
    assert f'id="entrants-{event.pk}"' in sent.texts[1][1]  # the whole of Tournament Info's parts, not the clock alone


def test_a_clock_change_is_sent_to_tournament_info_alone(event, sent, renders):
    listening("lobby.en", f"tournament-{event.pk}.en")

    deliver([TournamentChanged(event.pk, clock_only=True)])

    ((group, text),) = sent.texts
    assert group == f"tournament-{event.pk}.en"
    assert 'id="clock"' in text
    assert f'id="entrants-{event.pk}"' not in text


def test_a_hand_sends_each_changed_table_to_its_watchers_in_their_language(sent):
    tournament, _ = heads_up_tables(4)
    watched = {f"table-{tournament.pk}-1.en": 1, f"table-{tournament.pk}-2.en": 2, f"table-{tournament.pk}-2.da": 2}
    listening(*watched)

    deliver([TablesChanged(tournament.pk, (1, 2))])

    assert sorted(sent.groups()) == sorted([*watched, *watched])  # the hand in play, the last hands
    for group, text in sent.texts:
        assert f'{tournament.pk}-{watched[group]}" hx-swap-oob' in text
    assert "hånd #" in dict(sent.texts)[f"table-{tournament.pk}-2.da"]  # in Danish for the Danish page
    assert "Hand #" in dict(sent.texts)[f"table-{tournament.pk}-2.en"]


def test_the_event_clock_reaches_every_table_page_and_an_action_does_not_render_it(sent, django_assert_num_queries):
    tournament, _ = heads_up_tables(4)
    listening(f"table-{tournament.pk}-1.en", f"tables-{tournament.pk}.en", f"tables-{tournament.pk}.da")

    deliver([TournamentChanged(tournament.pk, clock_only=True)])

    clocks = dict(sent.texts)
    assert "Level 1: blinds" in clocks[f"tables-{tournament.pk}.en"]
    assert "4 players left" in clocks[f"tables-{tournament.pk}.en"]
    assert "Niveau 1" in clocks[f"tables-{tournament.pk}.da"]
    sent.texts.clear()
    row = Hand.objects.get(tournament=tournament, table__number=1, status=HandStatus.PLAYING)
    dealt = Entry.objects.filter(pk__in=[int(pk) for pk in row.seats.values()])
    players = tuple(dealt.values_list("player", flat=True))
    # The watched table as the action left it, in three reads: the table with its event, its seats, its hands.
    with django_assert_num_queries(3):
        deliver([TablesChanged(tournament.pk, (1,), players, in_play=True)])
    (table,) = sent.texts
    assert table[0] == f"table-{tournament.pk}-1.en"
    assert "players left" not in table[1]


def test_a_hands_chips_reach_tournament_info_at_the_end_of_their_pace_rendered_by_the_worker(
    sent, renders, monkeypatch
):
    tournament, _ = heads_up_tables(4)
    listening(f"tournament-{tournament.pk}.en", "lobby.en")
    queued = []
    monkeypatch.setattr(tournament_publish_task, "apply_async", lambda *args, **options: queued.append((args, options)))

    # A hand ended at a table node: the node renders none of the event's parts.
    deliver([TournamentChanged(tournament.pk, chips_only=True)])
    assert sent.groups() == []
    assert renders == []
    assert queued == [(((tournament.pk,), {"chips": True}), {"countdown": CHIPS_SECONDS})]
    # More hands end within the pace: the message queued carries them, nothing more is queued.
    deliver([TournamentChanged(tournament.pk, chips_only=True)])
    assert sent.groups() == []
    assert len(queued) == 1

    # A hand that put a player out meanwhile is not held back by the chips' pace: the
    # worker sends it at the end of the second; the node renders nothing.
    deliver([TournamentChanged(tournament.pk, hand=True)])
    assert renders == []
    assert queued[1:] == [(((tournament.pk,), {}), {"countdown": THROTTLE_SECONDS})]
    tournament_publish_trailing(tournament.pk)  # what the worker runs at the end of the second
    assert sorted(sent.groups()) == ["lobby.en", f"tournament-{tournament.pk}.en"]
    sent.texts.clear()

    # What the worker runs at the end of the pace (lobby.tasks): the chips as they are then.
    tournament_publish_trailing(tournament.pk, chips=True)
    assert sorted(sent.groups()) == ["lobby.en", f"tournament-{tournament.pk}.en"]
    assert f'id="entrants-{tournament.pk}"' in dict(sent.texts)[f"tournament-{tournament.pk}.en"]
    sent.texts.clear()
    # The next hand after it begins a new pace.
    deliver([TournamentChanged(tournament.pk, chips_only=True)])
    assert sent.groups() == []
    assert len(queued) == 3


def test_a_hand_that_puts_a_player_out_leaves_tournament_info_to_the_worker(
    sent, renders, monkeypatch, django_capture_on_commit_callbacks
):
    tournament, (short, aces, kings, queens) = started([300, 1000, 1000, 1000])
    listening(f"tournament-{tournament.pk}.en", "lobby.en")
    queued = []
    monkeypatch.setattr(tournament_publish_task, "apply_async", lambda *args, **options: queued.append((args, options)))
    row = in_play(tournament)
    prepare(row, {short: "7c2d", aces: "AsAh", kings: "KsKh", queens: "QsQh"}, "Jd8s6h4c3d")

    with django_capture_on_commit_callbacks(execute=True):
        while row.status == HandStatus.PLAYING:  # the short stack all in, the others call and check it down
            legal = replay(row).legal()
            if acting(row) == short and legal.max_to is not None:
                row = act(row, ActionKind.BET_RAISE, legal.max_to)
            else:
                row = act(row, ActionKind.CHECK_CALL)
        assert hand_report(hand_id=row.pk, now=timezone.now())  # what the table's node runs

    assert Entry.objects.get(pk=short.pk).status == EntryStatus.ELIMINATED
    # The node rendered none of the event's parts: the worker's end-of-second message carries them.
    assert renders == []
    assert sent.groups() == []
    assert queued == [(((tournament.pk,), {}), {"countdown": THROTTLE_SECONDS})]


def test_the_players_left_reach_every_table_page_every_few_seconds_and_a_new_level_at_once(sent):
    tournament, _ = heads_up_tables(4)
    listening(f"tables-{tournament.pk}.en")

    deliver([TournamentChanged(tournament.pk)])  # a player out: the players left changed
    assert sent.groups() == [f"tables-{tournament.pk}.en"]
    sent.texts.clear()
    deliver([TournamentChanged(tournament.pk)])  # another, within the table pages' pace: a message queued for its end
    assert sent.groups() == []
    assert cache.get(f"live:trailing:tables-{tournament.pk}") is not None
    deliver([TournamentChanged(tournament.pk, clock_only=True, clock=True)])  # a new level: at once
    assert sent.groups() == [f"tables-{tournament.pk}.en"]
    assert "Level 1: blinds" in sent.texts[0][1]


def test_an_action_sends_the_tables_watchers_only_the_seats_and_the_felt_it_changed(
    sent, client, django_capture_on_commit_callbacks
):
    tournament, _ = heads_up_tables(2)
    listening(f"table-{tournament.pk}-1.en", f"table-{tournament.pk}-1.da")
    row = Hand.objects.get(tournament=tournament, table__number=1, status=HandStatus.PLAYING)
    actor, seats = row.to_act, {int(seat) for seat in row.seats}
    player = Entry.objects.get(pk=int(row.seats[str(actor)])).player_id

    with django_capture_on_commit_callbacks(execute=True):
        row = hand_act(hand_id=row.pk, player_id=player, at=0, kind="cc", now=timezone.now()).hand

    texts = dict(sent.texts)
    assert set(texts) == {f"table-{tournament.pk}-1.en", f"table-{tournament.pk}-1.da"}
    english = texts[f"table-{tournament.pk}-1.en"]
    assert f'id="table-{tournament.pk}-1"' not in english  # not the whole table
    # Heads-up the button completes the small blind: his seat (the bet, the turn gone)
    # and the big blind's (his turn now), and the pot, each swapped in by its id.
    for seat in seats:
        assert f'id="seat-{tournament.pk}-1-{seat}" data-seat="{seat}" hx-swap-oob="true"' in english
    assert f'id="felt-{tournament.pk}-1" hx-swap-oob="true"' in english
    assert f'class="seat to-act" id="seat-{tournament.pk}-1-{row.to_act}"' in english
    assert "Bet" in english
    assert "Indsats" in texts[f"table-{tournament.pk}-1.da"]  # each language's pieces in its own words
    # The page has every part the pieces swap in.
    page = client.get(f"/tournaments/{tournament.pk}/tables/1/").content.decode()
    for seat in seats:
        assert f'id="seat-{tournament.pk}-1-{seat}"' in page
    assert f'id="felt-{tournament.pk}-1"' in page

    sent.texts.clear()
    row.refresh_from_db()
    player = Entry.objects.get(pk=int(row.seats[str(row.to_act)])).player_id
    with django_capture_on_commit_callbacks(execute=True):
        hand_act(hand_id=row.pk, player_id=player, at=1, kind="cc", now=timezone.now())  # the big blind checks
    english = dict(sent.texts)[f"table-{tournament.pk}-1.en"]
    assert english.count('hx-swap-oob="true"') >= 2  # the flop: the felt, and the seats whose bets went in


def test_an_action_adds_its_line_to_the_hands_log_on_every_watchers_page_in_his_language(
    sent, client, django_capture_on_commit_callbacks
):
    tournament, _ = heads_up_tables(2)
    listening(f"table-{tournament.pk}-1.en", f"table-{tournament.pk}-1.da")
    row = Hand.objects.get(tournament=tournament, table__number=1, status=HandStatus.PLAYING)
    entry = Entry.objects.select_related("player").get(pk=int(row.seats[str(row.to_act)]))
    log = f'hx-swap-oob="beforeend:#hand-log-{tournament.pk}-1"'
    assert f'id="hand-log-{tournament.pk}-1"' in client.get(f"/tournaments/{tournament.pk}/tables/1/").text

    with django_capture_on_commit_callbacks(execute=True):
        row = hand_act(hand_id=row.pk, player_id=entry.player_id, at=0, kind="cc", now=timezone.now()).hand

    texts = dict(sent.texts)
    english, danish = texts[f"table-{tournament.pk}-1.en"], texts[f"table-{tournament.pk}-1.da"]
    # Heads-up the button completes the small blind: a call of the difference.
    called = f"{entry.player.screen_name} calls"
    assert f"{log}><li>{called}" in english
    assert f"{log}><li>{entry.player.screen_name} caller 10" in danish
    page = client.get(f"/tournaments/{tournament.pk}/tables/1/").text
    assert f"<li>{called}" in page.split(f'id="hand-log-{tournament.pk}-1"', 1)[1]

    sent.texts.clear()
    row.refresh_from_db()
    player = Entry.objects.get(pk=int(row.seats[str(row.to_act)])).player_id
    with django_capture_on_commit_callbacks(execute=True):
        hand_act(hand_id=row.pk, player_id=player, at=1, kind="cc", now=timezone.now())  # the big blind checks
    english = dict(sent.texts)[f"table-{tournament.pk}-1.en"]
    added = english.split(log, 1)[1].split("</ol>", 1)[0]
    assert "checks</li>" in added
    assert '<li class="street"><strong>Flop</strong>' in added  # and the flop with its cards


def test_a_table_watched_in_both_languages_is_read_once_for_both_parts(sent, django_assert_num_queries):
    tournament, _ = heads_up_tables(2)
    listening(f"table-{tournament.pk}-1.en", f"table-{tournament.pk}-1.da")
    row = Hand.objects.get(tournament=tournament, table__number=1, status=HandStatus.PLAYING)
    players = tuple(
        Entry.objects.filter(pk__in=[int(pk) for pk in row.seats.values()]).values_list("player", flat=True)
    )

    # The table with its event, its seats, its hands: once, however many languages watch it.
    with django_assert_num_queries(3):
        deliver([TablesChanged(tournament.pk, (1,), players, in_play=True)])
    with django_assert_num_queries(3):  # a hand's end: the last hands too, read with the same query
        deliver([TablesChanged(tournament.pk, (1,), players)])

    texts = dict(sent.texts)
    assert "Hand #" in texts[f"table-{tournament.pk}-1.en"]
    assert "hånd #" in texts[f"table-{tournament.pk}-1.da"]
    assert len(sent.texts) == 6  # each language: the action's part; then the hand's end and the last hands


def test_an_action_sends_the_hand_in_play_and_the_hands_end_the_last_hands_too(sent):
    tournament, _ = heads_up_tables(2)
    listening(f"table-{tournament.pk}-1.en")

    deliver([TablesChanged(tournament.pk, (1,), (), in_play=True)])
    (action,) = sent.texts
    assert f'id="table-{tournament.pk}-1"' in action[1]
    assert "deck commitment" not in action[1]
    sent.texts.clear()

    deliver([TablesChanged(tournament.pk, (1,))])
    parts = [text for _, text in sent.texts]
    assert len(parts) == 2
    assert f'id="table-{tournament.pk}-1"' in parts[0]
    assert f'id="table-recent-{tournament.pk}-1"' in parts[1]
    assert "deck commitment" in parts[1]


def test_a_hand_without_anyone_out_does_not_send_every_table_the_events_clock(sent, django_capture_on_commit_callbacks):
    tournament, _ = heads_up_tables(4)
    listening(f"tournament-{tournament.pk}.en", f"tables-{tournament.pk}.en")
    seated = Entry.objects.filter(table__tournament=tournament, table__number=1)
    stacks = dict(seated.values_list("pk", "chips"))

    def groups_sent(stacks) -> set[str]:
        second_over(tournament)
        sent.texts.clear()
        with django_capture_on_commit_callbacks(execute=True):
            floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=stacks, now=tournament.scheduled_start)
        return {group for group, _ in sent.texts}

    # Chips moved, nobody out: Tournament Info's chip counts change at the end of the
    # second (the worker sends them), and nothing of what every table shows.
    loser, winner = stacks
    moved = {loser: stacks[loser] - 100, winner: stacks[winner] + 100}
    assert groups_sent(moved) == set()
    # A player out: every table page hears how many are left.
    busted = {loser: 0, winner: stacks[loser] + stacks[winner]}
    assert f"tables-{tournament.pk}.en" in groups_sent(busted)


def test_a_tables_players_are_sent_their_own_seat_only_while_the_table_is_watched(sent, django_assert_num_queries):
    tournament, players = heads_up_tables(4)
    # Each has his table page open in Danish, not on table 1 yet.
    listening(*(f"own-{player.pk}.da" for player in players))

    with django_assert_num_queries(0):  # nobody to tell, so nobody is looked up
        deliver([TablesChanged(tournament.pk, (1,))])
    assert sent.texts == sent.refreshes == []

    listening(f"table-{tournament.pk}-1.da")
    deliver([TablesChanged(tournament.pk, (1,))])
    at_table = Entry.objects.filter(tournament=tournament, table__number=1).values_list("player_id", flat=True)
    own = [(group, text) for group, text in sent.texts if group.startswith("own-")]
    assert sorted(group for group, _ in own) == sorted(f"own-{pk}.da" for pk in at_table)
    assert all(f'id="own-seat-{tournament.pk}"' in text and "Din stak" in text for _, text in own)
    assert sent.refreshes == []


def test_a_negotiation_tells_its_listening_players_and_staff_what_to_fetch_again(staff, sent, reads):
    tournament, players = final_table(3)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=timezone.now())
    listening(f"user-{players[1].pk}", "staff")  # the others have no page open
    sent.refreshes.clear()
    reads.clear()

    deliver([NegotiationChanged(negotiation.pk)])

    parts = [f"deal-{negotiation.pk}", f"deal-card-{tournament.pk}"]
    assert sorted(sent.refreshes) == sorted([(f"user-{players[1].pk}", parts), ("staff", ["tickets", *parts])])
    assert len(reads) == 1


def test_a_publisher_that_fails_costs_the_others_nothing(event, sent, monkeypatch, caplog):
    def failing(events):
        raise LookupError("a publisher's bug")

    monkeypatch.setattr(delivery, "_publishers", [failing, lobby_live.publish])
    listening("lobby.en")

    with caplog.at_level(logging.ERROR, logger="live.delivery"):
        deliver([TournamentChanged(event.pk)])

    assert sent.groups() == ["lobby.en"]
    assert "Live updates for 1 events were not published" in caplog.text


def test_a_committed_change_stands_when_its_live_updates_cannot_be_sent(
    event, sent, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def down(self, keys, *args, **kwargs):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(type(caches["default"]), "get_many", down)
    alice = funded("alice")

    with caplog.at_level(logging.ERROR, logger="live.delivery"), django_capture_on_commit_callbacks(execute=True):
        entry_register(tournament_id=event.pk, player=alice, now=timezone.now())

    assert Tournament.objects.get(pk=event.pk).entries_count == 1
    assert sent.texts == sent.refreshes == []
    assert "live messages were not sent" in caplog.text


def test_a_confiscated_prize_reaches_tournament_info_as_forfeited(sent):
    tournament, winner, staff = finish_with_withheld_winner()
    listening(f"tournament-{tournament.pk}.en")
    second_over(tournament)

    prize_confiscate(entry_id=winner.pk, actor=staff, reason="Chip dumping confirmed", now=timezone.now())

    parts = [text for group, text in sent.texts if group == f"tournament-{tournament.pk}.en"]
    assert any("Forfeited after the room" in text for text in parts)
