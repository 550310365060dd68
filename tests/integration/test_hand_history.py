"""A player's hand history and the replayer on a hand's page (issue 15): his hands
alone, newest first and a page at a time, rolled-back hands marked; and neither the
page nor the replayer's data holds a hole card that was not his or shown down."""

import importlib
import json
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from lobby.templatetags.poker import card
from tests.factories import UserFactory
from tests.tables import act, acting, in_play, prepare, started
from tournaments.models import Entry, Hand, HandSeat, HandStatus
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import replay
from tournaments.services.seats import entry_transfer
from tournaments.services.tables import hand_report, hands_roll_back

pytestmark = pytest.mark.django_db


def fold_round(row: Hand) -> Hand:
    """Everyone folds to the big blind; the floor has the result and deals again."""
    while row.status == HandStatus.PLAYING:
        row = act(row, ActionKind.FOLD)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    return row


def showdown(row: Hand, folder) -> Hand:
    """`folder` folds; the other two go all in and show down."""
    while row.status == HandStatus.PLAYING:
        if acting(row).pk == folder.pk:
            row = act(row, ActionKind.FOLD)
            continue
        hand = replay(row)
        legal = hand.legal()
        if legal.max_to is not None and legal.max_to > legal.call + hand.bet(legal.seat):
            row = act(row, ActionKind.BET_RAISE, legal.max_to)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    return row


def shown_down():
    """Alice's aces beat Bob's kings at a showdown; Carol folded her queens."""
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    row = in_play(tournament)
    prepare(row, {alice: "AsAh", bob: "KsKh", carol: "QsQh"}, "2c7d9hJs3d")
    return tournament, (alice, bob, carol), showdown(row, folder=carol)


def replayer_data(text: str) -> dict:
    found = re.search(r'<script id="replayer-data" type="application/json">(.*?)</script>', text, re.S)
    assert found, "no replayer on the page"
    return json.loads(found.group(1))


def history(client, page: int = 1) -> str:
    response = client.get(reverse("lobby:my_hands"), {"page": page})
    assert response.status_code == 200
    return response.text


def test_the_history_lists_his_hands_alone_with_his_cards_and_what_he_won_or_lost(client):
    tournament, entries = started([1000] * 8, table_size=4)
    alice = entries[0]
    own = Hand.objects.get(pk=in_play_of(tournament, alice))
    other = Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).exclude(pk=own.pk).get()
    prepare(own, {alice: "AsKd"})
    own, other = fold_round(own), fold_round(other)
    client.force_login(alice.player)

    text = history(client)

    assert reverse("lobby:hand", args=[tournament.pk, own.pk]) in text
    assert reverse("lobby:hand", args=[tournament.pk, other.pk]) not in text
    assert card("As") in text
    assert card("Kd") in text
    played = replay(own)
    others = {code for seat in own.seats if own.seats[seat] != alice.pk for code in played.hole_cards(int(seat))}
    assert not {card(code) for code in others} & set(re.findall(r'playing-card \w+">([^<]+)<', text))
    seat = next(seat for seat, entry in own.seats.items() if entry == alice.pk)
    net = own.result["stacks"][seat] - own.setup["stacks"][seat]
    assert (f"+{net:,}" if net > 0 else f"\N{MINUS SIGN}{-net:,}" if net < 0 else ">0<") in text


def test_hands_dealt_before_the_seat_rows_are_in_the_history_once_migrated(client):
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    row = fold_round(in_play(tournament))
    HandSeat.objects.all().delete()  # as a hand dealt before tournaments 0025 stands
    migration = importlib.import_module("tournaments.migrations.0025_hand_seats")

    migration.record_seats(apps, None)

    client.force_login(bob.player)
    assert reverse("lobby:hand", args=[tournament.pk, row.pk]) in history(client)
    assert {(seat.seat, seat.entry_id, seat.player_id) for seat in HandSeat.objects.filter(hand=row)} == {
        (int(seat), entry.pk, entry.player_id)
        for seat, pk in row.seats.items()
        for entry in (alice, bob, carol)
        if entry.pk == pk
    }


def test_the_migration_gives_a_hand_dealt_before_a_seat_transfer_to_the_account_then():
    tournament, (alice, bob, _) = started([1000, 1000, 1000])
    before = fold_round(in_play(tournament))
    brother, moved = UserFactory(), timezone.now()
    entry_transfer(
        tournament_id=tournament.pk,
        source=bob.player,
        target=brother,
        actor=UserFactory(is_staff=True),
        reason="Verified",
        now=moved,
    )
    after = fold_round(in_play(tournament))
    # The clock as the room saw it: one hand dealt before the transfer, one after.
    Hand.objects.filter(pk=before.pk).update(started_at=moved - timedelta(minutes=1))
    Hand.objects.filter(pk=after.pk).update(started_at=moved + timedelta(minutes=1))
    HandSeat.objects.all().delete()  # as hands dealt before tournaments 0025 stand
    migration = importlib.import_module("tournaments.migrations.0025_hand_seats")

    migration.record_seats(apps, None)

    assert HandSeat.objects.get(hand=before, entry=bob).player == bob.player
    assert HandSeat.objects.get(hand=after, entry=bob).player == brother
    assert HandSeat.objects.get(hand=before, entry=alice).player == alice.player


def in_play_of(tournament, entry) -> int:
    return next(
        row.pk
        for row in Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING)
        if entry.pk in row.seats.values()
    )


def test_others_hole_cards_are_in_neither_the_page_nor_the_replayer_unless_shown_down(client):
    tournament, (alice, _bob, _carol), row = shown_down()
    client.force_login(alice.player)

    page = client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text
    data = replayer_data(page)
    data_text = json.dumps(data, ensure_ascii=False)

    for seen in ("As", "Ah", "Ks", "Kh"):  # hers, and Bob's shown down
        assert card(seen) in data_text
    for hidden in ("Qs", "Qh"):  # Carol's, folded
        assert card(hidden) not in page
        assert card(hidden) not in data_text
        assert hidden not in data_text
    boards = {step["street"]: [shown["text"] for shown in step["board"]] for step in data["steps"]}
    assert boards["Flop"] == [card("2c"), card("7d"), card("9h")]
    assert boards["Turn"] == [*boards["Flop"], card("Js")]
    assert boards["Showdown"] == [*boards["Turn"], card("3d")]
    assert data["steps"][0]["said"] == "The cards are dealt."


def test_a_spectator_sees_only_the_cards_shown_down(client):
    tournament, _players, row = shown_down()

    data = replayer_data(client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text)

    shown = {tuple(c["text"] for c in seat["cards"]) for seat in data["seats"]}
    assert shown == {(card("As"), card("Ah")), (card("Ks"), card("Kh")), ()}


def test_a_hand_won_without_a_showdown_hides_every_hole_card_but_the_viewers(client):
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    row = in_play(tournament)
    prepare(row, {alice: "AsAh", bob: "KsKh", carol: "QsQh"})
    row = fold_round(row)
    client.force_login(bob.player)

    data_text = json.dumps(
        replayer_data(client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text), ensure_ascii=False
    )

    assert card("Ks") in data_text
    assert card("Kh") in data_text
    for hidden in ("As", "Ah", "Qs", "Qh"):
        assert card(hidden) not in data_text


def test_the_history_is_newest_first_a_page_at_a_time(client, monkeypatch):
    monkeypatch.setattr("lobby.hand_views.HISTORY_PAGE_SIZE", 2)
    tournament, (alice, *_) = started([1000, 1000, 1000])
    played = [fold_round(in_play(tournament)).pk for _ in range(3)]
    for minutes, pk in enumerate(played):  # the first was dealt at the event's start, in the future
        Hand.objects.filter(pk=pk).update(started_at=timezone.now() + timedelta(minutes=minutes))
    client.force_login(alice.player)

    first, second = history(client, 1), history(client, 2)

    links = [reverse("lobby:hand", args=[tournament.pk, pk]) for pk in played]
    assert links[2] in first
    assert links[1] in first
    assert first.index(links[2]) < first.index(links[1])
    assert links[0] not in first
    assert links[0] in second
    assert "Page 1 of 2" in first


def test_a_rolled_back_hand_is_in_the_history_marked_and_has_no_replayer(client):
    tournament, (alice, *_) = started([1000, 1000, 1000])
    row = act(in_play(tournament), ActionKind.CHECK_CALL)
    hands_roll_back(tournament_id=tournament.pk, table=None, actor=None, reason="Server crash", now=timezone.now())
    client.force_login(alice.player)

    text = history(client)
    page = client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text

    assert re.search(rf'<tr id="hand-{row.pk}" class="voided">', text)
    assert "Rolled back" in text
    assert 'id="replayer-data"' not in page


def test_the_history_asks_a_visitor_to_log_in(client):
    response = client.get(reverse("lobby:my_hands"))

    assert response.status_code == 302
    assert reverse("accounts:login") in response.url


def test_my_tournaments_and_the_top_bar_link_to_the_history(client, player):
    client.force_login(player)

    text = client.get(reverse("lobby:my_tournaments")).text

    assert text.count(f'href="{reverse("lobby:my_hands")}"') == 2


def test_the_history_and_the_replayer_speak_danish(client):
    tournament, (alice, *_) = started([1000, 1000, 1000])
    row = fold_round(in_play(tournament))
    client.force_login(alice.player)

    history_path, hand_path = reverse("lobby:my_hands"), reverse("lobby:hand", args=[tournament.pk, row.pk])

    text = client.get(f"/da{history_path}").text
    page = client.get(f"/da{hand_path}").text

    assert "Mine hænder" in text
    assert "Genafspilning" in page
    steps = replayer_data(page)["steps"]
    assert (steps[0]["street"], steps[0]["said"]) == ("Før floppet", "Kortene er givet.")
    assert steps[0]["pot"] == "Indsatser foran spillerne: 30"
    assert "folder" in steps[1]["said"]
    assert "folder" in page.split('<div class="actions-log">')[1].split("</div>", maxsplit=1)[0]


BOARD = ("2c", "7d", "9h", "Js", "3d")


def played_to_the_river(row: Hand) -> Hand:
    """Everyone calls the big blind (10/20) and checks, except on the turn: the first
    to act bets 40 and the others call."""
    while row.status == HandStatus.PLAYING:
        hand = replay(row)
        if hand.street == "turn" and hand.legal().can_check and not any(hand.bet(seat) for seat in hand.seats):
            row = act(row, ActionKind.BET_RAISE, 40)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    return row


def screen_names(row: Hand) -> list[str]:
    """The names of the players in the order they acted first."""
    by_entry = {entry.pk: entry.player.screen_name for entry in Entry.objects.filter(pk__in=row.seats.values())}
    order = dict.fromkeys(action[0] for action in row.actions)
    return [by_entry[row.seats[str(seat)]] for seat in order]


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).strip()


def test_the_action_list_says_what_each_player_did_a_street_at_a_time_in_the_replayers_words(client):
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    row = in_play(tournament)
    prepare(row, {alice: "AsAh", bob: "KsKh", carol: "QsQh"}, "".join(BOARD))
    row = played_to_the_river(row)
    first, small, big = screen_names(row)  # the button acts first three-handed, then the blinds

    page = client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text

    log = page.split('<div class="actions-log">')[1].split("</div>", maxsplit=1)[0]
    streets = [text_of(part) for part in re.findall(r"<h3>(.*?)</h3>", log, re.S)]
    cards = [card(code) for code in BOARD]
    flop, turn, river = "".join(cards[:3]), cards[3], cards[4]
    assert streets == ["Before the flop", f"Flop: {flop}", f"Turn: {turn}", f"River: {river}", "Showdown"]
    said = [text_of(line) for line in re.findall(r"<li>(.*?)</li>", log, re.S)]
    checks = [f"{name} checks" for name in (small, big, first)]
    assert said == [
        *(f"{first} calls 20", f"{small} calls 10", f"{big} checks"),
        *checks,
        *(f"{small} bets 40", f"{big} calls 40", f"{first} calls 40"),
        *checks,
        f"{alice.player.screen_name} wins 180",
    ]
    assert "or" not in " ".join(said).split()  # no "checks or calls", no "bets or raises"
    # The replayer says the same, each action on its own street, and the pots apart from the bets.
    steps = replayer_data(page)["steps"]
    assert [step["said"] for step in steps if step["said"] in said] == said
    assert (steps[3]["street"], steps[3]["said"]) == ("Before the flop", f"{big} checks")
    assert (steps[4]["street"], steps[4]["said"], steps[4]["pot"]) == ("Flop", "The flop is dealt.", "Pot: 60")
    assert steps[0]["pot"] == "Bets in front of the players: 30"
    bet = next(step for step in steps if step["said"] == f"{small} bets 40")
    assert bet["pot"] == "Pot: 60; bets in front of the players: 40"


def test_the_replayer_names_the_main_and_side_pots_and_the_bets_apart():
    tournament, _ = started([300, 1000, 1000])
    row = in_play(tournament)
    while row.status == HandStatus.PLAYING:  # everyone all in
        legal = replay(row).legal()
        row = act(row, ActionKind.BET_RAISE, legal.max_to) if legal.max_to else act(row, ActionKind.CHECK_CALL)

    steps = replayer_data(Client().get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text)["steps"]

    assert "Pots: main 900, side 1,400" in [step["pot"] for step in steps]
