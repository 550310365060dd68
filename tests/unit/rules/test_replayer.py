"""The replayer's steps (issue 15): the table after the deal and after each action,
a board run out a street at a time, and the award; never a hole card."""

import json
from dataclasses import replace

from tests.decks import deck_for
from tournaments.rules.hands import Action, ActionKind, HandSetup, hole_positions
from tournaments.rules.replayer import hand_steps

F, CC, CBR = ActionKind.FOLD, ActionKind.CHECK_CALL, ActionKind.BET_RAISE
# Button 3: seat 1 the small blind (50), seat 2 the big blind (100), seat 3 acts first.
SETUP = HandSetup(
    game="holdem",
    betting="nl",
    stacks={1: 1000, 2: 3000, 3: 2000},
    button=3,
    small_blind_seat=1,
    big_blind_seat=2,
    small_blind=50,
    big_blind=100,
)
BOARD = ("2c", "7d", "9h", "Js", "3s")
DECK = deck_for(["AsAh", "KsKh", "QsQh"], "".join(BOARD))


def test_steps_go_action_by_action_then_run_the_board_out_a_street_at_a_time():
    # Seat 1 all in for 1,000, seat 2 for 3,000, seat 3 calls with his 2,000.
    actions = [Action(3, CBR, 300), Action(1, CBR, 1000), Action(2, CBR, 3000), Action(3, CC)]

    steps = hand_steps(SETUP, DECK, actions)

    deal = steps[0]
    assert (deal.street, deal.board, deal.pots, deal.to_act) == ("preflop", (), (), 3)
    assert [(seat.stack, seat.bet) for seat in deal.seats] == [(950, 50), (2900, 100), (2000, 0)]
    raised = steps[1]
    assert (raised.action, raised.to_act) == (Action(3, CBR, 300), 1)
    assert [seat.bet for seat in raised.seats] == [50, 100, 300]
    called = steps[4]
    assert called.board == ()  # the board comes next, a street at a time
    assert called.pots == (3000, 2000)  # the main pot of three times 1,000; the side pot
    assert [seat.all_in for seat in called.seats] == [True, False, True]
    assert [step.board for step in steps[5:8]] == [BOARD[:3], BOARD[:4], BOARD]
    award = steps[-1]
    assert award.street == "showdown"
    # Aces win the main pot, kings the side pot (the last 1,000 nobody called went back).
    assert award.winners == {1: 3000, 2: 2000}
    assert [seat.stack for seat in award.seats] == [3000, 3000, 0]
    assert len(steps) == 9


def test_a_hand_won_by_folds_ends_with_its_pot_and_no_board():
    steps = hand_steps(SETUP, DECK, [Action(3, F), Action(1, F)])

    assert [step.street for step in steps] == ["preflop", "preflop", "preflop", "preflop"]
    assert (steps[2].pots, steps[2].to_act) == ((150,), None)
    assert steps[-1].winners == {2: 150}
    assert [seat.stack for seat in steps[-1].seats] == [950, 3050, 2000]


def test_no_step_holds_a_hole_card():
    steps = hand_steps(SETUP, DECK, [Action(3, F), Action(1, CC), Action(2, CC)] + [Action(1, CC), Action(2, CC)] * 3)

    holes = {DECK[position - 1] for seat in SETUP.stacks for position in hole_positions(SETUP, seat)}
    text = json.dumps([step.to_json() for step in steps])
    assert not any(card in text for card in holes)
    assert steps[-1].street == "showdown"


def test_a_short_big_blind_is_all_in_and_every_step_keeps_every_chip():
    # Seat 2 has 15 chips for the 100 big blind: he is all in, the others still call 100.
    short = replace(SETUP, stacks={1: 1000, 2: 15, 3: 1000})
    actions = [Action(3, CC), Action(1, CC)] + [Action(1, CC), Action(3, CC)] * 3

    steps = hand_steps(short, DECK, actions)

    dealt = steps[0].seats[1]
    assert (dealt.stack, dealt.bet, dealt.all_in) == (0, 15, True)
    assert steps[2].pots == (45, 170)  # what he can win; the others' side pot
    for step in steps[:-1]:
        assert sum(seat.stack + seat.bet for seat in step.seats) + sum(step.pots) == 2015
    assert sum(seat.stack for seat in steps[-1].seats) == 2015


def test_an_action_belongs_to_the_street_it_was_made_on_and_each_street_is_dealt_in_a_step_of_its_own():
    # Everyone calls the big blind; the big blind's check ends the betting before the flop.
    actions = [Action(3, CC), Action(1, CC), Action(2, CC), Action(1, CBR, 200), Action(2, F), Action(3, F)]

    steps = hand_steps(SETUP, DECK, actions)

    closed = steps[3]
    assert (closed.action, closed.street, closed.board, closed.to_act) == (Action(2, CC), "preflop", (), None)
    flop = steps[4]
    assert (flop.action, flop.street, flop.board, flop.to_act) == (None, "flop", BOARD[:3], 1)
    assert (flop.pots, [seat.bet for seat in flop.seats]) == ((300,), [0, 0, 0])
    bet = steps[5]
    assert (bet.street, bet.board, [seat.bet for seat in bet.seats]) == ("flop", BOARD[:3], [200, 0, 0])
    assert [step.street for step in steps] == ["preflop"] * 4 + ["flop"] * 5
    assert steps[-1].winners == {1: 500}


def test_a_big_blind_ante_is_dead_money_in_the_main_pot_at_every_step():
    # Seat 2 has 150: the 100 ante (dead, in the main pot for everyone still in), then
    # 50 of his blind; the others call the full 100.
    short = replace(SETUP, stacks={1: 1000, 2: 150, 3: 1000}, ante=100, big_blind_ante=True)
    actions = [Action(3, CC), Action(1, CC)] + [Action(1, CC), Action(3, CC)] * 3

    steps = hand_steps(short, DECK, actions)

    dealt = steps[0].seats[1]
    assert (dealt.stack, dealt.bet, dealt.all_in) == (0, 50, True)
    assert steps[0].pots == (100,)  # the ante, before any bet is gathered
    assert steps[2].pots == (250, 100)  # the ante and 50 from each; the others' side pot
    for step in steps[:-1]:
        assert sum(seat.stack + seat.bet for seat in step.seats) + sum(step.pots) == 2150
    assert sum(seat.stack for seat in steps[-1].seats) == 2150
