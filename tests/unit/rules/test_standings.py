"""Places and prizes of players out in the same hand (rule 12; ALGORITHMS C5)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.standings import Finish, bust_places, prizes

PAYOUTS = [500, 300, 200, 120, 80, 50]


def test_two_players_out_in_one_hand_with_equal_stacks_share_fifth_and_sixth_and_split_their_prizes():
    finishes = bust_places({11: 3_000, 12: 3_000}, players_left=6)
    assert finishes == [Finish(11, 5, 6), Finish(12, 5, 6)]
    # 80 + 50 = 130, split: 65 each.
    assert prizes(finishes, PAYOUTS) == {11: 65, 12: 65}


def test_the_odd_minor_unit_of_a_split_goes_to_the_lower_key():
    finishes = bust_places({7: 100, 3: 100}, players_left=6)
    assert prizes(finishes, [500, 300, 200, 120, 80, 51]) == {3: 66, 7: 65}


def test_more_chips_at_the_start_of_the_hand_take_the_better_place():
    finishes = bust_places({1: 500, 2: 200, 3: 200, 4: 900}, players_left=10)
    assert finishes == [Finish(4, 7, 7), Finish(1, 8, 8), Finish(2, 9, 10), Finish(3, 9, 10)]


def test_places_past_the_paid_ones_win_nothing():
    finishes = bust_places({1: 100, 2: 100}, players_left=7)  # places 6 and 7; six are paid
    assert prizes(finishes, PAYOUTS) == {1: 25, 2: 25}
    assert prizes(bust_places({5: 10}, players_left=9), PAYOUTS) == {5: 0}


@settings(max_examples=200, deadline=None)
@given(players=st.integers(2, 40), seed=st.integers(0, 10**6), paid=st.integers(1, 12))
def test_every_place_is_given_once_and_the_prizes_sum_exactly(players, seed, paid):
    rng = random.Random(seed)
    payouts = sorted((rng.randint(1, 10_000) for _ in range(min(paid, players))), reverse=True)
    stacks = {player: rng.choice([100, 200, 300]) for player in range(players)}
    left = list(stacks)
    finishes = []
    while len(left) > 1:
        out = rng.sample(left, rng.randint(1, len(left) - 1))
        finishes += bust_places({player: stacks[player] for player in out}, players_left=len(left))
        left = [player for player in left if player not in out]
    finishes.append(Finish(left[0], 1, 1))
    covered = sorted(place for finish in finishes for place in range(finish.best, finish.worst + 1))
    # Each place is covered by as many players as share it: once per player.
    assert sorted(set(covered)) == list(range(1, players + 1))
    for finish in finishes:
        assert sum(1 for other in finishes if (other.best, other.worst) == (finish.best, finish.worst)) == (
            finish.worst - finish.best + 1
        )
    won = prizes(finishes, payouts)
    assert sum(won.values()) == sum(payouts)
