"""What each player gets in a deal: ICM, chip chop, equal split, custom amounts
(rule 23; ALGORITHMS C7)."""

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deals.rules import (
    Comparison,
    check_custom,
    check_room_minimum,
    chip_chop,
    compare,
    equal_split,
    icm,
    icm_exact,
    icm_split,
    largest_remainder,
)

SPLITS = (icm_split, chip_chop, equal_split)


# ICM


@pytest.mark.parametrize("equities", [icm, icm_exact])
def test_icm_matches_the_published_example(equities):
    # The textbook four-handed example: 5,000/3,000/1,500/500 chips, 500/300/200 paid.
    assert [round(float(equity), 2) for equity in equities([5_000, 3_000, 1_500, 500], [500, 300, 200])] == [
        377.78,
        312.89,
        225.60,
        83.73,
    ]


def test_heads_up_icm_is_second_prize_plus_the_difference_by_chips():
    # 3:1 in chips: 300 for sure, 75 % of the other 200.
    assert icm_exact([3_000, 1_000], [500, 300]) == [450, 350]


def test_a_winner_takes_all_icm_is_the_chip_share():
    assert icm_exact([1, 2, 3, 4], [1_000]) == [100, 200, 300, 400]


def test_players_without_chips_take_the_lowest_places_and_split_them():
    # The two busted players share 3rd and 4th: (15 + 5) / 2. The others play heads-up for 50 and 30.
    assert icm_exact([600, 400, 0, 0], [50, 30, 15, 5]) == [42, 38, 10, 10]


def test_a_single_player_with_chips_wins_first_and_the_rest_split_the_others():
    assert icm_exact([0, 900, 0], [70, 20, 11]) == [Fraction(31, 2), 70, Fraction(31, 2)]


def test_unpaid_places_pay_nothing():
    assert icm_exact([1_000, 1_000, 1_000, 1_000], [300, 100]) == [100, 100, 100, 100]


def test_equal_prizes_for_every_place_give_everyone_that_prize_exactly():
    assert icm([1, 10, 100, 1_000], [250, 250, 250, 250]) == [250.0] * 4


def test_icm_in_floats_agrees_with_the_exact_fractions():
    rng = random.Random(7)
    for _ in range(20):
        players = rng.randint(2, 8)
        stacks = [rng.randint(0, 10**6) for _ in range(players)]
        stacks[0] += 1
        prizes = sorted((rng.randint(0, 10**6) for _ in range(rng.randint(1, players))), reverse=True)

        for fast, exact in zip(icm(stacks, prizes), icm_exact(stacks, prizes), strict=True):
            assert fast == pytest.approx(float(exact), rel=1e-12, abs=1e-9)


def test_twenty_players_are_worked_out():
    stacks = [1_000 * (player % 7 + 1) for player in range(20)]
    prizes = [5_000, 3_000, 2_000, 1_200, 800]

    equities = icm(stacks, prizes)

    assert sum(equities) == pytest.approx(12_000)
    assert equities[0] == equities[7] == equities[14]  # 1,000 chips each
    assert equities[6] > equities[5]  # 7,000 chips against 6,000
    assert sum(icm_split(stacks, prizes)) == 12_000


@pytest.mark.parametrize(
    ("stacks", "prizes", "message"),
    [
        ([100, 100], [], "at least one prize"),
        ([100], [70, 30], "places 1 to 1"),
        ([100, -1], [70, 30], "chip count cannot be negative"),
        ([0, 0], [70, 30], "has chips"),
        ([100, 100], [70, -30], "prize cannot be negative"),
        ([100, 100], [30, 70], "never increase"),
    ],
)
def test_icm_refuses_what_is_not_a_deal(stacks, prizes, message):
    with pytest.raises(ValueError, match=message):
        icm(stacks, prizes)


# Chip chop and equal split


def test_chip_chop_with_unpaid_places_goes_by_chips_alone():
    # Four players, three prizes: the lowest remaining prize is 4th place's 0.
    assert chip_chop([5_000, 3_000, 1_500, 500], [500, 300, 200]) == [500, 300, 150, 50]


def test_chip_chop_gives_everyone_the_lowest_prize_then_the_rest_by_chips():
    # 100 each for sure; the other 600 by chips 50:30:15:5.
    assert chip_chop([5_000, 3_000, 1_500, 500], [400, 300, 200, 100]) == [400, 280, 190, 130]


def test_chip_chop_rounds_once_by_largest_remainder():
    # 4 each for sure, then 7 by chips 1:1:1 = 2.33 each: the odd unit to the first.
    assert chip_chop([7, 7, 7], [9, 6, 4]) == [7, 6, 6]


def test_heads_up_chip_chop_and_icm_agree():
    assert chip_chop([3_000, 1_000], [500, 300]) == icm_split([3_000, 1_000], [500, 300]) == [450, 350]


def test_equal_split_gives_the_odd_unit_to_the_first_player():
    assert equal_split([1, 2, 3], [600, 300, 100]) == [334, 333, 333]


def test_icm_split_rounds_the_published_example_to_the_minor_unit():
    # Equities 377.7807, 312.8888, 225.6025, 83.7280 in units: the two leftover
    # minor units go to .88 and .80.
    assert icm_split([5_000, 3_000, 1_500, 500], [50_000, 30_000, 20_000]) == [37_778, 31_289, 22_560, 8_373]


# Play for ("save")


def test_play_for_comes_off_the_first_prize_before_the_split():
    # Prizes 300/300/200/100 are shared: 100 each for sure, the other 500 by chips.
    assert chip_chop([5_000, 3_000, 1_500, 500], [400, 300, 200, 100], play_for=100) == [350, 250, 175, 125]
    assert equal_split([1, 1, 1], [600, 300, 100], play_for=100) == [300, 300, 300]


@pytest.mark.parametrize("split", SPLITS)
def test_the_whole_first_prize_may_be_left_to_play_for(split):
    assert sum(split([3_000, 1_000], [500, 300], play_for=500)) == 300


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("play_for", [-1, 501])
def test_play_for_outside_zero_to_the_first_prize_is_refused(split, play_for):
    with pytest.raises(ValueError, match=r"between 0 and the first prize \(5\.00\)"):
        split([3_000, 1_000], [500, 300], play_for=play_for)


# Custom deals


def test_custom_amounts_that_add_up_are_accepted():
    check_custom([450, 350, 0], [500, 300], play_for=0)
    check_custom([400, 300], [500, 300], play_for=100)


def test_custom_amounts_that_fall_short_say_by_how_much():
    with pytest.raises(ValueError, match=r"add up to 7\.50 but the deal shares 7\.00 .*: 0\.50 too much"):
        check_custom([450, 300], [500, 300], play_for=100)
    with pytest.raises(ValueError, match=r"0\.01 short"):
        check_custom([449, 350], [500, 300])


def test_negative_custom_amounts_are_refused():
    with pytest.raises(ValueError, match="cannot be negative"):
        check_custom([900, -100], [500, 300])


def test_custom_amounts_need_one_a_player():
    with pytest.raises(ValueError, match="every player in the deal needs an amount"):
        check_custom([800], [500, 300])
    with pytest.raises(ValueError, match="one amount a player"):
        compare([3_000, 1_000, 500], [500, 300], 0, [500, 300])


def test_compare_puts_a_proposal_beside_icm_and_chip_chop():
    lines = compare([5_000, 3_000, 1_500, 500], [50_000, 30_000, 20_000], 0, [40_000, 30_000, 20_000, 10_000])

    assert lines == [
        Comparison(40_000, 37_778, 50_000),
        Comparison(30_000, 31_289, 30_000),
        Comparison(20_000, 22_560, 15_000),
        Comparison(10_000, 8_373, 5_000),
    ]
    assert [line.over_icm for line in lines] == [2_222, -1_289, -2_560, 1_627]


def test_compare_takes_play_for_off_every_method():
    lines = compare([3_000, 1_000], [500, 300], 100, [400, 300])

    assert lines == [Comparison(400, 375, 375), Comparison(300, 325, 325)]


# Largest remainder


def test_largest_remainder_gives_leftover_units_to_the_largest_fractions():
    # 10 * (1, 2, 4) / 7 = 1.43, 2.86, 5.71.
    assert largest_remainder([1, 2, 4], 10) == [1, 3, 6]


def test_largest_remainder_ties_go_to_the_lowest_index():
    assert largest_remainder([1, 1, 1], 100) == [34, 33, 33]
    assert largest_remainder([Fraction(1, 3)] * 4, 2) == [1, 1, 0, 0]


def test_float_noise_below_two_to_the_minus_32_is_a_tie():
    # 0.1 + 0.2 is a hair above 0.3: the second share is larger only by float noise.
    assert 0.1 + 0.2 > 0.3
    assert largest_remainder([0.3, 0.1 + 0.2], 1) == [1, 0]


def test_largest_remainder_is_exact_for_huge_totals():
    assert largest_remainder([1, 2], 10**20 + 1) == [33_333_333_333_333_333_334, 66_666_666_666_666_666_667]


@pytest.mark.parametrize(("shares", "total"), [([1], -1), ([], 10), ([0, 0], 10), ([2, -1], 10)])
def test_largest_remainder_refuses_what_cannot_be_split(shares, total):
    with pytest.raises(ValueError, match="cannot split"):
        largest_remainder(shares, total)


# Properties

PROPERTY = settings(database=None, deadline=None, max_examples=150)


@st.composite
def deals(draw, max_players=7, min_chips=0, play_for=True):
    """Stacks (someone has chips), a payout table for places 1 to at most N, and an
    amount to play for between 0 and the first prize."""
    stacks = draw(st.lists(st.integers(min_chips, 10**7), min_size=1, max_size=max_players).filter(any))
    paid = draw(st.integers(1, len(stacks)))
    prizes = sorted(draw(st.lists(st.integers(0, 10**8), min_size=paid, max_size=paid)), reverse=True)
    left = draw(st.integers(0, prizes[0])) if play_for else 0
    return stacks, prizes, left


@PROPERTY
@given(deal=deals())
def test_every_split_adds_up_to_the_prizes_less_play_for_exactly(deal):
    stacks, prizes, play_for = deal

    for split in SPLITS:
        amounts = split(stacks, prizes, play_for)
        assert len(amounts) == len(stacks)
        assert sum(amounts) == sum(prizes) - play_for
        assert min(amounts) >= 0
        check_custom(amounts, prizes, play_for)


@PROPERTY
@given(deal=deals())
def test_icm_equities_add_up_to_the_prizes(deal):
    stacks, prizes, _ = deal

    assert sum(icm_exact(stacks, prizes)) == sum(prizes)
    assert sum(icm(stacks, prizes)) == pytest.approx(sum(prizes), rel=1e-12)


@PROPERTY
@given(deal=deals(), copies=st.integers(2, 3))
def test_equal_stacks_get_exactly_equal_equities_and_amounts_within_a_minor_unit(deal, copies):
    stacks, prizes, play_for = deal
    stacks = stacks + [stacks[0]] * (copies - 1)  # the first stack, and copies of it at the end
    equal = [0, *range(len(stacks) - copies + 1, len(stacks))]

    for equities in (icm(stacks, prizes), icm_exact(stacks, prizes)):
        assert len({equities[player] for player in equal}) == 1
    for split in SPLITS:
        amounts = [split(stacks, prizes, play_for)[player] for player in equal]
        assert max(amounts) - min(amounts) <= 1


@PROPERTY
@given(deal=deals(play_for=False), data=st.data())
def test_more_chips_never_get_less(deal, data):
    stacks, prizes, _ = deal
    # Leaving more to play for than first place's lead over second would make first
    # place pay less than second: then fewer chips can be worth more.
    lead = prizes[0] - (prizes[1] if len(prizes) > 1 else 0)
    play_for = data.draw(st.integers(0, lead))
    table = [prizes[0] - play_for, *prizes[1:]]
    equities = icm(stacks, table)
    by_icm = icm_split(stacks, prizes, play_for)
    by_chips = chip_chop(stacks, prizes, play_for)

    for more, fewer in itertools.permutations(range(len(stacks)), 2):
        if stacks[more] > stacks[fewer]:
            assert equities[more] >= equities[fewer]
            assert by_icm[more] >= by_icm[fewer]
            assert by_chips[more] >= by_chips[fewer]


@PROPERTY
@given(deal=deals(min_chips=1), busted=st.integers(1, 3))
def test_players_without_chips_split_the_lowest_places_whatever_the_others_hold(deal, busted):
    stacks, prizes, _ = deal
    stacks = stacks + [0] * busted
    table = [*prizes, *[0] * (len(stacks) - len(prizes))]

    equities = icm_exact(stacks, prizes)

    assert equities[-busted:] == [Fraction(sum(table[-busted:]), busted)] * busted


@PROPERTY
@given(deal=deals(), extra=st.integers(1, 10**6))
def test_play_for_beyond_the_first_prize_is_always_refused(deal, extra):
    stacks, prizes, _ = deal

    for split in SPLITS:
        with pytest.raises(ValueError, match="between 0 and the first prize"):
            split(stacks, prizes, prizes[0] + extra)
        with pytest.raises(ValueError, match="between 0 and the first prize"):
            split(stacks, prizes, -extra)


@PROPERTY
@given(
    total=st.integers(0, 10**12),
    shares=st.lists(
        st.integers(0, 10**6) | st.floats(0, 10**6) | st.fractions(min_value=0, max_value=10**6),
        min_size=1,
        max_size=20,
    ).filter(any),
)
def test_largest_remainder_is_exact_and_within_one_unit_of_the_share(total, shares):
    parts = largest_remainder(shares, total)
    weights = [Fraction(share) for share in shares]
    quotas = [total * weight / sum(weights) for weight in weights]

    assert sum(parts) == total
    assert all(quota - 1 < part < quota + 1 for part, quota in zip(parts, quotas, strict=True))


def test_a_deal_leaves_at_least_what_the_room_requires_for_the_winner():
    check_room_minimum(500, 500)
    check_room_minimum(900, 500)
    check_room_minimum(0, 0)
    with pytest.raises(ValueError, match=r"at least 5\.00 left to play for, as the lobby shows, not 4\.99"):
        check_room_minimum(499, 500)
