"""Rolling the prize pool forward when an event is cancelled after the start (rule 22; ALGORITHMS C10)."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.cancellation import roll_forward
from tournaments.rules.payouts import PrizeStructure, payout_table

# Before the money


def test_before_the_money_half_is_shared_equally_and_half_by_chips():
    # Three left, two places: 5,000 equally (1,666.67 each), 5,000 by chips 3:1:0.
    shares = roll_forward(pool=10_000, chips={7: 30_000, 9: 10_000, 11: 0}, payouts=[7_000, 3_000])

    assert shares == {7: 1_667 + 3_750, 9: 1_667 + 1_250, 11: 1_666}


def test_equal_stacks_get_equal_shares():
    shares = roll_forward(pool=9_000, chips={1: 5_000, 2: 5_000, 3: 5_000, 4: 5_000}, payouts=[5_000, 3_000, 1_000])

    assert shares == {1: 2_250, 2: 2_250, 3: 2_250, 4: 2_250}


def test_an_odd_minor_unit_goes_to_the_lower_player_id_on_a_tie():
    shares = roll_forward(pool=1_001, chips={5: 100, 3: 100}, payouts=[1_001])

    # Two players, one place paid: not in the money.
    assert shares == {3: 501, 5: 500}


def test_a_player_without_chips_still_gets_the_equal_half():
    shares = roll_forward(pool=1_000, chips={1: 0, 2: 500}, payouts=[1_000])

    assert shares == {1: 250, 2: 750}


# In the money


def test_in_the_money_each_gets_the_lowest_unawarded_prize_and_the_rest_by_chips():
    # Three left of four places: everyone is sure of 3rd place (2,000); the rest of
    # the pool (9,000 - 6,000) goes by chips 2:1:1.
    payouts = [5_000, 3_000, 2_000, 1_000]
    pool = 10_000 - 1_000  # 4th place was paid when that player went out

    shares = roll_forward(pool=pool, chips={1: 20_000, 2: 10_000, 3: 10_000}, payouts=payouts)

    rest = pool - 3 * 2_000
    assert shares == {1: 2_000 + rest // 2, 2: 2_000 + rest // 4, 3: 2_000 + rest // 4}
    assert sum(shares.values()) == pool


def test_exactly_as_many_players_as_places_is_in_the_money():
    shares = roll_forward(pool=900, chips={1: 1, 2: 2}, payouts=[600, 300])

    # Both are sure of 300; the other 300 by chips 1:2.
    assert shares == {1: 400, 2: 500}


def test_the_last_player_left_takes_the_whole_pool():
    assert roll_forward(pool=12_345, chips={4: 99}, payouts=[12_345]) == {4: 12_345}


# Refusals


def test_no_remaining_player_cannot_take_a_pool():
    with pytest.raises(ValueError, match="no remaining player"):
        roll_forward(pool=100, chips={}, payouts=[100])


def test_nobody_and_nothing_left_is_nothing_to_share():
    assert roll_forward(pool=0, chips={}, payouts=[]) == {}


@pytest.mark.parametrize(("pool", "chips"), [(-1, {1: 10}), (100, {1: -5, 2: 10})])
def test_negative_pools_and_stacks_are_refused(pool, chips):
    with pytest.raises(ValueError, match="negative"):
        roll_forward(pool=pool, chips=chips, payouts=[100])


def test_a_pool_short_of_the_lowest_prizes_is_refused():
    with pytest.raises(ValueError, match="less than"):
        roll_forward(pool=500, chips={1: 10, 2: 10}, payouts=[600, 300])


# Properties

PROPERTY = settings(database=None, deadline=None)
stacks = st.dictionaries(
    st.integers(min_value=1, max_value=10**6), st.integers(min_value=0, max_value=10**9), min_size=1, max_size=60
)


@st.composite
def events(draw):
    """A cancelled event: its remaining players, its table, and what is left in the pool."""
    chips = draw(stacks)
    entrants = draw(st.integers(min_value=len(chips), max_value=len(chips) + 500))
    full_pool = draw(st.integers(min_value=0, max_value=10**10))
    payouts = payout_table(structure=PrizeStructure.STANDARD, entrants=entrants, pool=full_pool)
    # Prizes of the places below the remaining players were paid as they went out.
    left = full_pool - sum(payouts[len(chips) :])
    return chips, payouts, left


@PROPERTY
@given(event=events())
def test_shares_add_up_exactly_to_the_pool_and_are_never_negative(event):
    chips, payouts, pool = event

    shares = roll_forward(pool=pool, chips=chips, payouts=payouts)

    assert set(shares) == set(chips)
    assert sum(shares.values()) == pool
    assert all(share >= 0 for share in shares.values())


@PROPERTY
@given(event=events())
def test_more_chips_never_gets_less(event):
    chips, payouts, pool = event

    shares = roll_forward(pool=pool, chips=chips, payouts=payouts)

    by_stack = sorted(chips, key=lambda player: chips[player])
    for lower, higher in itertools.pairwise(by_stack):
        if chips[higher] > chips[lower]:
            assert shares[higher] >= shares[lower]


@PROPERTY
@given(event=events())
def test_in_the_money_nobody_gets_less_than_the_lowest_unawarded_prize(event):
    chips, payouts, pool = event

    shares = roll_forward(pool=pool, chips=chips, payouts=payouts)

    if 0 < len(chips) <= len(payouts):
        assert min(shares.values()) >= payouts[len(chips) - 1]


@PROPERTY
@given(
    chips=stacks,
    pool=st.integers(min_value=0, max_value=10**12),
)
def test_before_the_money_everyone_gets_at_least_half_an_equal_share(chips, pool):
    shares = roll_forward(pool=pool, chips=chips, payouts=[])

    floor = pool // (2 * len(chips))
    assert min(shares.values()) >= floor
    assert sum(shares.values()) == pool
