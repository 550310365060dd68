"""The seat draw, the button and blinds, balancing and breaking tables (rules 4, 5,
14, 15, 16; ALGORITHMS C1, C2, C6)."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.seating import (
    Move,
    Seat,
    balance_from,
    blinds,
    break_table,
    draw_seats,
    late_seat,
    next_button,
    table_to_break,
)


def layout_of(seats: dict) -> dict[int, dict[int, str]]:
    tables: dict[int, dict[int, str]] = {}
    for player, seat in seats.items():
        tables.setdefault(seat.table, {})[seat.seat] = player
    return tables


def table(*seats: int, name: str = "p") -> dict[int, str]:
    return {seat: f"{name}{seat}" for seat in seats}


# The draw


def test_fourteen_players_at_six_seat_tables_are_drawn_five_five_four():
    seats = draw_seats([f"p{n}" for n in range(14)], table_size=6, rng=random.Random(1))
    assert sorted(Counter(seat.table for seat in seats.values()).values()) == [4, 5, 5]


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 300), table_size=st.integers(2, 10), seed=st.integers(0, 10**6))
def test_the_draw_seats_everyone_once_at_as_few_and_as_even_tables_as_possible(players, table_size, seed):
    seats = draw_seats(list(range(players)), table_size=table_size, rng=random.Random(seed))
    assert sorted(seats) == list(range(players))
    assert len(set(seats.values())) == players  # no two players in one seat
    assert all(1 <= seat.seat <= table_size for seat in seats.values())
    counts = Counter(seat.table for seat in seats.values())
    assert len(counts) == -(-players // table_size)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_a_late_entrant_sits_at_the_table_with_the_fewest_players():
    layout = {1: table(1, 2, 3, 4), 2: table(1, 3, 5), 3: table(2, 4, 5, 6)}
    for seed in range(20):
        seat = late_seat(layout, table_size=6, rng=random.Random(seed))
        assert seat.table == 2
        assert seat.seat in (2, 4, 6)


# The button and blinds


def test_a_new_tables_first_button_is_the_first_occupied_seat_from_seat_one():
    assert next_button([3, 5, 8], None) == 3


def test_the_button_moves_clockwise_to_the_next_seated_player_and_wraps():
    assert next_button([2, 5, 9], 2) == 5
    assert next_button([2, 5, 9], 5) == 9
    assert next_button([2, 5, 9], 9) == 2
    # Its player went out: the next seated player after that seat.
    assert next_button([2, 9], 5) == 9


def test_blinds_follow_the_button_and_heads_up_the_button_posts_the_small_blind():
    assert blinds([1, 4, 6, 9], 4) == (6, 9)
    assert blinds([1, 4, 6, 9], 9) == (1, 4)
    assert blinds([3, 7], 7) == (7, 3)


@settings(max_examples=100, deadline=None)
@given(seats=st.sets(st.integers(1, 10), min_size=2, max_size=10), hands=st.integers(2, 30))
def test_nobody_has_the_button_twice_in_a_row(seats, hands):
    occupied = sorted(seats)
    button = None
    for _ in range(hands):
        previous, button = button, next_button(occupied, button)
        assert button != previous


# Balancing


def test_a_six_six_two_field_balances_to_five_five_four():
    layout = {1: table(1, 2, 3, 4, 5, 6, name="a"), 2: table(1, 2, 3, 4, 5, 6, name="b"), 3: table(2, 5, name="c")}
    buttons = {1: 1, 2: 4, 3: 2}
    moved = Counter()

    first = balance_from(1, layout, table_size=6, buttons=buttons, times_moved=moved.__getitem__)
    # Table 1's next big blind is seat 3 (button 1, small blind 2).
    assert first == Move("a3", Seat(1, 3), Seat(3, first.target.seat))
    apply(layout, first)
    moved[first.player] += 1
    second = balance_from(2, layout, table_size=6, buttons=buttons, times_moved=moved.__getitem__)
    assert second.player == "b6"  # button 4, small blind 5, big blind 6
    assert second.target.table == 3
    apply(layout, second)
    assert sorted(len(seats) for seats in layout.values()) == [4, 5, 5]
    assert balance_from(1, layout, table_size=6, buttons=buttons, times_moved=moved.__getitem__) is None


def test_the_player_keeps_their_place_relative_to_the_button_as_near_as_can_be():
    layout = {1: table(1, 2, 3, 4, 5, 6), 2: table(1, 4, name="q")}
    # Table 1: button 6, blinds 1 and 2: seat 2 (second after the button) is due the big blind.
    move = balance_from(1, layout, table_size=6, buttons={1: 6, 2: 1}, times_moved=lambda player: 0)
    assert move.source == Seat(1, 2)
    # Table 2: button 1, then seat 4: seats 5 and 6 come second after the button (the
    # big blind again, as the player left); of the two, the later.
    assert move.target == Seat(2, 6)


def test_only_the_table_that_finished_its_hand_and_is_among_the_largest_gives_a_player():
    layout = {1: table(1, 2, 3, 4, 5), 2: table(1, 2, 3, 4, 5, 6), 3: table(1, 2, 3, 4)}
    common = {"table_size": 6, "buttons": {1: 1, 2: 1, 3: 1}, "times_moved": lambda player: 0}
    assert balance_from(1, layout, **common) is None  # not the largest
    assert balance_from(2, layout, **common).target.table == 3


def test_a_player_already_moved_is_passed_over_and_one_sitting_out_is_chosen_first():
    layout = {1: table(1, 2, 3, 4, 5, 6), 2: table(1, 2, 3, 4)}
    due = "p3"  # button 1: the big blind is seat 3
    common = {"table_size": 6, "buttons": {1: 1, 2: 1}}
    assert balance_from(1, layout, times_moved=lambda p: 0, **common).player == due
    assert balance_from(1, layout, times_moved=lambda p: 1 if p == due else 0, **common).player == "p4"
    chosen = balance_from(1, layout, times_moved=lambda p: 0, sitting_out=lambda p: p == "p6", **common)
    assert chosen.player == "p6"


# Breaking tables


def test_a_table_breaks_once_the_players_fit_at_one_table_fewer():
    layout = {1: table(1, 2, 3, 4), 2: table(1, 2, 3, 4, 5), 3: table(1, 2, 3)}
    assert table_to_break(layout, table_size=6, rng=random.Random(0)) == 3
    layout[3][4] = "late"  # 13 players do not fit at two six-seat tables
    assert table_to_break(layout, table_size=6, rng=random.Random(0)) is None


def test_ties_for_the_smallest_table_to_break_are_broken_at_random():
    layout = {1: table(1, 2, 3), 2: table(1, 2, 3), 3: table(1, 2, 3, 4)}
    chosen = {table_to_break(layout, table_size=6, rng=random.Random(seed)) for seed in range(40)}
    assert chosen == {1, 2}


@settings(max_examples=150, deadline=None)
@given(
    counts=st.lists(st.integers(1, 9), min_size=2, max_size=8),
    table_size=st.just(9),
    seed=st.integers(0, 10**6),
)
def test_a_broken_tables_players_are_dealt_into_empty_seats_of_the_smallest_tables(counts, table_size, seed):
    rng = random.Random(seed)
    layout = {
        n: {seat: f"t{n}s{seat}" for seat in rng.sample(range(1, 10), count)} for n, count in enumerate(counts, 1)
    }
    broken = table_to_break(layout, table_size=table_size, rng=rng)
    if broken is None:
        assert sum(counts) > (len(counts) - 1) * table_size
        return
    before = {player for seats in layout.values() for player in seats.values()}
    moves = break_table(broken, layout, table_size=table_size, rng=rng)
    assert sorted(move.player for move in moves) == sorted(layout[broken].values())
    after = {number: dict(seats) for number, seats in layout.items() if number != broken}
    for move in moves:
        assert move.target.seat not in after[move.target.table]  # an empty seat
        fewest = min(len(seats) for seats in after.values())
        assert len(after[move.target.table]) == fewest  # the smallest table at the time
        after[move.target.table][move.target.seat] = move.player
    assert {player for seats in after.values() for player in seats.values()} == before
    assert all(len(seats) <= table_size for seats in after.values())


def apply(layout, move: Move) -> None:
    del layout[move.source.table][move.source.seat]
    layout[move.target.table][move.target.seat] = move.player
