"""One hand of poker (rules 6, 14, 15, 18, 25): dealing from our deck, betting, the
showdown and the pots. Where the engine departs from plain PokerKit, the test says
what the library does."""

import hashlib
import json
import random
import subprocess
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import (
    Automation,
    FixedLimitOmahaHoldemHighLowSplitEightOrBetter,
    HandHistory,
    NoLimitTexasHoldem,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    StandardHighHand,
)

from tests.decks import deck_for
from tournaments.rules.hand_history import phh, phh_for
from tournaments.rules.hands import (
    FULL_DECK,
    Action,
    ActionKind,
    HandError,
    HandSetup,
    LogLine,
    PlayedHand,
    _Ranker,
    card_salt,
    deck_commitment,
    deck_proof,
    new_deck,
    new_salt,
)

F, CC, CBR = ActionKind.FOLD, ActionKind.CHECK_CALL, ActionKind.BET_RAISE
LIBRARY_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def setup(stacks: dict[int, int], *, button: int, sb: int | None, bb: int, **kw: object) -> HandSetup:
    values: dict = {"game": "holdem", "betting": "nl", "small_blind": 50, "big_blind": 100, "ante": 0} | kw
    return HandSetup(stacks=stacks, button=button, small_blind_seat=sb, big_blind_seat=bb, **values)


THREE = {1: 1000, 2: 1000, 3: 1000}  # button 3: seat 1 small blind, seat 2 big blind


# The deck


def test_a_new_deck_holds_each_card_once_and_a_seeded_one_repeats():
    assert sorted(new_deck()) == sorted(FULL_DECK)
    assert new_deck(random.Random(7)) == new_deck(random.Random(7))
    assert len(new_salt()) == 32


def sha256sum(text: str) -> str:
    """What the documented shell check prints."""
    line = f"printf '%s' '{text}' | sha256sum"
    return subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True).stdout.split()[0]  # noqa: S603, S607


def test_deck_commitment_matches_the_documented_one_liners():
    deck, salt = new_deck(random.Random(1)), "a1b2c3"
    proof = deck_proof(deck, salt, seen=range(1, 53))

    assert sha256sum("".join(card.hash for card in proof)) == deck_commitment(deck, salt)
    assert sha256sum(f"{proof[4].card}:{proof[4].salt}") == proof[4].hash


def test_the_proof_names_the_cards_a_viewer_saw_and_hides_every_other_with_its_salt():
    deck, salt = new_deck(random.Random(2)), new_salt()
    hand = PlayedHand(setup({1: 1000, 2: 1000, 3: 1000}, button=3, sb=1, bb=2), deck)
    hand.act(3, ActionKind.FOLD)
    hand.act(1, ActionKind.CHECK_CALL)
    hand.act(2, ActionKind.CHECK_CALL)  # the flop is dealt, after a burnt card

    seen = hand.seen_positions(1, shown=())
    proof = deck_proof(deck, salt, seen)

    # Seat 1's two cards and the flop; seat 2's and 3's cards, the burnt card and the
    # undealt rest are hashes alone: folded seat 3's could be any two of 47.
    assert hand.hole_positions(2) == (2, 5)  # seat 2 is the second dealt to, three-handed
    assert seen == {1, 4, 8, 9, 10}
    assert [card.card for card in proof if card.card] == [*hand.hole_cards(1), *hand.board]
    assert all(card.salt is None for card in proof if card.position not in seen)
    # Every hash is there, so the commitment still checks; no shown salt gives another card away.
    assert hashlib.sha256("".join(card.hash for card in proof).encode()).hexdigest() == deck_commitment(deck, salt)
    hidden = set(range(1, 53)) - seen
    assert {card_salt(salt, position) for position in hidden}.isdisjoint(card.salt for card in proof)
    assert hand.seen_positions(None, shown=(3,)) == {3, 6, 8, 9, 10}
    assert hand.hole_cards(2) == (deck[1], deck[4])


def test_a_deck_missing_a_card_is_refused():
    deck = list(new_deck(random.Random(1)))
    deck[0] = deck[1]
    with pytest.raises(ValueError, match="52 cards"):
        PlayedHand(setup(THREE, button=3, sb=1, bb=2), deck)


def test_hole_cards_are_dealt_round_the_table_from_the_seat_after_the_button():
    deck = new_deck(random.Random(2))
    hand = PlayedHand(setup({2: 500, 5: 500, 9: 500}, button=5, sb=9, bb=2), deck)
    # Order of action: 9, 2, 5 (the button last).
    assert hand.hole_cards(9) == (deck[0], deck[3])
    assert hand.hole_cards(2) == (deck[1], deck[4])
    assert hand.hole_cards(5) == (deck[2], deck[5])


def test_the_board_comes_after_a_burnt_card_each_street():
    deck = deck_for(["AsKs", "2c7d", "3h8h"], "QsJsTs9c8c")
    hand = PlayedHand.play(setup(THREE, button=3, sb=1, bb=2), deck, [Action(3, CC), Action(1, CC), Action(2, CC)])
    assert hand.board == ("Qs", "Js", "Ts")
    assert deck.index("Qs") == 7  # six hole cards, one burnt


# JSON


def test_actions_and_setups_round_trip_through_json():
    action = Action(3, CBR, 400)
    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    assert Action.from_json(Action(2, F).to_json()) == Action(2, F)
    hand_setup = setup({1: 900, 4: 1200}, button=4, sb=4, bb=1, ante=10, game="omaha_hilo", betting="fl")
    assert HandSetup.from_json(json.loads(json.dumps(hand_setup.to_json()))) == hand_setup


# Seats, blinds, order of action (rules 14, 15)


def test_index_zero_is_the_seat_after_the_button_and_the_button_is_last():
    hand_setup = setup({2: 500, 4: 500, 7: 500, 9: 500}, button=7, sb=9, bb=2)
    assert hand_setup.seats == (9, 2, 4, 7)
    hand = PlayedHand(hand_setup, new_deck(random.Random(3)))
    assert (hand.bet(9), hand.bet(2)) == (50, 100)
    assert hand.to_act == 4


def test_plain_pokerkit_heads_up_gives_the_big_blind_to_player_zero():
    """The library swaps the blinds heads-up: with blinds (1, 2) player 0 posts 2."""
    state = NoLimitTexasHoldem.create_state(LIBRARY_AUTOMATIONS, False, 0, (1, 2), 2, (100, 100), 2)
    assert state.bets == [2, 1]


def test_heads_up_the_button_posts_the_small_blind_acts_first_preflop_and_last_after():
    hand = PlayedHand(setup({3: 1000, 6: 1000}, button=6, sb=6, bb=3), new_deck(random.Random(4)))
    assert (hand.bet(6), hand.bet(3)) == (50, 100)
    assert hand.to_act == 6
    hand.act(6, CC)
    assert hand.to_act == 3
    hand.act(3, CC)
    assert hand.street == "flop"
    assert hand.to_act == 3  # the big blind first after the flop
    hand.act(3, CC)
    assert hand.to_act == 6


def test_with_the_dead_button_only_the_big_blind_posts():
    hand = PlayedHand(setup({2: 1000, 5: 1000, 8: 1000}, button=4, sb=None, bb=5, ante=10), new_deck(random.Random(5)))
    assert hand.setup.seats == (5, 8, 2)
    assert [hand.bet(seat) for seat in (5, 8, 2)] == [100, 0, 0]
    assert hand.pot_total == 130  # three antes and the big blind
    assert hand.to_act == 8


def test_antes_are_posted_by_everyone_before_the_blinds():
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2, ante=25), new_deck(random.Random(6)))
    assert [hand.stack(seat) for seat in (1, 2, 3)] == [925, 875, 975]
    assert hand.pot_total == 225


# Acting


def test_acting_out_of_turn_is_refused_and_changes_nothing():
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(8)))
    before = (hand.to_act, hand.pot_total, list(hand.actions), hand.legal())
    with pytest.raises(HandError, match=r"^It is not your turn\.$"):
        hand.act(1, CC)
    assert (hand.to_act, hand.pot_total, list(hand.actions), hand.legal()) == before


def test_a_raise_below_the_minimum_is_refused_with_the_smallest():
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(8)))
    with pytest.raises(HandError, match=r"^The smallest raise is to 200\.$"):
        hand.act(3, CBR, 150)
    hand.act(3, CBR, 350)
    with pytest.raises(HandError, match=r"^The smallest raise is to 600\.$"):
        hand.act(1, CBR, 500)
    with pytest.raises(HandError, match="all in"):
        hand.act(1, CBR, 5000)
    assert hand.actions == [Action(3, CBR, 350)]


def test_pot_limit_allows_a_raise_to_the_pot_after_the_call():
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2, betting="pl"), new_deck(random.Random(8)))
    legal = hand.legal()
    # Call 100, then the pot (50 + 100 + 100) on top.
    assert legal is not None
    assert (legal.min_to, legal.max_to) == (200, 350)
    with pytest.raises(HandError, match=r"^Pot Limit allows at most a raise to 350\.$"):
        hand.act(3, CBR, 400)
    hand.act(3, CBR, 350)


def test_folding_is_allowed_when_he_could_check():
    """PokerKit refuses this fold in tournament mode ("There is no reason for this
    player to fold"); our tables let a player fold whenever it is his turn."""
    hand = PlayedHand.play(
        setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(9)), [Action(3, CC), Action(1, CC)]
    )
    assert hand.legal() is not None
    assert hand.legal().can_check
    hand.act(2, F)
    assert hand.folded(2)


def test_timeout_checks_when_he_can_and_folds_facing_a_bet_without_acting():
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(10)))
    assert hand.timeout_action() == Action(3, F)  # facing the big blind
    hand.act(3, CC)
    hand.act(1, CC)
    assert hand.timeout_action() == Action(2, CC)  # the big blind may check
    assert len(hand.actions) == 2
    hand.act(*astuple(hand.timeout_action()))
    assert hand.street == "flop"


def astuple(action: Action) -> tuple:
    return (action.seat, action.kind, action.amount)


def test_a_finished_hand_refuses_actions():
    hand = PlayedHand.play(
        setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(11)), [Action(3, F), Action(1, F)]
    )
    assert hand.over
    assert hand.to_act is None
    assert hand.legal() is None
    with pytest.raises(HandError, match=r"^This hand is over\.$"):
        hand.act(2, CC)
    result = hand.result()
    assert result.stacks == {1: 950, 2: 1050, 3: 1000}
    assert result.shown == {}  # a lone winner shows nothing
    assert hand.street == "preflop"


# Fixed Limit (rule 6)


def fl_hand() -> PlayedHand:
    return PlayedHand(
        setup({1: 10000, 2: 10000, 3: 10000}, button=3, sb=1, bb=2, betting="fl"), new_deck(random.Random(12))
    )


def raise_to_cap(hand: PlayedHand, amounts: Sequence[int]) -> None:
    for amount in amounts:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal()
        assert legal is not None
        assert (legal.min_to, legal.max_to) == (amount, amount)
        hand.act(seat, CBR, amount)
    seat = hand.to_act
    assert seat is not None
    assert hand.legal().min_to is None
    with pytest.raises(HandError, match=r"^Fixed Limit allows one bet and three raises a round\.$"):
        hand.act(seat, CBR, amounts[-1] + amounts[0])
    while hand.to_act is not None and hand.street == (street := hand.street):
        hand.act(hand.to_act, CC)
        if hand.street != street:
            break


def test_fixed_limit_caps_every_street_at_one_bet_and_three_raises():
    """PokerKit counts only raises before the flop (its Fixed Limit Hold'em lets the
    raises go on to 5 big blinds); here the big blind is the round's first bet."""
    hand = fl_hand()
    raise_to_cap(hand, [200, 300, 400])  # preflop: small bets, the big blind counts
    assert hand.street == "flop"
    raise_to_cap(hand, [100, 200, 300, 400])
    assert hand.street == "turn"
    raise_to_cap(hand, [200, 400, 600, 800])  # big bets from the turn
    assert hand.street == "river"
    raise_to_cap(hand, [200, 400, 600, 800])
    assert hand.over


def test_fixed_limit_bets_are_the_fixed_amount():
    hand = fl_hand()
    with pytest.raises(HandError, match=r"^In Fixed Limit the raise is to 200\.$"):
        hand.act(3, CBR, 300)


def test_library_omaha_hi_lo_is_pot_limit_without_a_cap_ours_is_fixed_limit():
    """PokerKit's FixedLimitOmahaHoldemHighLowSplitEightOrBetter plays pot limit: the
    first raise may go to 350 with blinds 50/100, and there is no cap."""
    state = FixedLimitOmahaHoldemHighLowSplitEightOrBetter.create_state(
        LIBRARY_AUTOMATIONS, False, 0, (50, 100), 100, 200, (10000,) * 3, 3
    )
    for hole in ("AsAhKdKc", "QsQhJdJc", "9s9hTdTc"):
        state.deal_hole(hole)
    assert state.max_completion_betting_or_raising_to_amount == 350
    for _ in range(6):
        state.complete_bet_or_raise_to()

    hand = PlayedHand(
        setup({1: 10000, 2: 10000, 3: 10000}, button=3, sb=1, bb=2, game="omaha_hilo", betting="fl"),
        new_deck(random.Random(13)),
    )
    assert hand.legal().max_to == 200
    raise_to_cap(hand, [200, 300, 400])


# All-ins and side pots


def test_three_all_ins_of_different_sizes_pay_each_side_pot_to_its_winner():
    # Order of action 1, 2, 3, 4 (button 4). The shortest has the best hand, the
    # next the second best, and so on.
    stacks = {1: 100, 2: 300, 3: 600, 4: 1000}
    deck = deck_for(["AsAh", "KsKh", "QsQh", "7c2d"], "3c8d5h2sJd")
    hand = PlayedHand(setup(stacks, button=4, sb=1, bb=2), deck)
    for seat in (3, 4, 1, 2):
        legal = hand.legal()
        assert legal is not None
        assert legal.seat == seat
        if legal.max_to is not None and legal.max_to > legal.call + hand.bet(seat):
            hand.act(seat, CBR, legal.max_to)
        else:
            hand.act(seat, CC)
    assert hand.over
    assert len(hand.board) == 5  # run out at once
    result = hand.result()
    assert [(pot.amount, pot.eligible, dict(pot.winners)) for pot in result.pots] == [
        (400, (1, 2, 3, 4), {1: 400}),
        (600, (2, 3, 4), {2: 600}),
        (600, (3, 4), {3: 600}),
    ]  # seat 4's raise to 1000 was called only to 600: the rest went back
    assert result.stacks == {1: 400, 2: 600, 3: 600, 4: 400}
    assert set(result.shown) == {1, 2, 3, 4}
    assert all(hand.all_in(seat) for seat in (1, 2, 3))


def test_short_all_in_big_blind_is_called_for_the_full_big_blind():
    """House rule. Plain PokerKit asks only for the big blind's 50 (its call amount
    is what the big blind could post); here the button calls 100 and the 50 over
    the big blind's chips is a side pot he is not eligible for."""
    state = NoLimitTexasHoldem.create_state(LIBRARY_AUTOMATIONS, False, 0, (50, 100), 100, (1000, 50, 1000), 3)
    for hole in ("AsAh", "QsQh", "9s9h"):
        state.deal_hole(hole)
    assert state.checking_or_calling_amount == 50

    deck = deck_for(["7c2d", "AsAh", "KsKh"], "3c8d9hTcJd")
    hand = PlayedHand(setup({1: 1000, 2: 50, 3: 1000}, button=3, sb=1, bb=2), deck)
    assert hand.bet(2) == 50
    assert hand.all_in(2)
    assert hand.legal() == hand.legal().__class__(3, False, 100, 200, 1000)
    hand.act(3, CC)
    hand.act(1, F)
    assert hand.over
    result = hand.result()
    assert [(pot.amount, pot.eligible, dict(pot.winners)) for pot in result.pots] == [
        (150, (2, 3), {2: 150}),  # 50 from each, the small blind's 50 included
        (50, (3,), {3: 50}),
    ]
    assert result.stacks == {1: 950, 2: 150, 3: 950}
    assert sum(result.stacks.values()) == 2050


def test_a_short_big_blind_whom_everyone_folds_to_wins_only_what_he_could_match():
    hand = PlayedHand(setup({1: 1000, 2: 30, 3: 1000}, button=3, sb=1, bb=2), new_deck(random.Random(14)))
    hand.act(3, F)
    hand.act(1, F)
    result = hand.result()
    assert result.stacks == {1: 970, 2: 60, 3: 1000}


def test_a_short_small_blind_posts_what_he_has():
    hand = PlayedHand(setup({1: 30, 2: 1000, 3: 1000}, button=3, sb=1, bb=2), new_deck(random.Random(15)))
    assert hand.bet(1) == 30
    assert hand.all_in(1)
    assert hand.legal().call == 100


# Split pots


def test_odd_chips_go_to_the_earliest_positions_after_the_button():
    # The board plays for both; the pot is 3 antes + 50 + 100 + 100 = 253.
    deck = deck_for(["7c2d", "3s4h", "3h4s"], "AsKsQsJsTs")
    hand = PlayedHand.play(
        setup(THREE, button=3, sb=1, bb=2, ante=1), deck, [Action(3, CC), Action(1, F), Action(2, CC)]
    )
    for _ in range(3):
        hand.act(2, CC)
        hand.act(3, CC)
    result = hand.result()
    assert result.pots[0].winners == {2: 127, 3: 126}
    assert result.pots[0].high_winners == (2, 3)


def omaha_hilo(
    stacks: dict[int, int], holes: Sequence[str], board: str, *, button: int, sb: int, bb: int, ante: int = 0
) -> PlayedHand:
    hand_setup = setup(stacks, button=button, sb=sb, bb=bb, ante=ante, game="omaha_hilo", betting="pl")
    return PlayedHand(hand_setup, deck_for(holes, board))


def check_down(hand: PlayedHand) -> None:
    while hand.to_act is not None:
        hand.act(hand.to_act, CC)


def test_hi_lo_splits_high_and_low_with_the_odd_chip_to_the_high_half():
    # Seat 1 has the nut low, seat 2 the high; ante 1 makes the pot odd: 3 + 300.
    hand = omaha_hilo(
        {1: 1000, 2: 1000, 3: 1000},
        ["As2sQhQc", "KsKcJhJd", "9s9c8h8d"],
        "3d4d7cKdTs",
        button=3,
        sb=1,
        bb=2,
        ante=1,
    )
    check_down(hand)
    pot = hand.result().pots[0]
    assert pot.amount == 303
    assert (pot.high_winners, pot.low_winners) == ((2,), (1,))
    assert pot.winners == {2: 152, 1: 151}


def test_hi_lo_without_a_qualifying_low_gives_the_whole_pot_to_the_high():
    hand = omaha_hilo(
        {1: 1000, 2: 1000, 3: 1000},
        ["AsAhQhQc", "KsKcJhJd", "9s9c8h8d"],
        "Kd9dTcQsJs",
        button=3,
        sb=1,
        bb=2,
    )
    check_down(hand)
    pot = hand.result().pots[0]
    assert pot.low_winners == ()
    assert dict(pot.winners) == {pot.high_winners[0]: 300}


HILO_STACKS = {1: 50, 2: 100, 3: 1000, 4: 1000}  # both blinds all in
# Seat 1 has the only low (main pot only), seat 2 the best high, seat 3 the second.
HILO_HOLES = ["3s4s6h6c", "AsAcJhJd", "QsQcThTd", "9s9c8h8d"]
HILO_BOARD = "2h5d7cKsKd"


def test_a_side_pot_without_a_low_among_its_players_goes_to_the_high():
    """PokerKit splits every pot high and low when any live player has a low; in the
    side pot of seats 2-4, where none has one, it shares the low half among the live
    players still there (seat 3, who wins the last side pot, takes 37 of it). Ours
    goes whole to the high hand."""
    automations = tuple(step for step in LIBRARY_AUTOMATIONS if step is not Automation.CARD_BURNING)
    library = FixedLimitOmahaHoldemHighLowSplitEightOrBetter.create_state(
        automations, False, 0, (50, 100, 0, 0), 100, 200, tuple(HILO_STACKS.values()), 4
    )
    for hole in HILO_HOLES:
        library.deal_hole(hole)
    library.check_or_call()
    library.check_or_call()
    for burnt, street in (("2c", "2h5d7c"), ("2d", "Ks"), ("3c", "Kd")):
        library.burn_card(burnt)
        library.deal_board(street)
        if street == "2h5d7c":
            library.complete_bet_or_raise_to(100)
        library.check_or_call()
        if library.actor_index is not None:
            library.check_or_call()
    assert library.stacks == [100, 213, 1037, 800]

    hand = omaha_hilo(HILO_STACKS, HILO_HOLES, HILO_BOARD, button=4, sb=1, bb=2)
    for seat, kind, amount in ((3, CC, None), (4, CC, None), (3, CBR, 100), (4, CC, None)):
        hand.act(seat, kind, amount)
    check_down(hand)
    result = hand.result()
    assert [(pot.amount, pot.eligible, dict(pot.winners)) for pot in result.pots] == [
        (200, (1, 2, 3, 4), {2: 100, 1: 100}),
        (150, (2, 3, 4), {2: 150}),
        (200, (3, 4), {3: 200}),
    ]
    assert result.stacks == {1: 100, 2: 250, 3: 1000, 4: 800}


# Hand histories


def played_hand() -> PlayedHand:
    deck = deck_for(["AsKd", "7c2d", "QhQc"], "3c8d9hTcJd")
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2, ante=10), deck)
    for action in (Action(3, CBR, 300), Action(1, CC), Action(2, F), Action(1, CC), Action(3, CBR, 400)):
        hand.act(*astuple(action))
    hand.act(1, CC)
    check_down(hand)
    return hand


def test_phh_loads_back_and_pokerkit_replays_it_to_our_result():
    hand = played_hand()
    text = phh(hand, names={1: "alice", 2: "bob", 3: "carol"}, event="Sunday", hand=12)
    history = HandHistory.loads(text)
    assert history.players == ["alice", "bob", "carol"]
    assert history.seats == [1, 2, 3]
    assert history.antes == [10, 10, 10]
    assert "d dh p1 AsKd" in history.actions
    assert history.user_defined_fields["_game"] == "holdem"
    final = list(history)[-1]
    assert final.stacks == [hand.result().stacks[seat] for seat in (1, 2, 3)]
    assert history.finishing_stacks == final.stacks


def test_phh_for_hides_other_players_hole_cards_unless_shown_down():
    hand = played_hand()
    mine = HandHistory.loads(phh_for(hand, 2)).actions
    assert "d dh p2 7c2d" in mine  # his own
    assert "d dh p1 AsKd" in mine  # shown down
    assert "d dh p3 QhQc" in mine
    spectator = HandHistory.loads(phh_for(hand, None)).actions
    assert "d dh p2 ????" in spectator  # folded: never shown
    folded_early = PlayedHand.play(hand.setup, hand.deck, [Action(3, CBR, 300), Action(1, F), Action(2, F)])
    assert "d dh p3 ????" in HandHistory.loads(phh_for(folded_early, 1)).actions


def test_phh_notes_a_short_big_blind_and_the_real_betting():
    hand = PlayedHand(setup({1: 1000, 2: 50, 3: 1000}, button=3, sb=1, bb=2, betting="pl"), new_deck(random.Random(2)))
    history = HandHistory.loads(phh(hand))
    assert history.starting_stacks == [1000, 100, 1000]
    assert history.user_defined_fields["_chips"] == [1000, 50, 1000]
    assert history.user_defined_fields["_betting"] == "pl"


# Replay


def test_replay_equals_live_play():
    live = played_hand()
    replay = PlayedHand.play(live.setup, live.deck, [Action.from_json(a.to_json()) for a in live.actions])
    assert replay.result() == live.result()
    assert phh(replay) == phh(live)


def test_replaying_an_illegal_stored_action_raises():
    with pytest.raises(HandError):
        PlayedHand.play(setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(1)), [Action(1, CC)])


# Hand ranking


RANKERS = {
    StandardHighHand: (_Ranker(StandardHighHand), 2),
    OmahaHoldemHand: (_Ranker(OmahaHoldemHand), 4),
    OmahaEightOrBetterLowHand: (_Ranker(OmahaEightOrBetterLowHand), 4),
}


@settings(max_examples=150, deadline=None)
@given(
    hand_type=st.sampled_from(list(RANKERS)),
    first=st.permutations(sorted(FULL_DECK)),
    second=st.permutations(sorted(FULL_DECK)),
)
def test_the_memoised_ranking_orders_hands_as_pokerkit_does(hand_type, first, second):
    ranker, hole_count = RANKERS[hand_type]
    board = first[:5]
    one, two = first[5 : 5 + hole_count], [card for card in second if card not in first[: 5 + hole_count]][:hole_count]

    def library(hole: Sequence[str]):
        try:
            return hand_type.from_game("".join(hole), "".join(board))
        except ValueError:
            return None

    ours = ranker.strength(one, board), ranker.strength(two, board)
    theirs = library(one), library(two)
    assert [s is None for s in ours] == [h is None for h in theirs]
    if None not in ours:
        assert (ours[0] > ours[1]) == (theirs[0] > theirs[1])
        assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])


# The big-blind ante


def bb_ante(stacks: dict[int, int], **kw: object) -> HandSetup:
    values: dict = {"button": 3, "sb": 1, "bb": 2, "ante": 100, "big_blind_ante": True} | kw
    return setup(stacks, **values)


def test_the_big_blind_posts_the_tables_ante_before_his_blind_and_nobody_else_posts_one():
    hand = PlayedHand(bb_ante(THREE), new_deck(random.Random(31)))
    assert [hand.stack(seat) for seat in (1, 2, 3)] == [950, 800, 1000]
    assert hand.bet(2) == 100  # the ante is no part of his bet
    assert hand.pot_total == 250
    assert hand.legal().call == 100  # the button calls the big blind, not blind and ante


def test_everyone_folding_to_the_big_blind_gives_him_back_his_ante_and_blind_and_the_small_blind():
    hand = PlayedHand.play(bb_ante(THREE), new_deck(random.Random(32)), [Action(3, F), Action(1, F)])
    assert hand.result().stacks == {1: 950, 2: 1050, 3: 1000}


def test_a_short_big_blind_posts_the_ante_first_and_plays_for_the_main_pot_with_the_dead_ante():
    # 150 chips: the 100 ante, dead, then 50 of his blind. The main pot is the ante and
    # 50 from each of the three; the rest of the calls is a side pot he cannot win.
    deck = deck_for(["7c2d", "AsAh", "KsKh"], "4c8d9hJs3d")
    hand = PlayedHand(bb_ante({1: 1000, 2: 150, 3: 1000}), deck)
    assert hand.all_in(2)
    assert hand.bet(2) == 50
    hand.act(3, CBR, hand.legal().max_to)
    hand.act(1, CC)
    result = hand.result()
    assert [pot.amount for pot in result.pots] == [250, 1900]
    assert result.pots[0].winners == {2: 250}  # aces: the ante and what he matched
    assert result.pots[1].winners == {3: 1900}  # kings: the side pot
    assert result.stacks == {1: 0, 2: 250, 3: 1900}


def test_a_big_blind_with_less_than_the_ante_puts_it_all_in_as_ante_and_can_win_only_the_ante():
    deck = deck_for(["7c2d", "AsAh", "KsKh"], "4c8d9hJs3d")
    hand = PlayedHand.play(bb_ante({1: 1000, 2: 60, 3: 1000}), deck, [Action(3, CC), Action(1, CC)])
    while not hand.over:
        hand.act(hand.to_act, CC)
    result = hand.result()
    assert result.pots[0].amount == 60
    assert result.pots[0].winners == {2: 60}
    assert result.stacks[2] == 60
    assert sum(result.stacks.values()) == 2060


def test_heads_up_the_big_blind_alone_posts_the_ante():
    hand = PlayedHand.play(
        bb_ante({1: 1000, 2: 1000}, button=1, sb=1, bb=2), new_deck(random.Random(33)), [Action(1, F)]
    )
    assert hand.result().stacks == {1: 950, 2: 1050}


def test_a_big_blind_ante_hand_exports_its_ante_on_the_big_blinds_position_and_pokerkit_replays_it():
    deck = deck_for(["7c2d", "AsAh", "KsKh"], "4c8d9hJs3d")
    hand = PlayedHand.play(bb_ante(THREE), deck, [Action(3, CBR, 300), Action(1, F), Action(2, CC)])
    while not hand.over:
        hand.act(hand.to_act, CC)
    history = HandHistory.loads(phh(hand))
    assert history.antes == [0, 100, 0]
    assert history.blinds_or_straddles == [50, 100, 0]
    final = list(history)[-1]
    assert final.stacks == [hand.result().stacks[seat] for seat in (1, 2, 3)] == [950, 1350, 700]
    replayed = PlayedHand.play(HandSetup.from_json(hand.setup.to_json()), hand.deck, hand.actions)
    assert replayed.result() == hand.result()


def test_a_real_big_blind_ante_hand_from_the_2023_wsop_plays_to_its_recorded_stacks():
    # 2023 WSOP Event #43 ($50,000 Poker Players Championship), day 5, hand 3, as PokerKit's
    # PHH data set records it (data/wsop/2023/43/5/00-15-36.phh): blinds 50,000/100,000
    # and a big-blind ante of 150,000. Seat 1 is the small blind, seat 5 the button.
    deck = deck_for(["Qd8s", "Ts2d", "4c3s", "7s5h", "QcTc"], "Th8c5d9dJd")
    stacks = {1: 4_100_000, 2: 8_775_000, 3: 4_550_000, 4: 8_525_000, 5: 3_750_000}
    played = [
        Action(3, F),
        Action(4, F),
        Action(5, CBR, 200_000),
        Action(1, F),
        Action(2, CC),
        Action(2, CC),  # flop
        Action(5, CBR, 175_000),
        Action(2, CC),
        Action(2, CC),  # turn
        Action(5, CC),
        Action(2, CBR, 225_000),  # river
        Action(5, CBR, 700_000),
        Action(2, F),
    ]
    hand = PlayedHand.play(bb_ante(stacks, button=5, small_blind=50_000, big_blind=100_000, ante=150_000), deck, played)
    recorded = [4_050_000, 8_025_000, 4_550_000, 8_525_000, 4_550_000]
    assert [hand.result().stacks[seat] for seat in sorted(stacks)] == recorded
    history = HandHistory.loads(phh(hand))
    assert history.antes == [0, 150_000, 0, 0, 0]
    assert history.blinds_or_straddles == [50_000, 100_000, 0, 0, 0]
    assert list(history)[-1].stacks == recorded


# What each seat did on this street


def test_each_seat_shows_its_last_action_until_the_street_ends():
    hand = PlayedHand(setup(THREE, button=3, sb=1, bb=2), new_deck(random.Random(41)))
    hand.act(3, CBR, 300)
    hand.act(1, CC)
    assert hand.shown().said == {3: ("raise", 300), 1: ("call", None)}
    hand.act(2, CC)  # the big blind calls: the flop is dealt, the street's actions are gone
    assert len(hand.board) == 3
    assert hand.shown().said == {}
    hand.act(1, CC)
    hand.act(2, CBR, 400)
    hand.act(3, F)
    assert hand.shown().said == {1: ("check", None), 2: ("bet", 400), 3: ("fold", None)}


def test_a_call_for_every_chip_shows_as_all_in():
    hand = PlayedHand(setup({1: 1000, 2: 1000, 3: 250}, button=3, sb=1, bb=2), new_deck(random.Random(42)))
    hand.act(3, CBR, 250)
    assert hand.shown().said == {3: ("all_in", None)}


def test_the_hands_story_is_every_action_with_its_chips_and_every_street_with_its_cards():
    deck = deck_for(["7c2d", "AsAh", "KsKh"], "4c8d9hJs3d")
    hand = PlayedHand.play(
        setup(THREE, button=3, sb=1, bb=2),
        deck,
        [Action(3, CBR, 300), Action(1, CC), Action(2, F), Action(1, CC), Action(3, CBR, 400), Action(1, CBR, 700)],
    )
    assert hand.shown().log == (
        LogLine("raise", 3, 300),
        LogLine("call", 1, 250),  # the small blind had 50 in
        LogLine("fold", 2),
        LogLine("flop", cards=("4c", "8d", "9h")),
        LogLine("check", 1),
        LogLine("bet", 3, 400),
        LogLine("raise", 1, 700),
    )


def test_a_showdown_names_the_hand_each_player_made():
    deck = deck_for(["7c7d", "AsAh", "KsKh"], "7h8d9hJs3h")
    hand = PlayedHand.play(setup(THREE, button=3, sb=1, bb=2), deck, [Action(3, CC), Action(1, CC), Action(2, CC)])
    while not hand.over:
        hand.act(hand.to_act, CC)
    assert hand.result().made == {1: "three_of_a_kind", 2: "one_pair", 3: "one_pair"}
