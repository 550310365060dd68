"""Who is connected at a table, and Disconnect Extra Time (rule 18): a seated
player's socket on his table's group shows him connected; a person whose time runs
out while he is not gets the event's extra time once, in real-money events from its
stage on, and the table counts it down."""

import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import Client

from audit.models import AuditEntry
from live import presence
from tests.integration.test_live import closed, opened, received, session_cookie
from tests.tables import act, in_play, started
from tournaments.models import Entry, EntryKind, ExtraTimeStage, Hand, HandStatus
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import entry_of
from tournaments.services.tables import hand_due, hand_report
from wallet.models import Currency

EXTRA = 60


def table_page(tournament) -> str:
    return Client().get(f"/tournaments/{tournament.pk}/tables/1/").text


def to_act(row: Hand) -> Entry:
    return Entry.objects.select_related("player").get(pk=entry_of(row, row.to_act))


def time_out(row: Hand) -> Hand:
    """The worker at the turn's deadline."""
    hand_due(hand_id=row.pk, at=len(row.actions), now=row.deadline_at)
    row.refresh_from_db()
    return row


@pytest.mark.django_db(transaction=True)
def test_a_seated_player_s_socket_at_his_table_shows_him_connected_and_closing_it_disconnected():
    tournament, entries = started([1000, 1000, 1000])
    player = entries[0].player
    group = f"table-{tournament.pk}-1.en"
    assert table_page(tournament).count("Disconnected") == 3  # nobody has the table open

    cookie = session_cookie(player)

    async def connected_then_closed() -> tuple[str, str]:
        socket = await opened(group, cookie)
        watcher = await opened(group)  # a spectator's socket marks nobody
        assert socket.connected
        assert watcher.connected
        while_open = await sync_to_async(table_page)(tournament)
        await closed(socket, watcher)
        return while_open, await sync_to_async(table_page)(tournament)

    while_open, after = async_to_sync(connected_then_closed)()

    assert while_open.count("Disconnected") == 2
    assert after.count("Disconnected") == 3


@pytest.mark.django_db(transaction=True)
def test_a_player_with_the_table_open_twice_stays_connected_until_he_closes_both():
    tournament, entries = started([1000, 1000, 1000])
    group = f"table-{tournament.pk}-1.en"
    cookie = session_cookie(entries[0].player)

    async def one_closed_then_both() -> tuple[str, str]:
        first = await opened(group, cookie)
        second = await opened(group, cookie)
        await closed(first)
        one_left = await sync_to_async(table_page)(tournament)
        await closed(second)
        return one_left, await sync_to_async(table_page)(tournament)

    one_left, none_left = async_to_sync(one_closed_then_both)()

    assert one_left.count("Disconnected") == 2
    assert none_left.count("Disconnected") == 3


def test_a_page_whose_ws_process_died_stops_counting_once_its_mark_lapses(monkeypatch):
    player = 10**9  # no such user: presence is the cache's alone
    monkeypatch.setattr(presence, "PRESENT_SECONDS", 1)
    async_to_sync(presence.mark_present)(player, "lost")  # never renewed, never closed
    monkeypatch.setattr(presence, "PRESENT_SECONDS", 30)
    async_to_sync(presence.mark_present)(player, "open")
    assert presence.connected([player]) == {player}

    time.sleep(1.1)
    async_to_sync(presence.mark_absent)(player, "open")

    assert presence.connected([player]) == set()


@pytest.mark.django_db
def test_a_disconnected_player_gets_the_extra_time_once_and_then_times_out():
    tournament, _ = started(
        [1000, 1000, 1000], disconnect_extra_seconds=EXTRA, disconnect_extra_from=ExtraTimeStage.START
    )
    row = in_play(tournament)
    late = to_act(row)
    deadline = row.deadline_at

    row = time_out(row)

    assert row.actions == []  # not folded
    assert row.extra_time
    assert row.deadline_at == deadline + timedelta(seconds=EXTRA)
    assert "Disconnect extra time" in table_page(tournament)
    assert AuditEntry.objects.get(action="tournaments.hand.disconnect_extra_time").data["seconds"] == EXTRA
    late.refresh_from_db()
    assert late.disconnect_extra_used

    row = time_out(row)  # the extra time runs out too

    assert len(row.actions) == 1
    assert not row.extra_time
    # Once per tournament: in the next hand, back in, his time-out acts at once.
    while row.status == HandStatus.PLAYING:
        row = time_out(row)
    assert hand_report(hand_id=row.pk, now=row.ended_at)
    Entry.objects.filter(tournament=tournament).update(sitting_out=False)
    row = in_play(tournament)
    while to_act(row).pk != late.pk:
        row = act(row, ActionKind.CHECK_CALL)
    before = len(row.actions)
    row = time_out(row)
    assert len(row.actions) == before + 1
    assert not row.extra_time


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields",
    [
        {"disconnect_extra_seconds": 0},  # the event gives none
        {"entry_kind": EntryKind.TMONEY, "currency": Currency.TMONEY},  # not a real-money event
        {"disconnect_extra_from": ExtraTimeStage.IN_THE_MONEY},  # three players left, fewer paid
    ],
)
def test_no_extra_time_when_the_event_gives_none_here(fields):
    fields = {"disconnect_extra_seconds": EXTRA, "disconnect_extra_from": ExtraTimeStage.START} | fields
    tournament, _ = started([1000, 1000, 1000], **fields)
    row = in_play(tournament)

    row = time_out(row)

    assert len(row.actions) == 1
    assert not AuditEntry.objects.filter(action="tournaments.hand.disconnect_extra_time").exists()


@pytest.mark.django_db(transaction=True)
def test_a_connected_player_who_runs_out_of_time_gets_no_extra_time():
    tournament, _ = started(
        [1000, 1000, 1000], disconnect_extra_seconds=EXTRA, disconnect_extra_from=ExtraTimeStage.START
    )
    row = in_play(tournament)
    cookie = session_cookie(to_act(row).player)

    async def timed_out_while_connected() -> Hand:
        socket = await opened(f"table-{tournament.pk}-1.en", cookie)
        assert socket.connected
        result = await sync_to_async(time_out)(row)
        await closed(socket)
        return result

    row = async_to_sync(timed_out_while_connected)()

    assert len(row.actions) == 1
    assert not row.extra_time


@pytest.mark.django_db(transaction=True)
def test_a_player_on_my_tables_shows_connected_at_each_of_his_tables_at_once():
    first, entries = started([1000, 1000, 1000])
    second, others = started([1000, 1000, 1000])
    player = entries[0].player
    Entry.objects.filter(pk=others[0].pk).update(player=player)  # seated in both events
    groups = [f"table-{event.pk}-1.en" for event in (first, second)]
    cookie = session_cookie(player)

    async def watched_while_he_opens_my_tables() -> tuple[list[str], str]:
        watcher = await opened(groups[1])  # someone watching his second table
        socket = await opened(",".join(groups), cookie)  # My tables' socket
        heard = await received(watcher)
        page = await sync_to_async(table_page)(second)
        await closed(socket, watcher)
        return heard, page

    heard, page = async_to_sync(watched_while_he_opens_my_tables)()

    seat = next(int(number) for number, pk in in_play(second).seats.items() if pk == others[0].pk)
    piece = f'id="seat-{second.pk}-1-{seat}"'
    told = [text for text in heard if piece in text]
    assert told  # the second table was told at once, not at its next change
    assert "Disconnected" not in told[-1].split(piece)[1].split("</li>")[0]
    assert page.count("Disconnected") == 2
