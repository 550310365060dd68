"""The replayer on a finished hand's page, in real Chromium (issue 15): a player
steps through a hand street by street and action by action with the buttons, and
sees the board and the pot as they stood; without JavaScript the page keeps its
list of actions and no replayer."""

import pytest
from playwright.sync_api import expect

from lobby.templatetags.poker import card
from tests.e2e.test_live import log_in
from tests.tables import act, prepare, started
from tournaments.models import Hand, HandStatus
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import replay

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BOARD = ("2c", "7d", "9h", "Js", "3d")


def played_to_the_river(row: Hand) -> Hand:
    """Everyone calls the big blind (10/20) and checks, except on the turn: the first
    to act bets 40 and the others call."""
    while row.status == HandStatus.PLAYING:
        hand = replay(row)
        legal = hand.legal()
        if hand.street == "turn" and legal.can_check and not any(hand.bet(seat) for seat in hand.seats):
            row = act(row, ActionKind.BET_RAISE, 40)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    return row


def test_stepping_through_a_hand_street_by_street_shows_the_board_and_pot_of_each(new_page):
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    row = Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING)
    prepare(row, {alice: "AsAh", bob: "KsKh", carol: "QsQh"}, "".join(BOARD))
    row = played_to_the_river(row)
    page = new_page()
    log_in(page, alice.player.username)

    page.goto(f"/tournaments/{tournament.pk}/hands/{row.pk}/")

    replayer = page.locator("#replayer")
    expect(replayer).to_be_visible()
    street, board, pot = (replayer.locator(f'[data-show="{name}"]') for name in ("street", "board", "pot"))
    expect(street).to_have_text("Before the flop")
    expect(replayer.locator('[data-show="said"]')).to_have_text("The cards are dealt.")
    expect(pot).to_have_text("Bets in front of the players: 30")  # the blinds
    expect(replayer.get_by_role("button", name="Previous street")).to_be_disabled()
    replayer.get_by_role("button", name="Next action").click()
    expect(replayer.locator('[data-show="said"]')).to_contain_text("calls 20")
    expect(pot).to_have_text("Bets in front of the players: 50")

    shown = [card(code) for code in BOARD]
    for name, cards, chips in (("Flop", 3, "60"), ("Turn", 4, "60"), ("River", 5, "180"), ("Showdown", 5, "180")):
        replayer.get_by_role("button", name="Next street").click()
        expect(street).to_have_text(name)
        expect(board.locator(".playing-card")).to_have_text(shown[:cards])
        expect(pot).to_have_text(f"Pot: {chips}")
        if name == "Flop":  # the check that ended the betting before it is not the flop's
            expect(replayer.locator('[data-show="said"]')).to_have_text("The flop is dealt.")
            replayer.get_by_role("button", name="Previous action").click()
            expect(street).to_have_text("Before the flop")
            expect(replayer.locator('[data-show="said"]')).to_contain_text("checks")
            expect(board).to_have_text("—")
            replayer.get_by_role("button", name="Next action").click()
    # Her own cards, and at the showdown everyone's.
    expect(replayer.locator("tbody")).to_contain_text(card("As"))
    expect(replayer.get_by_role("button", name="Next street")).to_be_disabled()

    replayer.get_by_role("button", name="Previous street").click()
    expect(street).to_have_text("River")
    expect(board.locator(".playing-card")).to_have_text(shown)
    replayer.get_by_role("button", name="Previous street").click()
    expect(street).to_have_text("Turn")
    replayer.get_by_role("button", name="Next action").click()  # the bet
    expect(replayer.locator('[data-show="said"]')).to_contain_text("bets 40")
    expect(pot).to_have_text("Pot: 60; bets in front of the players: 40")

    plain = new_page(java_script_enabled=False)
    plain.goto(f"/tournaments/{tournament.pk}/hands/{row.pk}/")
    expect(plain.locator("#replayer")).to_be_hidden()
    expect(plain.locator(".actions-log li").first).to_be_visible()
