"""The seat draw, the button and blinds, balancing and breaking tables (rules 4, 5,
14, 15, 16; ALGORITHMS C1, C2, C6)."""

import random
from collections import Counter
from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.seating import (
    BlindPosition,
    Blinds,
    Move,
    Seat,
    SeatedTable,
    balancing_move,
    blind_positions,
    blinds,
    break_table,
    draw_seats,
    late_seat,
    next_blinds,
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


def test_the_next_hands_blinds_follow_the_last_hand_or_seat_one_on_a_new_table():
    assert next_blinds([3, 5, 8], None) == Blinds(3, 5, 8)
    assert next_blinds([3, 5, 8], Blinds(3, 5, 8)) == Blinds(5, 8, 3)
    assert next_blinds([2, 7], Blinds(2, 2, 7)) == Blinds(7, 7, 2)  # heads-up
    # Dead button: seat 5 is out; the big blind moves on, the button takes seat 5.
    assert next_blinds([1, 3, 6, 8], Blinds(3, 5, 6), dead_button=True) == Blinds(5, 6, 8)


# Balancing (rule 16)


def test_a_players_place_in_the_blinds_counts_hands_until_his_big_blind():
    # Last hand: button 1, blinds 2 and 3; the next: button 2, blinds 3 and 4.
    seated = SeatedTable(1, table(1, 2, 3, 4, 5, 6), Blinds(1, 2, 3))
    positions = blind_positions(seated)
    assert [positions[seat].hands for seat in (4, 5, 6, 1, 2, 3)] == [0, 1, 2, 3, 4, 5]
    due_small_blind = positions[3]
    assert (due_small_blind.first_blind, due_small_blind.both_blinds) == (0, 5)
    assert (positions[4].first_blind, positions[4].both_blinds) == (0, 1)


def test_a_free_pass_is_no_blind_until_after_both_would_have_been_posted():
    due_big_blind = BlindPosition(hands=0, players=6)  # big blind next hand, small blind the one after
    assert not BlindPosition(hands=1, players=5).free_pass_from(due_big_blind)
    assert BlindPosition(hands=2, players=5).free_pass_from(due_big_blind)
    assert not BlindPosition(hands=4, players=5).free_pass_from(due_big_blind)  # the small blind at once


def test_the_moved_player_takes_the_seat_with_the_same_hands_to_his_big_blind():
    source = SeatedTable(1, table(1, 2, 3, 4, 5, 6), Blinds(6, 1, 2))  # next: button 1, big blind 3
    target = SeatedTable(2, table(1, 3, 5, name="q"), Blinds(5, 1, 3))  # next: button 1, small blind 3
    move = balancing_move(source, target, table_size=6)
    assert move.source == Seat(1, 3)  # due the big blind next
    # On seat 4 he is the big blind next again (on 2, the small blind; on 6, the button).
    assert move.target == Seat(2, 4)


def test_at_a_table_of_three_the_nearest_seat_may_be_the_button():
    source = SeatedTable(1, table(1, 2, 3, 4, 5, 6), Blinds(6, 1, 2))
    target = SeatedTable(2, table(1, 4, name="q"), Blinds(4, 4, 1))  # heads-up; next button 1
    move = balancing_move(source, target, table_size=6)
    assert move.source == Seat(1, 3)
    # On seats 5 or 6 the button lands on him and he posts the big blind a hand later
    # (on 2 or 3, the small blind at once and the big blind two hands later); the later seat.
    assert move.target == Seat(2, 6)


def test_the_equivalent_seat_is_judged_with_the_player_seated_where_the_button_then_goes():
    source = SeatedTable(1, table(1, 2, 3, 4, 5, 6, name="a"), Blinds(1, 2, 3))  # a4 due the big blind
    # Seat 4's player is out: the next button is seat 6, or seat 5 if someone sits there.
    target = SeatedTable(2, table(1, 2, 6, name="b"), Blinds(4, 6, 1))
    move = balancing_move(source, target, table_size=6)
    assert move.player == "a4"
    assert move.target == Seat(2, 4)  # big blind in the second hand; on seat 5, in the third


def test_nobody_is_moved_through_both_blinds_when_another_player_can_go():
    source = SeatedTable(1, table(1, 2, 3, 4, 5, 6, name="a"), Blinds(1, 2, 3))  # a4, then a5, due
    # Every empty seat (2-4) comes before the next button, seat 5: the button lands there.
    target = SeatedTable(2, table(1, 5, 6, name="b"), Blinds(1, 5, 6))
    move = balancing_move(source, target, table_size=6)
    assert move.player == "a5"  # for a4 that is two hands without a blind when both were due
    assert move.target == Seat(2, 4)


def test_a_player_already_moved_is_passed_over_and_one_sitting_out_is_chosen_first():
    source = SeatedTable(1, table(1, 2, 3, 4, 5, 6), Blinds(6, 1, 2))  # next: button 1, big blind 3
    target = SeatedTable(2, table(1, 2, 3, 4, name="q"), Blinds(3, 4, 1))  # seats 5 and 6: the small blind next
    due = "p3"
    assert balancing_move(source, target, table_size=6).player == due
    assert balancing_move(source, target, table_size=6, times_moved=lambda p: int(p == due)).player == "p4"
    chosen = balancing_move(source, target, table_size=6, sitting_out=lambda p: p == "p6")
    assert chosen.player == "p6"


def hands_until_big_blind_dealt(seats: Iterable[int], last: Blinds | None, seat: int, dead_button: bool) -> int:
    """Deals the table hand after hand, nobody leaving, until `seat` posts the big blind."""
    occupied = sorted(seats)
    hands, dealt = 0, next_blinds(occupied, last, dead_button=dead_button)
    while dealt.big_blind != seat:
        hands, dealt = hands + 1, next_blinds(occupied, dealt, dead_button=dead_button)
    return hands


@st.composite
def seated_table(draw, number: int, players: st.SearchStrategy[int], table_size: int) -> SeatedTable:
    count = draw(players)
    seats = draw(st.lists(st.integers(1, table_size), min_size=count, max_size=count, unique=True))
    last = None
    if draw(st.booleans()):  # a table that has dealt: its last button's player may have left since
        button = draw(st.integers(1, table_size))
        last = Blinds(button, *blinds(sorted({*seats, button}), button))
    return SeatedTable(number, {seat: f"t{number}s{seat}" for seat in seats}, last)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), table_size=st.integers(4, 10), dead_button=st.booleans())
def test_nobody_moved_to_balance_skips_both_blinds_and_his_seat_is_as_near_as_any(data, table_size, dead_button):
    target = data.draw(seated_table(2, st.integers(1, table_size - 2), table_size))
    source = data.draw(seated_table(1, st.integers(len(target.seats) + 2, table_size), table_size))
    move = balancing_move(source, target, table_size=table_size, dead_button=dead_button)

    def position(table: SeatedTable, seat: int) -> BlindPosition:
        hands = hands_until_big_blind_dealt(table.seats, table.last, seat, dead_button)
        return BlindPosition(hands, len(table.seats))

    before = position(source, move.source.seat)
    seated = {**target.seats, move.target.seat: move.player}
    after = position(SeatedTable(2, seated, target.last), move.target.seat)
    assert not after.free_pass_from(before)
    for seat in set(range(1, table_size + 1)) - set(target.seats):
        other = position(SeatedTable(2, {**target.seats, seat: move.player}, target.last), seat)
        if not other.free_pass_from(before):
            assert abs(after.hands - before.hands) <= abs(other.hands - before.hands)


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
