"""One hand played through at a 6-max and a 9-max table (issue 28), seen from one
player's page as it happens: the seats around the felt with the button and blinds,
the bets in front of the seats, the opponents' card backs, each seat's last action,
the turn clock and the time bank apart, the hand's log in words, his pre-actions
played the moment his turn comes, the bet presets and the keys, the winner named
with the chips moving to him (still for a user who asks for reduced motion), and
then his two tables side by side on My tables."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from lobby.templatetags.poker import card
from tests.decks import cards
from tests.e2e.test_live import LIVE, log_in
from tests.e2e.test_table_layout import SCREENSHOTS
from tests.tables import act, in_play, prepare, started
from tournaments.models import Entry
from tournaments.rules.hands import ActionKind, HandSetup
from tournaments.selectors.replays import entry_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

F, CC, CBR = ActionKind.FOLD, ActionKind.CHECK_CALL, ActionKind.BET_RAISE
BOARD = "Kd9h4c3s8d"


def centre(locator) -> tuple[float, float]:
    """The middle of what `locator` shows, once it shows: a live update may be
    swapping that part of the table in at the moment it is asked."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    while box is None:  # swapped out between the two calls: the next look finds it
        expect(locator).to_be_visible()
        box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize(
    ("size", "flop_pre_action", "motion"),
    [(6, "Check/Fold", "no-preference"), (9, "Check", "reduce")],
)
def test_a_hand_played_through_from_one_players_page(asgi_page, size, flop_pre_action, motion):
    tournament, _entries = started([1000] * size, table_size=size)
    row = in_play(tournament)
    setup = HandSetup.from_json(row.setup)
    order = setup.seats  # small blind, big blind, first to act, ..., button
    small, big, first, mine = order[0], order[1], order[2], order[3]
    player = Entry.objects.get(pk=entry_of(row, mine)).player
    entry_at = {seat: Entry.objects.get(pk=entry_of(row, seat)) for seat in order}
    prepare(row, {entry_at[mine]: "AsAh", entry_at[big]: "7c2d"}, BOARD)
    # He also sits in a second event, at a turn not his.
    other_event, _ = started([1000] * 3)
    other_row = in_play(other_event)
    idle = next(pk for seat, pk in other_row.seats.items() if int(seat) != other_row.to_act)
    Entry.objects.filter(pk=idle).update(player=player)

    page = asgi_page(viewport={"width": 1280, "height": 1000}, reduced_motion=motion)
    log_in(page, player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    expect(page.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)

    def seat(number: int):
        return page.locator(f'li[data-seat="{number}"]')

    names = {number: seat(number).locator(".name").inner_text() for number in order}

    # The seats around the felt: his at the bottom centre, the next clockwise to his left.
    ring_x, ring_y = centre(page.locator("ol.seats-ring.around"))
    own_x, own_y = centre(seat(mine))
    assert abs(own_x - ring_x) < 10
    assert own_y > ring_y
    assert centre(seat(mine % size + 1))[0] < own_x
    assert all(centre(seat(number))[1] <= own_y + 1 for number in order)
    # The button and the blinds at their seats, the blinds' bets in front of them.
    expect(seat(setup.button).locator(".badge.dealer")).to_have_text("D")
    expect(seat(small).locator(".badge")).to_have_text("SB")
    expect(seat(big).locator(".badge")).to_have_text("BB")
    expect(seat(small).locator(".bet")).to_have_text("Bet 10")
    expect(seat(big).locator(".bet")).to_have_text("Bet 20")
    # Two card backs at every seat dealt in (the felt is the same for all who watch),
    # his own cards face up in his part of the page.
    for number in order:
        expect(seat(number).locator(".cards.backs .playing-card.back")).to_have_count(2)
    expect(page.locator(".own-seat .hole-cards .playing-card")).to_have_count(2)
    expect(page.locator(".own-seat .hole-cards")).to_contain_text(card("As"))
    # The turn clock at the seat to act, and his time bank apart after it.
    turn = seat(first).locator(".turn")
    expect(turn).to_contain_text("To act")
    expect(turn.locator("time[data-countdown]").first).to_have_text(re.compile(r"\d"))
    expect(turn.locator(".bank")).to_contain_text("time bank")
    expect(turn.locator(".bank time[data-countdown-max]")).to_have_text(re.compile(r"\d"))

    # Pre-flop: he chose to call 20; the first player calls and his call is played.
    pre = page.locator("[data-pre-actions]")
    pre.get_by_label("Call 20").check()
    row = act(row, CC)
    expect(seat(mine).locator(".said")).to_have_text("Call", timeout=LIVE)
    expect(seat(mine).locator(".bet")).to_have_text("Bet 20")
    row.refresh_from_db()
    for _ in (*order[4:], small):
        row = act(row, F)
    expect(seat(small)).to_have_class(re.compile(r"\bfolded\b"), timeout=LIVE)  # dimmed
    row = act(row, CC)  # the big blind checks: the flop

    # The flop: his pre-action is played when the others check to him.
    expect(page.locator(".hand-log")).to_contain_text("Flop", timeout=LIVE)
    expect(seat(mine).locator(".bet")).to_have_count(0)  # the street's bets are in the pot
    page.locator("[data-pre-actions]").get_by_label(flop_pre_action, exact=True).check()
    row = act(row, CC)
    row = act(row, CC)
    expect(page.locator(".hand-log")).to_contain_text("Turn", timeout=LIVE)
    row.refresh_from_db()
    assert row.actions[-1] == [mine, CC.value, None]

    # The turn, his to bet: the presets fill the amount and the slider, R goes to the
    # amount and Enter bets it.
    row = act(row, CC)
    row = act(row, CC)
    form = page.locator(".own-seat form.actions")
    expect(form).to_be_visible(timeout=LIVE)
    expect(form.locator('[role="alert"]')).to_have_text("Your turn: check or bet.")
    amount, slider = form.locator('input[name="amount"]'), form.locator('input[type="range"]')
    for preset, chips in (("Pot", "70"), ("½ pot", "35"), ("Min", "20")):
        form.get_by_role("button", name=preset, exact=True).click()
        expect(amount).to_have_value(chips)
        expect(slider).to_have_value(chips)
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("r")
    expect(amount).to_be_focused()
    amount.fill("40")
    page.keyboard.press("Enter")
    expect(seat(mine).locator(".said")).to_have_text("Bet 40", timeout=LIVE)
    expect(seat(mine).locator(".bet")).to_have_text("Bet 40")
    row.refresh_from_db()
    row = act(row, CC)
    row = act(row, CC)

    # The river: "Call any" chosen while waiting calls the big blind's bet.
    expect(page.locator(".hand-log")).to_contain_text("River", timeout=LIVE)
    page.locator("[data-pre-actions]").get_by_label("Call any").check()
    expect(page.locator("[data-pre-actions]").get_by_label("Call any")).to_be_checked()  # shown
    row = act(row, CBR, 100)
    row = act(row, F)

    # The showdown: his seat highlighted, the chips moving to it, his hand named.
    winner = page.locator(".seat.winner")
    expect(winner).to_have_attribute("data-seat", str(mine), timeout=LIVE)
    expect(winner.locator(".won")).to_have_text("Won 390")
    expect(page.locator(".seat .bet")).to_have_count(0)  # every bet is in the pot
    moving = winner.locator(".won").evaluate("won => getComputedStyle(won).animationName")
    assert moving == ("none" if motion == "reduce" else "chips-to-seat")
    expect(page.locator(".recent-hands")).to_contain_text(f"{names[mine]} won 390 with a pair")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"table-{size}-max-showdown.png", full_page=True)

    # The whole hand in words, in order.
    folds = [f"{names[number]} folds" for number in (*order[4:], small)]
    flop, turn_card, river = (
        " ".join(card(code) for code in cards(part)) for part in (BOARD[:6], BOARD[6:8], BOARD[8:])
    )
    n = names
    assert [line.strip() for line in page.locator(".hand-log li").all_inner_texts()] == [
        f"{n[first]} calls 20",
        f"{n[mine]} calls 20",
        *folds,
        f"{n[big]} checks",
        f"Flop: {flop}",
        f"{n[big]} checks",
        f"{n[first]} checks",
        f"{n[mine]} checks",
        f"Turn: {turn_card}",
        f"{n[big]} checks",
        f"{n[first]} checks",
        f"{n[mine]} bets 40",
        f"{n[big]} calls 40",
        f"{n[first]} calls 40",
        f"River: {river}",
        f"{n[big]} bets 100",
        f"{n[first]} folds",
        f"{n[mine]} calls 100",
    ]

    # His two tables side by side.
    page.get_by_role("link", name="My tables").click()
    tables = page.locator(".my-table")
    expect(tables).to_have_count(2)
    expect(tables.filter(has_text=tournament.name)).to_have_count(1)
    expect(tables.filter(has_text=other_event.name)).to_have_count(1)
