"""The bot plays only legal actions; random hands of every game and betting play to
the end, conserve chips and replay to the same result."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import HandHistory

from tournaments.rules.bots import bot_action
from tournaments.rules.hand_history import phh
from tournaments.rules.hands import Action, ActionKind, HandSetup, PlayedHand, new_deck


@st.composite
def setups(draw: st.DrawFn) -> HandSetup:
    seats = sorted(draw(st.sets(st.integers(1, 10), min_size=2, max_size=10)))
    big_blind = draw(st.sampled_from([2, 20, 100, 400]))
    stacks = {seat: draw(st.integers(1, 60 * big_blind)) for seat in seats}
    button = draw(st.sampled_from(seats))
    after = [seat for seat in seats if seat > button] + [seat for seat in seats if seat <= button]
    if len(seats) == 2:
        small, big = button, after[0]
    elif draw(st.booleans()):
        small, big = after[0], after[1]
    else:
        # The dead button: an empty seat may hold it, and nobody posts the small blind.
        small, big = None, after[0]
        button = next((seat for seat in range(1, 11) if seat not in stacks), button)
    return HandSetup(
        game=draw(st.sampled_from(["holdem", "omaha", "omaha_hilo"])),
        betting=draw(st.sampled_from(["nl", "pl", "fl"])),
        stacks=stacks,
        button=button,
        small_blind_seat=small,
        big_blind_seat=big,
        small_blind=big_blind // 2,
        big_blind=big_blind,
        ante=draw(st.sampled_from([0, 0, big_blind // 10, big_blind // 2])),
    )


@settings(max_examples=300, deadline=None)
@given(setup=setups(), seed=st.integers(0, 2**32))
def test_bots_play_every_game_to_the_end_and_the_hand_replays(setup, seed):
    rng = random.Random(seed)
    deck = new_deck(rng)
    hand = PlayedHand(setup, deck)
    while not hand.over:
        action = bot_action(hand, rng)
        assert hand.act(action.seat, action.kind, action.amount) == action
    result = hand.result()
    assert sum(result.stacks.values()) == sum(setup.stacks.values())
    assert sum(pot.amount for pot in result.pots) == hand.pot_total
    assert all(sum(pot.winners.values()) == pot.amount for pot in result.pots)
    assert all(chips >= 0 for chips in result.stacks.values())
    assert len(result.board) == 5 or not result.shown

    stored = [Action.from_json(action.to_json()) for action in hand.actions]
    replay = PlayedHand.play(HandSetup.from_json(setup.to_json()), deck, stored)
    assert replay.over
    assert replay.result() == result
    assert HandHistory.loads(phh(hand)).actions == HandHistory.loads(phh(replay)).actions


def test_the_bot_folds_calls_and_raises():
    seen: set[ActionKind] = set()
    rng = random.Random(1)
    setup = HandSetup("holdem", "nl", {1: 5000, 2: 5000, 3: 5000}, 3, 1, 2, 50, 100, 0)
    for _ in range(30):
        hand = PlayedHand(setup, new_deck(rng))
        while not hand.over:
            action = bot_action(hand, rng)
            seen.add(action.kind)
            hand.act(action.seat, action.kind, action.amount)
    assert seen == {ActionKind.FOLD, ActionKind.CHECK_CALL, ActionKind.BET_RAISE}
