"""Whose bounty goes to whom (rules 24-26), on pots as the hands record them."""

import pytest

from tournaments.rules.bounties import PotWinners, bounty_shares, knockouts

# Rule 24's example at seats 1-4: Daniel (1) 100, Barry (2) 200, Vicky (3) 400, Julian (4) 1,000.
EXAMPLE = [
    PotWinners(eligible=(1, 2, 3, 4), high=(2,)),  # the main pot: Barry
    PotWinners(eligible=(2, 3, 4), high=(2,)),  # side pot 1: Barry
    PotWinners(eligible=(3, 4), high=(4,)),  # side pot 2: Julian
    PotWinners(eligible=(4,), high=(4,)),  # Julian's uncalled chips back
]


def test_each_player_out_goes_to_the_winners_of_the_last_pot_he_was_in():
    assert knockouts(EXAMPLE, [1, 3]) == {1: (2,), 3: (4,)}


def test_a_tied_pot_splits_the_bounty_and_the_odd_cents_go_first_after_the_button():
    # Button at seat 5 of 6: seat 6 comes first, then 1, then 2.
    assert bounty_shares(1000, [2, 6, 1], button=5, seats=[1, 2, 3, 4, 5, 6]) == {6: 334, 1: 333, 2: 333}
    assert bounty_shares(500, [2, 6, 1], button=5, seats=[1, 2, 3, 4, 5, 6]) == {6: 167, 1: 167, 2: 166}


def test_a_negative_bounty_is_refused():
    with pytest.raises(ValueError, match="negative"):
        bounty_shares(-1, [1], button=1, seats=[1, 2])
