"""Rule 20's heuristics on crafted hands: chip transfers between the same two
players and strong hands folded to the same opponent, flagged once they repeat."""

import dataclasses

import pytest

from tests.decks import cards, deck_for
from tournaments.rules.hands import Action, ActionKind, HandSetup, PlayedHand
from tournaments.rules.integrity import (
    REPEATS,
    SIT_OUT_TOGETHER_SECONDS,
    Category,
    Signal,
    SignalKind,
    SitOut,
    category,
    hand_signals,
    sit_outs_together,
    strong,
    suspicions,
)

F, CC, CBR = ActionKind.FOLD, ActionKind.CHECK_CALL, ActionKind.BET_RAISE
# Three-handed, button on seat 3: seat 1 posts the small blind, seat 2 the big; seat 3
# acts first before the flop, seat 1 first after it.
SETUP = HandSetup(
    game="holdem",
    betting="nl",
    stacks={1: 1000, 2: 1000, 3: 1000},
    button=3,
    small_blind_seat=1,
    big_blind_seat=2,
    small_blind=10,
    big_blind=20,
)
PLAYERS = {1: "ann", 2: "ben", 3: "cat"}


def signals(setup, holes, board, actions):
    deck = deck_for(holes, board)
    hand = PlayedHand.play(setup, deck, actions)
    assert hand.over
    return hand_signals(
        hand_id=7,
        setup=setup,
        deck=deck,
        actions=hand.actions,
        players=PLAYERS,
        final_stacks=hand.result().stacks,
    )


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("AsKsQsJsTs2d3c", Category.STRAIGHT_FLUSH),
        ("As2s3s4s5s9d9c", Category.STRAIGHT_FLUSH),
        ("9c9d9h9s2c", Category.QUADS),
        ("9c9d9hKsKc2d", Category.FULL_HOUSE),
        ("9c9d9hKsKcKd", Category.FULL_HOUSE),
        ("2c7c9cJcKc", Category.FLUSH),
        ("Ah2c3d4s5h", Category.STRAIGHT),
        ("9c9d9h2s5h", Category.TRIPS),
        ("9c9dKhKs5h", Category.TWO_PAIR),
        ("9c9dKh2s5h", Category.PAIR),
        ("9cJdKh2s5h", Category.HIGH_CARD),
    ],
)
def test_categories(hand, expected):
    assert category(cards(hand)) == expected


def test_strong_means_aces_or_kings_before_the_flop_and_two_pair_that_the_hole_cards_make():
    assert strong(["Ks", "Kh"], []) == "KK"
    assert strong(["Qs", "Qh"], []) is None
    assert strong(["Ah", "Kd"], cards("AsKc7d2s9h")) == "two pair"
    # The board's own two pair is everyone's: folding a hand that adds nothing is no gift.
    assert strong(["2c", "3d"], cards("KsKc7d7s9h")) is None
    assert strong(["9c", "3d"], cards("KsKc7d7s9h")) is None  # still two pair, better kicker only
    assert strong(["7h", "3d"], cards("KsKc7d2s9h")) == "two pair"


def test_in_omaha_strong_means_aces_before_the_flop_then_a_flush_or_better_of_two_hole_cards():
    assert strong(["As", "Ah", "7c", "2d"], [], game="omaha") == "AA"
    assert strong(["Ks", "Kh", "Qc", "Qd"], [], game="omaha") is None
    assert strong(["Ah", "Kh", "7c", "2d"], cards("Qh9h3h"), game="omaha") == "flush"
    # Two pair and a straight run close in Omaha: folding them is no gift.
    assert strong(["Ah", "Kd", "7c", "2d"], cards("AsKc3h"), game="omaha_hilo") is None
    assert strong(["Jh", "Td", "7c", "2d"], cards("Qs9c8h"), game="omaha") is None
    # Exactly two hole cards: one heart in hand does not make a flush with four on board,
    # nor do three hearts in hand with two on board.
    assert strong(["Ah", "Kd", "7c", "2d"], cards("Qh9h3h5h"), game="omaha") is None
    assert strong(["Ah", "Kh", "7h", "2d"], cards("Qh9h3c"), game="omaha") is None
    # A full house made with two of his cards, the board alone only trips.
    assert strong(["9c", "9d", "Kc", "2s"], cards("9h5s5d"), game="omaha") == "full house"


def test_aces_folded_to_a_raise_before_the_flop_in_omaha_signal_the_raiser():
    setup = dataclasses.replace(SETUP, game="omaha", betting="pl")
    found = signals(setup, ["AsAh7c2d", None, None], "", [Action(3, CBR, 60), Action(1, F), Action(2, F)])

    assert found == [Signal(SignalKind.STRONG_FOLD, 7, "cat", "ann", "AA preflop")]


def test_kings_folded_to_a_raise_before_the_flop_signal_the_raiser():
    found = signals(SETUP, ["KsKh", None, None], "", [Action(3, CBR, 60), Action(1, F), Action(2, F)])

    assert found == [Signal(SignalKind.STRONG_FOLD, 7, "cat", "ann", "KK preflop")]


def test_two_pair_folded_to_a_river_bet_signals_the_bettor():
    checks = [Action(1, CC), Action(2, CC), Action(3, CC)]
    actions = [Action(3, CC), Action(1, CC), Action(2, CC), *checks, *checks]
    actions += [Action(1, CC), Action(2, CBR, 100), Action(3, F), Action(1, F)]

    found = signals(SETUP, ["3h4h", None, "AhKd"], "AsKc7d2s9h", actions)

    assert found == [Signal(SignalKind.STRONG_FOLD, 7, "ben", "cat", "two pair on the river")]


def test_a_strong_hand_folded_with_nothing_to_call_is_no_signal():
    # Kings folded to the big blind alone: nobody bet or raised.
    assert signals(SETUP, ["KsKh", None, None], "", [Action(3, F), Action(1, F)]) == []


def test_a_knockout_and_a_large_loss_go_to_the_hands_biggest_winner():
    # Seat 1 all in with nothing, seat 2 calls with aces; seat 3 calls too and loses 1,000.
    found = signals(
        SETUP,
        ["7c2d", "AsAh", "QcJd"],
        "3c8d5h4sKd",
        [Action(3, CBR, 1000), Action(1, CC), Action(2, CC)],
    )

    assert found == [
        Signal(SignalKind.CHIP_TRANSFER, 7, "ben", "ann", "knockout"),
        Signal(SignalKind.CHIP_TRANSFER, 7, "ben", "cat", "knockout"),
    ]


def test_a_small_loss_is_no_transfer_and_heads_up_hands_are_left_out():
    assert signals(SETUP, ["7c2d", None, None], "", [Action(3, CBR, 100), Action(1, F), Action(2, F)]) == []
    heads_up = HandSetup(
        game="holdem",
        betting="nl",
        stacks={1: 1000, 2: 1000},
        button=1,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=10,
        big_blind=20,
    )
    deck = deck_for(["AsAh", "7c2d"], "3c8d5h4sKd")
    hand = PlayedHand.play(heads_up, deck, [Action(1, CBR, 1000), Action(2, CC)])
    found = hand_signals(
        hand_id=1, setup=heads_up, deck=deck, actions=hand.actions, players=PLAYERS, final_stacks=hand.result().stacks
    )
    assert found == []


def test_a_pair_is_suspected_once_its_signals_repeat_in_one_direction():
    transfer = SignalKind.CHIP_TRANSFER
    found = [Signal(transfer, hand, "ben", "ann", "knockout") for hand in (3, 1, 2)]
    found.append(Signal(transfer, 4, "ann", "ben", "knockout"))  # the other way round: another pair
    found += [Signal(SignalKind.STRONG_FOLD, hand, "cat", "ann", "KK preflop") for hand in (5, 6)]
    found.append(Signal(SignalKind.STRONG_FOLD, 6, "cat", "ann", "KK preflop"))  # a hand counts once

    flagged = {(s.kind, s.player, s.other): s.seen for s in suspicions(found)}

    assert flagged == {
        (transfer, "ben", "ann"): ("hand:1", "hand:2", "hand:3"),
        (SignalKind.STRONG_FOLD, "cat", "ann"): ("hand:5", "hand:6"),
    }
    assert suspicions(found[:2]) == []
    assert REPEATS[transfer] == 3


def test_two_players_sitting_out_within_a_minute_of_each_other_signal_the_pair():
    together = SIT_OUT_TOGETHER_SECONDS
    sit_outs = [
        SitOut(player=9, tournament=1, at=100, ref=1),
        SitOut(player=4, tournament=1, at=100 + together, ref=2),  # just in time
        SitOut(player=5, tournament=1, at=100 + 2 * together + 1, ref=3),  # too late for either
        SitOut(player=4, tournament=2, at=100, ref=4),  # another tournament
    ]

    found = sit_outs_together(sit_outs)

    assert found == [Signal(SignalKind.SIT_OUT_TOGETHER, None, 4, 9, "sat out 60 s apart", ref="sit_out:1:2")]


def test_sitting_out_together_is_suspected_the_third_time():
    found = [Signal(SignalKind.SIT_OUT_TOGETHER, None, 4, 9, "", ref=f"sit_out:{n}:{n + 1}") for n in range(0, 6, 2)]

    assert suspicions(found[:2]) == []
    (suspected,) = suspicions(found)
    assert suspected.seen == ("sit_out:0:1", "sit_out:2:3", "sit_out:4:5")
