"""Prize pool and payout tables (rules 7, 11; ALGORITHMS C8)."""

import itertools
import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.payouts import (
    CURRENCY_UNIT,
    PrizeStructure,
    largest_remainder,
    payout_table,
    places_paid,
    prize_pool,
    rounded_down_to_first,
)

CURVED = (PrizeStructure.STANDARD, PrizeStructure.TOP_HEAVY, PrizeStructure.FLAT)
WITH_PLACES = (*CURVED, PrizeStructure.WINNER_TAKES_ALL)


def is_non_increasing(prizes: list[int]) -> bool:
    return all(before >= after for before, after in itertools.pairwise(prizes))


# Prize pool


def test_prize_pool_is_the_guarantee_when_entries_fall_short():
    assert prize_pool(contributions=60_000, guarantee=100_000) == 100_000


def test_prize_pool_is_the_entries_when_they_beat_the_guarantee():
    assert prize_pool(contributions=160_000, guarantee=100_000) == 160_000


def test_prize_pool_without_a_guarantee_is_the_entries():
    assert prize_pool(contributions=7_300, guarantee=0) == 7_300


# Places paid


@pytest.mark.parametrize("structure", WITH_PLACES)
@pytest.mark.parametrize("entrants", [1, 2, 3])
def test_three_or_fewer_entrants_pay_one_place(structure, entrants):
    assert places_paid(structure, entrants) == 1


def test_no_entrants_pay_no_places():
    assert places_paid(PrizeStructure.STANDARD, 0) == 0
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=0, pool=1_000) == []


def test_winner_takes_all_pays_one_place_however_big_the_field():
    assert places_paid(PrizeStructure.WINNER_TAKES_ALL, 10_000) == 1
    assert payout_table(structure=PrizeStructure.WINNER_TAKES_ALL, entrants=10_000, pool=123_457) == [123_457]


@pytest.mark.parametrize(("entrants", "paid"), [(100, 15), (180, 27), (1_000, 150), (5_000, 750)])
def test_standard_pays_about_15_percent_of_the_field(entrants, paid):
    assert places_paid(PrizeStructure.STANDARD, entrants) == paid


def test_top_heavy_pays_fewer_places_and_flat_more_than_standard():
    assert places_paid(PrizeStructure.TOP_HEAVY, 1_000) == 100
    assert places_paid(PrizeStructure.FLAT, 1_000) == 200


@pytest.mark.parametrize(("entrants", "paid"), [(4, 2), (6, 2), (7, 3), (19, 3), (20, 3), (21, 3), (27, 4)])
def test_small_fields_pay_at_least_two_or_three_places(entrants, paid):
    assert places_paid(PrizeStructure.STANDARD, entrants) == paid


@pytest.mark.parametrize("structure", CURVED)
def test_never_every_entrant_is_paid(structure):
    assert all(places_paid(structure, entrants) < entrants for entrants in range(2, 300))


# Payout table


@pytest.mark.parametrize("structure", CURVED)
def test_payout_table_adds_up_to_the_pool_with_first_place_largest(structure):
    prizes = payout_table(structure=structure, entrants=180, pool=1_234_567)

    assert sum(prizes) == 1_234_567
    assert len(prizes) == places_paid(structure, 180)
    assert prizes[0] > prizes[1]
    assert is_non_increasing(prizes)


def test_standard_payouts_follow_the_harmonic_curve():
    # Places paid 1/k of the first's share: 60/110, 30/110, 20/110 of the pool.
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=7, pool=1_100) == [600, 300, 200]


def test_top_heavy_gives_first_place_more_than_standard_and_flat_less():
    first = {s: payout_table(structure=s, entrants=1_000, pool=1_000_000)[0] for s in CURVED}

    assert first[PrizeStructure.TOP_HEAVY] > first[PrizeStructure.STANDARD] > first[PrizeStructure.FLAT]


def test_a_single_place_takes_the_whole_pool():
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=3, pool=9_999) == [9_999]


def test_an_empty_pool_pays_nobody():
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=100, pool=0) == []


def test_every_paid_place_cashes_in_a_big_field_with_a_small_pool():
    prizes = payout_table(structure=PrizeStructure.STANDARD, entrants=5_000, pool=750)

    assert len(prizes) == 750
    assert min(prizes) == 1
    assert sum(prizes) == 750
    assert is_non_increasing(prizes)


def test_a_big_field_pays_out_in_milliseconds():
    # Lobby pages recompute this on every registration (rule 7). The bound is loose
    # enough for a busy machine and still catches the exact-fraction blow-up a flat
    # table once suffered.
    began = time.perf_counter()
    for structure in CURVED:
        assert sum(payout_table(structure=structure, entrants=5_000, pool=10**9)) == 10**9

    assert time.perf_counter() - began < 1


def test_small_fields_pay_one_place_then_two_then_three():
    assert [places_paid(PrizeStructure.STANDARD, entrants) for entrants in range(1, 10)] == [1, 1, 1, 2, 2, 2, 3, 3, 3]


@pytest.mark.parametrize("structure", CURVED)
def test_a_bigger_field_never_pays_fewer_places(structure):
    paid = [places_paid(structure, entrants) for entrants in range(1, 2_000)]

    assert paid == sorted(paid)


# Rounding to the currency unit (C8)


def test_prizes_are_whole_currency_units_with_the_remainder_to_first():
    # Exact shares 673.40, 336.70, 224.47: places 2 and 3 round down to 336.00 and
    # 224.00, first takes the rest.
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=7, pool=123_456) == [67_456, 33_600, 22_400]


def test_every_place_but_first_is_a_whole_unit_in_a_big_field():
    prizes = payout_table(structure=PrizeStructure.STANDARD, entrants=1_000, pool=1_000_037)

    assert sum(prizes) == 1_000_037
    assert all(prize % CURRENCY_UNIT == 0 for prize in prizes[1:])
    assert prizes[0] % CURRENCY_UNIT == 37
    assert min(prizes) >= CURRENCY_UNIT
    assert is_non_increasing(prizes)


def test_a_pool_of_barely_one_unit_a_place_pays_each_place_one_unit():
    # 150 places, 150.50 in the pool: the curve alone would round the bottom to 0.
    prizes = payout_table(structure=PrizeStructure.STANDARD, entrants=1_000, pool=150 * CURRENCY_UNIT + 50)

    assert prizes == [CURRENCY_UNIT + 50] + [CURRENCY_UNIT] * 149


def test_a_pool_below_one_unit_a_place_keeps_minor_unit_precision():
    prizes = payout_table(structure=PrizeStructure.STANDARD, entrants=100, pool=1_234)

    assert len(prizes) == 15
    assert sum(prizes) == 1_234
    assert any(prize % CURRENCY_UNIT for prize in prizes[1:])
    assert min(prizes) > 0
    assert is_non_increasing(prizes)


def test_the_rounding_unit_can_be_a_minor_unit():
    # Exact shares 673.09, 336.55, 224.36 minor units: the fractions go to first.
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=7, pool=1_234, unit=1) == [674, 336, 224]


def test_rounded_down_to_first_gives_what_rounding_leaves_to_the_first_part():
    # 545.45, 272.73, 181.82
    assert rounded_down_to_first(1_000, [Fraction(1), Fraction(1, 2), Fraction(1, 3)], 100) == [700, 200, 100]
    assert rounded_down_to_first(999, [Fraction(1)] * 3, 100) == [399, 300, 300]


@pytest.mark.parametrize("entrants", [1_000, 10_000])
def test_first_place_takes_12_to_20_percent_of_a_large_standard_field(entrants):
    pool = entrants * 1_000  # 10.00 a head
    prizes = payout_table(structure=PrizeStructure.STANDARD, entrants=entrants, pool=pool)

    assert Fraction(12, 100) <= Fraction(prizes[0], pool) <= Fraction(20, 100)
    assert len(prizes) == entrants * 15 // 100


# Satellites


def test_satellite_pays_whole_seats_and_the_remainder_to_the_next_place():
    assert payout_table(structure=PrizeStructure.SATELLITE, entrants=60, pool=1_050, seat_value=200) == [
        200,
        200,
        200,
        200,
        200,
        50,
    ]


def test_satellite_with_an_exact_number_of_seats_has_no_remainder_place():
    assert payout_table(structure=PrizeStructure.SATELLITE, entrants=40, pool=1_000, seat_value=200) == [200] * 5


def test_satellite_pool_below_one_seat_pays_the_pool_to_first_place():
    assert payout_table(structure=PrizeStructure.SATELLITE, entrants=5, pool=150, seat_value=200) == [150]


def test_satellite_without_a_seat_value_pays_the_pool_to_first_place():
    assert payout_table(structure=PrizeStructure.SATELLITE, entrants=5, pool=150) == [150]


# Largest remainder


def test_largest_remainder_gives_leftover_units_to_the_largest_remainders():
    # 10 * (1, 2, 4) / 7 = 1.43, 2.86, 5.71: the two leftover units go to .86 and .71.
    assert largest_remainder(10, [Fraction(1), Fraction(2), Fraction(4)]) == [1, 3, 6]


def test_largest_remainder_ties_go_to_the_earlier_part():
    assert largest_remainder(100, [Fraction(1)] * 3) == [34, 33, 33]
    assert largest_remainder(2, [Fraction(1)] * 4) == [1, 1, 0, 0]


def test_largest_remainder_is_deterministic():
    weights = [Fraction(1, k) for k in range(1, 40)]

    assert largest_remainder(987_654_321, weights) == largest_remainder(987_654_321, list(weights))


def test_largest_remainder_is_exact_for_huge_totals_and_integer_weights():
    # Chip counts are integers; a float division would lose units at this size.
    assert largest_remainder(10**20 + 1, [1, 2]) == [33_333_333_333_333_333_334, 66_666_666_666_666_666_667]


def test_largest_remainder_keeps_zero_weights_at_zero():
    assert largest_remainder(7, [Fraction(1), Fraction(0), Fraction(1)]) == [4, 0, 3]


@pytest.mark.parametrize(
    ("total", "weights"),
    [(-1, [Fraction(1)]), (10, []), (10, [Fraction(0), Fraction(0)]), (10, [Fraction(2), Fraction(-1)])],
)
def test_largest_remainder_refuses_what_cannot_be_split(total, weights):
    with pytest.raises(ValueError, match="cannot split"):
        largest_remainder(total, weights)


# Properties

PROPERTY = settings(database=None, deadline=None)
structures = st.sampled_from(list(PrizeStructure))
seat_values = st.none() | st.integers(min_value=1, max_value=10**9)


@PROPERTY
@given(
    structure=structures,
    entrants=st.integers(min_value=1, max_value=5_000),
    pool=st.integers(min_value=0, max_value=10**9),
    seat_value=seat_values,
)
def test_every_payout_table_adds_up_exactly_and_never_increases(structure, entrants, pool, seat_value):
    prizes = payout_table(structure=structure, entrants=entrants, pool=pool, seat_value=seat_value)

    assert sum(prizes) == pool
    assert is_non_increasing(prizes)
    if pool == 0:
        assert prizes == []
    elif structure is not PrizeStructure.SATELLITE:
        assert len(prizes) == places_paid(structure, entrants)
    if pool >= len(prizes):
        assert all(prize > 0 for prize in prizes)


@PROPERTY
@given(
    structure=st.sampled_from(CURVED),
    entrants=st.integers(min_value=4, max_value=5_000),
    places_per_unit=st.integers(min_value=1, max_value=3),
)
def test_every_place_cashes_when_the_pool_is_barely_enough(structure, entrants, places_per_unit):
    # Small pools spread over many places are where rounding down leaves places at 0.
    paid = places_paid(structure, entrants)

    prizes = payout_table(structure=structure, entrants=entrants, pool=paid * places_per_unit)

    assert min(prizes) > 0
    assert is_non_increasing(prizes)


@PROPERTY
@given(structure=st.sampled_from(WITH_PLACES), entrants=st.integers(min_value=2, max_value=5_000))
def test_places_paid_is_at_least_one_and_never_every_entrant(structure, entrants):
    assert 1 <= places_paid(structure, entrants) < entrants


@PROPERTY
@given(
    total=st.integers(min_value=0, max_value=10**12),
    weights=st.lists(
        st.integers(min_value=0, max_value=10**6) | st.builds(Fraction, st.integers(0, 10**6), st.integers(1, 10**6)),
        min_size=1,
        max_size=30,
    ).filter(any),
)
def test_largest_remainder_is_exact_and_within_one_unit_of_the_share(total, weights):
    parts = largest_remainder(total, weights)
    weight_sum = sum(weights)
    shares = [Fraction(total * w, weight_sum) for w in weights]

    assert sum(parts) == total
    assert all(share - 1 < part < share + 1 for part, share in zip(parts, shares, strict=True))


@PROPERTY
@given(
    structure=st.sampled_from(CURVED),
    entrants=st.integers(min_value=4, max_value=5_000),
    extra=st.integers(min_value=0, max_value=10**9),
)
def test_a_pool_of_a_unit_a_place_pays_whole_units_to_every_place_but_first(structure, entrants, extra):
    pool = places_paid(structure, entrants) * CURRENCY_UNIT + extra

    prizes = payout_table(structure=structure, entrants=entrants, pool=pool)

    assert sum(prizes) == pool
    assert all(prize % CURRENCY_UNIT == 0 for prize in prizes[1:])
    assert min(prizes) >= CURRENCY_UNIT
    assert is_non_increasing(prizes)
