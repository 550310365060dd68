"""Privacy at the table (rules 14, 15): a player's hole cards go to him alone, in his
own part of the table page, sent to his own group or fetched by his page. No message to a shared
group (the table's, Tournament Info's, the lobby's, in every language) and no page a
spectator or another player sees holds a card that was not shown down; the cards
shown down at the showdown reach everybody.

A hand is played through the services on a prepared deck, with sockets open on the
real ASGI application and channel layer: a spectator's on every shared group, and
each player's on his own groups."""

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import Client

from lobby.templatetags.poker import card
from tests.decks import deck_for
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, registered
from tests.integration.test_live import closed, opened, received, session_cookie
from tournaments.models import Entry, Hand, HandStatus
from tournaments.selectors.replays import entry_of, replay
from tournaments.services import hands as hands_service
from tournaments.services.clock import tournament_advance
from tournaments.services.tables import hand_act

pytestmark = pytest.mark.django_db(transaction=True)

# By index in the order of action: 0 is the first seat after the button (the small
# blind three-handed), 2 the button, who acts first before the flop.
WINNER, LOSER, FOLDER = ("As", "Ah"), ("Kc", "Kd"), ("Qs", "Qh")
BOARD = ("2c", "7d", "9h", "Js", "3s")
EVERY_HOLE = frozenset({*WINNER, *LOSER, *FOLDER})
SHOWN = frozenset({*WINNER, *LOSER})
LIVE = 10  # seconds: a live message's deadline, on a busy machine


def shown_in(text: str) -> set[str]:
    """Which hole cards of the hand `text` shows, written as the pages write cards (A♠)."""
    return {code for code in EVERY_HOLE if card(code) in text}


async def table_messages(socket, part: str) -> list[str]:
    """What the socket hears until the table has come in both languages (the whole
    table, or, while its hand goes on, the seats and the felt that changed), and then
    until it is quiet."""
    _, tournament, number = part.split("-")
    table = (f'id="{part}"', f'id="seat-{tournament}-{number}-', f'id="felt-{tournament}-{number}"')
    texts: list[str] = []
    while sum(any(marker in text for marker in table) for text in texts) < 2:
        texts.append(await socket.receive_from(timeout=LIVE))
    return texts + await received(socket)


@pytest.fixture
def table_of_three(monkeypatch):
    """Alice, Bob and Carol, registered for an event at one three-seat table that has
    not started; every hand is dealt from the prepared deck."""
    deck = deck_for(["".join(WINNER), "".join(LOSER), "".join(FOLDER)], "".join(BOARD))
    monkeypatch.setattr(hands_service, "new_deck", lambda: deck)
    tournament = TournamentFactory(blind_structure=BlindStructureFactory(), table_size=3, break_policy="none")
    people = [UserFactory(username=name) for name in ("alice", "bob", "carol")]
    registered(tournament, *people)
    return tournament, people


def test_unshown_hole_cards_reach_their_owner_alone_and_the_showdown_reaches_everybody(table_of_three):
    tournament, people = table_of_three
    page = f"/tournaments/{tournament.pk}/tables/1/"
    part = f"table-{tournament.pk}-1"
    spectator, clients = Client(), {person.pk: Client() for person in people}
    for person in people:
        clients[person.pk].force_login(person)
    cookies = {person.pk: session_cookie(person) for person in people}
    holes: dict[int, frozenset[str]] = {}  # by player

    def start() -> Hand:
        tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
        row = Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING)
        for index, seat in enumerate(replay(row).seats):
            holes[Entry.objects.get(pk=entry_of(row, seat)).player_id] = frozenset((WINNER, LOSER, FOLDER)[index])
        return row

    def act(row: Hand, kind: str) -> Hand:
        player = Entry.objects.get(pk=entry_of(row, row.to_act)).player_id
        now = tournament.scheduled_start
        return hand_act(hand_id=row.pk, player_id=player, at=len(row.actions), kind=kind, now=now).hand

    def pages_show(shown: frozenset[str]) -> None:
        """A spectator's table page shows the cards shown down; each player's, his own
        cards too, and his own part his own alone; nobody's, anyone else's."""
        assert shown_in(spectator.get(page).content.decode()) == shown
        for player, client in clients.items():
            assert shown_in(client.get(page).content.decode()) == holes[player] | shown
            assert shown_in(client.get(f"{page}me/").content.decode()) == holes[player]

    async def scenario() -> tuple[list[list[str]], list[list[str]]]:
        watching = await opened(
            ",".join(
                f"{group}.{language}"
                for group in ("lobby", f"tournament-{tournament.pk}", part)
                for language in ("en", "da")
            )
        )
        own = [await opened(f"user-{player},own-{player}.en", cookie) for player, cookie in cookies.items()]
        assert watching.connected
        assert all(socket.connected for socket in own)

        async def heard() -> list[list[str]]:
            return [await table_messages(watching, part), *await asyncio.gather(*(received(s) for s in own))]

        row = await sync_to_async(start)()
        steps = [await heard()]
        await sync_to_async(pages_show)(frozenset())
        row = await sync_to_async(act)(row, "f")  # the button acts first: the prepared deck's folder
        steps.append(await heard())
        while (row := await sync_to_async(act)(row, "cc")).status == HandStatus.PLAYING:
            steps.append(await heard())
            await sync_to_async(pages_show)(frozenset())
        showdown = await heard()
        await closed(watching, *own)
        return steps, showdown

    steps, showdown = async_to_sync(scenario)()

    # While the hand was played, the table's watchers heard of every action in every
    # language (the deal, the fold, the checks and calls before the last), and not one
    # hole card; each player's own groups, his own part with his own cards, and never
    # anyone else's.
    assert len(steps) == 9
    assert all(shown_in(text) == set() for step in steps for text in step[0])
    for mine, player in enumerate(clients, start=1):
        heard = [text for step in steps for text in step[mine]]
        assert all(shown_in(text) <= holes[player] for text in heard)
        assert any(f'id="own-seat-{tournament.pk}"' in text and shown_in(text) == holes[player] for text in heard)
    # The showdown: both hands shown to everybody watching, the folded one to nobody;
    # each player's own group, his own cards alone.
    assert [shown_in(text) for text in showdown[0] if f'id="{part}"' in text] == [SHOWN, SHOWN]
    for mine, player in enumerate(clients, start=1):
        assert all(shown_in(text) <= holes[player] for text in showdown[mine])
    pages_show(SHOWN)

    # The hand's page and its histories: the folded hand stays hidden but from its owner.
    row = Hand.objects.get(tournament=tournament, number=1)
    folder = next(player for player, cards in holes.items() if cards == set(FOLDER))
    hand_page = f"/tournaments/{tournament.pk}/hands/{row.pk}/"
    assert shown_in(spectator.get(hand_page).content.decode()) == SHOWN
    for player, client in clients.items():
        assert shown_in(client.get(hand_page).content.decode()) == holes[player] | SHOWN
    # Nor in the deck's proof, where cards are written as codes ("Qs").
    for client in [spectator, *(client for player, client in clients.items() if player != folder)]:
        proof = client.get(hand_page).content.decode()
        assert "Verified" in proof
        assert not any(f"<code>{code}</code>" in proof for code in FOLDER)
        assert all(f"<code>{code}</code>" in proof for code in SHOWN | set(BOARD))
    assert all(f"<code>{code}</code>" in clients[folder].get(hand_page).content.decode() for code in FOLDER)
    folded = "".join(FOLDER)
    for client in [spectator, *(client for player, client in clients.items() if player != folder)]:
        for history in (f"{hand_page}?format=phh", f"{page}hands.phh"):
            text = client.get(history).content.decode()
            assert "????" in text
            assert folded not in text
    assert folded in clients[folder].get(f"/tournaments/{tournament.pk}/my-hands.phh").content.decode()
