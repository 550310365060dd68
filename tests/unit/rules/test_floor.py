"""The floor engine: finished hands, eliminations and places, balancing, table
breaks, hand-for-hand, the final table and the end (rules 4, 5, 11-16)."""

import random
from collections import Counter
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.floor import Deal, Floor, FloorError, Outcome, TableState
from tournaments.rules.seating import BlindPosition, Blinds, Seat, SeatedTable, next_blinds
from tournaments.rules.simulation import hand_result
from tournaments.rules.standings import Finish, prizes


def floor_of(layout: dict[int, dict[int, str]], *, stacks=None, playing=True, **options) -> Floor:
    """A floor in play: every table with two players or more has a hand dealt."""
    tables = {
        number: TableState(
            seats=dict(seats), button=min(seats) if seats else None, hands=1, playing=playing and len(seats) > 1
        )
        for number, seats in layout.items()
    }
    for table in tables.values():
        if table.button is not None and len(table.seats) > 1:
            occupied = sorted(table.seats)
            table.small_blind, table.big_blind = (
                (occupied + occupied)[1],
                (occupied + occupied)[2 if len(occupied) > 2 else 0],
            )
    players = [player for seats in layout.values() for player in seats.values()]
    stacks = stacks or dict.fromkeys(players, 1000)
    options = {"table_size": 6, "rng": random.Random(7)} | options
    return Floor.restored(tables, stacks, times_moved={}, places_taken=0, **options)


def seats(*numbers: int, name: str) -> dict[int, str]:
    return {seat: f"{name}{seat}" for seat in numbers}


def unchanged(floor: Floor, table: int) -> dict:
    return {player: floor.stacks[player] for player in floor.tables[table].seats.values()}


def counts(floor: Floor) -> list[int]:
    return sorted(len(table.seats) for table in floor.tables.values())


# Balancing (rule 16)


def test_a_six_six_two_field_balances_to_five_five_four_one_player_per_finished_hand():
    floor = floor_of(
        {1: seats(1, 2, 3, 4, 5, 6, name="a"), 2: seats(1, 2, 3, 4, 5, 6, name="b"), 3: seats(2, 5, name="c")}
    )

    first = floor.hand_finished(1, unchanged(floor, 1))
    assert counts(floor) == [3, 5, 6]
    (move,) = first.moves
    assert move.source.table == 1
    assert move.target.table == 3
    # Table 1's next button is seat 2 (after seat 1): seat 4 is due the big blind next.
    assert move.player == "a4"

    second = floor.hand_finished(2, unchanged(floor, 2))
    assert counts(floor) == [4, 5, 5]
    assert len(second.moves) == 1
    assert floor.hand_finished(3, unchanged(floor, 3)).moves == []  # the smallest table gives nobody


def test_only_a_table_among_the_largest_gives_a_player():
    floor = floor_of(
        {1: seats(1, 2, 3, 4, 5, name="a"), 2: seats(1, 2, 3, 4, 5, 6, name="b"), 3: seats(1, 2, 3, 4, name="c")}
    )
    assert floor.hand_finished(1, unchanged(floor, 1)).moves == []  # five players: not the largest
    (move,) = floor.hand_finished(2, unchanged(floor, 2)).moves
    assert (move.source.table, move.target.table) == (2, 3)


def test_a_player_moved_before_is_spared_when_another_can_go():
    floor = floor_of({1: seats(1, 2, 3, 4, 5, 6, name="a"), 2: seats(1, 2, 3, 4, name="b")})
    floor.times_moved["a4"] = 1
    (move,) = floor.hand_finished(1, unchanged(floor, 1)).moves
    assert move.player == "a5"  # next due the big blind after a4


def test_a_sitting_out_player_goes_first():
    floor = floor_of({1: seats(1, 2, 3, 4, 5, 6, name="a"), 2: seats(1, 2, 3, 4, name="b")})
    floor.away.add("a1")
    (move,) = floor.hand_finished(1, unchanged(floor, 1)).moves
    assert move.player == "a1"


def test_a_table_in_the_middle_of_a_hand_gives_nobody():
    floor = floor_of(
        {1: seats(1, 2, 3, 4, 5, 6, name="a"), 2: seats(1, 2, 3, 4, 5, 6, name="b"), 3: seats(1, 2, name="c")}
    )
    outcome = floor.hand_finished(3, unchanged(floor, 3))
    assert outcome.moves == []  # tables 1 and 2 are still playing
    assert counts(floor) == [2, 6, 6]


def hands_before_first_blind(floor: Floor, number: int, player: str, deal: Deal) -> int:
    """Plays table `number` from its hand `deal` on, nobody's stack changing, until
    `player` posts a blind; how many hands he played before it."""
    seat = floor.where[player].seat
    hands = 0
    while seat not in (deal.small_blind, deal.big_blind):
        hands += 1
        (deal,) = floor.hand_finished(number, unchanged(floor, number)).deals
    return hands


def test_a_player_due_the_big_blind_is_not_moved_onto_the_next_button():
    # Table 1 (button on seat 1) deals next with the button on 2 and the big blind on
    # a4; a4 would post both blinds within two hands, a5 within three, and so on round.
    both_blinds_by = {"a4": 1, "a5": 2, "a6": 3, "a1": 4, "a2": 5, "a3": 5}
    # Table 2 plays with the button on seat 1: its empty seats 2-4 come before its next
    # button (seat 5), so whoever sits there has the button, and no blind for two hands.
    floor = floor_of({1: seats(1, 2, 3, 4, 5, 6, name="a"), 2: seats(1, 5, 6, name="b")})

    (move,) = floor.hand_finished(1, unchanged(floor, 1)).moves
    assert move.target.table == 2
    assert move.player == "a5"  # the next due after a4, for whom the button is as far as his own blinds
    (deal,) = floor.hand_finished(2, unchanged(floor, 2)).deals
    assert hands_before_first_blind(floor, 2, move.player, deal) <= both_blinds_by[move.player]


def test_a_player_moved_to_a_table_between_hands_is_judged_with_its_button_as_it_will_move():
    # Table 2 has finished a hand with the button on seat 4, whose player is out: its
    # next button is seat 6, unless a player sits on seat 5, where it lands first.
    layout = {1: seats(1, 2, 3, 4, 5, 6, name="a"), 2: seats(1, 2, 6, name="b")}
    tables = {
        1: TableState(seats=layout[1], button=1, small_blind=2, big_blind=3, hands=5, playing=True),
        2: TableState(seats=layout[2], button=4, small_blind=6, big_blind=1, hands=5),
    }
    stacks = dict.fromkeys([*layout[1].values(), *layout[2].values()], 1000)
    floor = Floor.restored(tables, stacks, times_moved={}, places_taken=0, table_size=6, rng=random.Random(7))

    outcome = floor.hand_finished(1, unchanged(floor, 1))
    (move,) = outcome.moves
    assert move.player == "a4"  # due the big blind next at table 1: both blinds within two hands
    assert move.target in (Seat(2, 3), Seat(2, 4))  # not seat 5, the button
    deal = next(deal for deal in outcome.deals if deal.table == 2)
    assert hands_before_first_blind(floor, 2, "a4", deal) == 1


# Eliminations and places (rule 12)


def test_two_players_out_in_one_hand_with_equal_stacks_share_places_five_and_six():
    stacks = {"a1": 500, "a2": 500, "a3": 2000, "b1": 1000, "b2": 1000, "b3": 1000}
    floor = floor_of({1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")}, stacks=stacks)

    outcome = floor.hand_finished(1, {"a1": 0, "a2": 0, "a3": 3000})

    assert sorted(outcome.finishes, key=lambda f: f.player) == [Finish("a1", 5, 6), Finish("a2", 5, 6)]
    # Places 5 and 6 pay 150 and 101: 251 split, the odd unit to the first by key.
    assert prizes(outcome.finishes, [1000, 600, 400, 300, 150, 101]) == {"a1": 126, "a2": 125}


def test_more_chips_at_the_start_of_the_hand_take_the_better_place():
    stacks = {"a1": 300, "a2": 700, "a3": 1000, "b1": 1000, "b2": 1000}
    floor = floor_of({1: seats(1, 2, 3, name="a"), 2: seats(1, 2, name="b")}, stacks=stacks)
    outcome = floor.hand_finished(1, {"a1": 0, "a2": 0, "a3": 2000})
    assert outcome.finishes == [Finish("a2", 4, 4), Finish("a1", 5, 5)]


def test_a_result_that_creates_chips_or_leaves_out_a_player_is_refused():
    floor = floor_of({1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")})
    with pytest.raises(FloorError, match="neither created nor lost"):
        floor.hand_finished(1, {"a1": 1000, "a2": 1000, "a3": 1001})
    with pytest.raises(FloorError, match="exactly its players"):
        floor.hand_finished(1, {"a1": 1500, "a2": 1500})
    with pytest.raises(FloorError, match="no hand in play"):
        floor.hand_finished(9, {})


# Breaking tables and the final table


def test_when_the_players_fit_at_one_table_fewer_the_smallest_table_breaks_into_the_smallest():
    stacks = dict.fromkeys([f"{t}{s}" for t in "abc" for s in range(1, 7)], 1000)
    floor = floor_of(
        {1: seats(1, 2, 3, 4, 5, name="a"), 2: seats(1, 2, 3, 4, 5, 6, name="b"), 3: seats(1, 2, 3, 4, 5, name="c")},
        stacks=stacks,
        table_size=6,
    )
    # A bust at table 2 leaves 15 players: 3 tables of 6 could become 2 with 3 empty seats... not yet (15 > 12).
    floor.hand_finished(2, unchanged(floor, 2) | {"b1": 0, "b2": 2000})
    assert len(floor.tables) == 3
    # Three more busts at table 1 leave 12: the smallest (table 1, two players) breaks when it finishes.
    outcome = floor.hand_finished(1, {"a1": 0, "a2": 0, "a3": 0, "a4": 2000, "a5": 3000})
    assert outcome.broken == [1]
    assert sorted(move.player for move in outcome.moves) == ["a4", "a5"]
    assert counts(floor) == [6, 6]


def test_at_the_final_table_everyone_is_drawn_again_once_every_table_has_finished():
    floor = floor_of({1: seats(1, 2, 3, 4, name="a"), 2: seats(1, 2, 3, name="b")}, table_size=6)
    outcome = floor.hand_finished(2, {"b1": 0, "b2": 2000, "b3": 1000})  # 6 left: they fit at one table
    assert outcome.deals == []  # table 2 waits for table 1's hand
    assert not outcome.final_table
    outcome = floor.hand_finished(1, unchanged(floor, 1))
    assert outcome.final_table
    assert len(floor.tables) == 1
    (final,) = floor.tables.values()
    assert len(final.seats) == 6
    (deal,) = outcome.deals
    assert deal.button == min(final.seats)  # a new table's first button: its first occupied seat


# Hand-for-hand (rule 13)


def test_hand_for_hand_at_the_bubble_holds_tables_and_places_busts_across_tables_as_one_group():
    stacks = {"a1": 400, "a2": 1000, "a3": 1600, "b1": 1400, "b2": 1000, "b3": 600}
    floor = floor_of(
        {1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")},
        stacks=stacks,
        table_size=3,
        payouts=[500, 300, 200, 100],  # four paid: the bubble is five players left
    )
    # Six left: a bust at table 1 brings the bubble; table 1 waits.
    first = floor.hand_finished(1, {"a1": 0, "a2": 1400, "a3": 1600})
    assert first.finishes == [Finish("a1", 6, 6)]
    assert floor.hand_for_hand
    assert first.deals == []
    # Table 2 finishes its (ordinary) hand: now every table deals together.
    second = floor.hand_finished(2, unchanged(floor, 2))
    assert sorted(deal.table for deal in second.deals) == [1, 2]
    assert all(deal.synchronised for deal in second.deals)
    # The synchronised hand: one bust at each table; equal starting stacks share 4-5.
    third = floor.hand_finished(1, {"a2": 0, "a3": 3000})
    assert third.finishes == []  # placed when the round is over
    assert third.deals == []
    fourth = floor.hand_finished(2, {"b1": 0, "b2": 2400, "b3": 600})
    # a2 and b1 both started the hand with 1400: they share places 4 and 5.
    assert sorted(fourth.finishes, key=lambda f: f.player) == [Finish("a2", 4, 5), Finish("b1", 4, 5)]
    assert not floor.hand_for_hand  # three left, all in the money


def test_a_synchronised_hand_that_ends_as_the_clock_stops_places_its_busts_at_once():
    floor = floor_of({1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")}, table_size=3, payouts=[500, 300])
    floor.hand_for_hand_at.add(6)
    floor.hand_finished(1, unchanged(floor, 1))
    floor.hand_finished(2, unchanged(floor, 2))  # the synchronised hands are dealt
    floor.stop()  # a break is due
    floor.hand_finished(1, {"a1": 0, "a2": 2000, "a3": 1000})
    last = floor.hand_finished(2, unchanged(floor, 2))
    assert last.finishes == [Finish("a1", 6, 6)]
    assert last.deals == []
    resumed = floor.release()
    assert resumed.finishes == []
    assert sorted(deal.table for deal in resumed.deals) == [1, 2]


def test_tables_broken_together_after_a_synchronised_hand_move_each_player_once():
    floor = floor_of(
        {
            1: seats(1, 2, 3, 4, 5, name="a"),
            2: seats(1, 2, 3, 4, 5, name="b"),
            3: seats(1, 2, 3, 4, 5, name="c"),
            4: seats(1, 2, 3, 4, 5, 6, name="d"),
            5: seats(1, 2, 3, 4, 5, 6, name="e"),
        },
        payouts=[100],
    )
    floor.hand_for_hand_at.add(27)
    for number in range(1, 6):
        floor.hand_finished(number, unchanged(floor, number))
    # Three busts at each five-handed table: 18 left fit at three tables, so two break.
    for number, name in enumerate("abc", start=1):
        after = {f"{name}{seat}": 0 for seat in range(1, 4)} | {f"{name}4": 2500, f"{name}5": 2500}
        floor.hand_finished(number, after)
    outcome = floor.hand_finished(4, unchanged(floor, 4))
    outcome.moves += floor.hand_finished(5, unchanged(floor, 5)).moves
    movers = [move.player for move in outcome.moves]
    assert len(movers) == len(set(movers)) == 4
    assert sorted(len(table.seats) for table in floor.tables.values()) == [6, 6, 6]


def test_busts_in_one_synchronised_hand_at_two_tables_are_ranked_together_by_starting_stack():
    stacks = {"a1": 400, "a2": 1000, "a3": 1600, "b1": 700, "b2": 900, "b3": 1400}
    floor = floor_of(
        {1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")},
        stacks=stacks,
        table_size=3,
        payouts=[2000, 1000, 600, 400],
    )
    floor.hand_for_hand_at.add(6)  # the event asks for hand-for-hand at six left
    floor.hand_finished(1, unchanged(floor, 1))
    released = floor.hand_finished(2, unchanged(floor, 2))
    assert all(deal.synchronised for deal in released.deals)
    floor.hand_finished(1, {"a1": 0, "a2": 1400, "a3": 1600})
    outcome = floor.hand_finished(2, {"b1": 0, "b2": 1600, "b3": 1400})
    # a1 started the hand with 400, b1 with 700: b1 is 5th, a1 6th, though a1's table finished first.
    assert outcome.finishes[:2] == [Finish("b1", 5, 5), Finish("a1", 6, 6)]


# Button and blinds (rules 5, 14, 15)


def test_heads_up_the_button_posts_the_small_blind():
    floor = floor_of({1: {2: "x", 5: "y"}}, table_size=6)
    (deal,) = floor.hand_finished(1, {"x": 1000, "y": 1000}).deals
    assert deal.button == 5
    assert deal.small_blind == 5
    assert deal.big_blind == 2


def test_the_button_moves_to_the_next_seated_player_and_a_bust_big_blind_is_skipped():
    floor = floor_of({1: seats(1, 3, 5, 6, name="a")}, table_size=6)
    # Seat 1 has the button, 3 the small and 5 the big blind; seat 3 busts.
    (deal,) = floor.hand_finished(1, {"a1": 1000, "a3": 0, "a5": 1000, "a6": 2000}).deals
    assert (deal.button, deal.small_blind, deal.big_blind) == (5, 6, 1)


def test_with_the_dead_button_the_big_blind_moves_on_and_the_button_may_be_dead():
    floor = floor_of({1: seats(1, 3, 5, 6, name="a")}, table_size=6, dead_button=True)
    # Button 1, small blind 3, big blind 5; the small blind (seat 3) busts.
    (deal,) = floor.hand_finished(1, {"a1": 1000, "a3": 0, "a5": 1000, "a6": 2000}).deals
    # The big blind goes on to seat 6; seat 5 posts the small blind; the button is seat 3, now empty.
    assert (deal.button, deal.small_blind, deal.big_blind) == (3, 5, 6)
    (deal,) = floor.hand_finished(1, unchanged(floor, 1)).deals
    assert (deal.button, deal.small_blind, deal.big_blind) == (5, 6, 1)


# The end (rule 11)


# Shootouts (rule 18.5's format)


def test_a_shootout_table_plays_to_its_winner_and_the_winners_are_drawn_to_the_next_round():
    layout = {number: seats(1, 2, 3, name=f"t{number}s") for number in (1, 2, 3, 4)}
    floor = floor_of(layout, table_size=3, shootout=True, rng=random.Random(3))

    def won_by(number: int, winner: str) -> Outcome:
        players = floor.tables[number].seats.values()
        return floor.hand_finished(number, {p: 3000 if p == winner else 0 for p in players})

    for number in (1, 2, 3):
        outcome = won_by(number, f"t{number}s1")
        # No balancing, no breaking: the table waits with its winner; the others play on.
        assert (outcome.moves, outcome.broken, outcome.deals) == ([], [], [])
        assert list(floor.tables[number].seats.values()) == [f"t{number}s1"]
    outcome = won_by(4, "t4s1")

    # Four winners for three seats a table: two new tables of two, numbered on from 5.
    assert sorted(outcome.broken) == [1, 2, 3, 4]
    assert sorted(floor.tables) == [5, 6]
    assert counts(floor) == [2, 2]
    assert {move.player for move in outcome.moves} == {"t1s1", "t2s1", "t3s1", "t4s1"}
    assert sorted(deal.table for deal in outcome.deals) == [5, 6]
    assert not outcome.final_table

    first = next(iter(floor.tables[5].seats.values()))
    assert floor.hand_finished(5, {p: 6000 if p == first else 0 for p in floor.tables[5].seats.values()}).moves == []
    other = next(iter(floor.tables[6].seats.values()))
    last = floor.hand_finished(6, {p: 6000 if p == other else 0 for p in floor.tables[6].seats.values()})

    assert last.final_table
    assert len(floor.tables) == 1
    assert sorted(floor.where) == sorted([first, other])
    assert len(last.deals) == 1


def test_a_table_s_match_ended_gives_its_leader_every_chip_and_places_the_others_by_chips():
    floor = floor_of({1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")}, shootout=True)

    outcome = floor.hand_finished(1, {"a1": 500, "a2": 1500, "a3": 1000}, ends_table=True)

    assert outcome.chips == {"a2": 3000, "a1": 0, "a3": 0}
    assert list(floor.tables[1].seats.values()) == ["a2"]
    assert [(f.player, f.best) for f in outcome.finishes] == [("a3", 5), ("a1", 6)]


def test_a_tie_for_the_most_chips_goes_to_the_first_player_after_the_button():
    floor = floor_of({1: seats(1, 2, 3, name="a"), 2: seats(1, 2, 3, name="b")}, shootout=True)
    # Seat 1 has the button: seat 2 comes first after it, then seat 3.

    outcome = floor.hand_finished(1, {"a1": 1000, "a2": 1000, "a3": 1000}, ends_table=True)

    assert outcome.chips["a2"] == 3000


# A rolled-back hand (rule 22)


def test_a_rolled_back_hand_is_dealt_again_from_the_same_button_and_blinds_with_nobody_s_chips_changed():
    floor = floor_of(
        {1: seats(1, 3, 5, 6, name="a")}, table_size=6, stacks={"a1": 900, "a3": 1100, "a5": 1000, "a6": 1000}
    )

    (deal,) = floor.hand_voided(1).deals

    assert (deal.button, deal.small_blind, deal.big_blind, deal.hand) == (1, 3, 5, 2)
    assert floor.stacks == {"a1": 900, "a3": 1100, "a5": 1000, "a6": 1000}
    # The next hand after it moves the button on as usual.
    (after,) = floor.hand_finished(1, unchanged(floor, 1)).deals
    assert (after.button, after.small_blind, after.big_blind) == (3, 5, 6)


def test_a_table_with_no_hand_in_play_has_nothing_to_roll_back():
    floor = floor_of({1: seats(1, 3, name="a")}, playing=False)
    with pytest.raises(FloorError):
        floor.hand_voided(1)


def test_a_five_seat_satellite_ends_when_five_players_are_left():
    players = {f"p{n}": 1000 for n in range(1, 8)}
    floor = floor_of(
        {1: {n: f"p{n}" for n in range(1, 8)}},
        stacks=players,
        table_size=9,
        payouts=[500] * 5,
        end_when_prizes_equal=True,
    )
    outcome = floor.hand_finished(1, players | {"p1": 0, "p2": 0, "p3": 3000})
    assert outcome.finished
    assert floor.over
    assert [f for f in outcome.finishes if f.best == 1] == [Finish(f"p{n}", 1, 5) for n in range(3, 8)]
    assert {f.player for f in outcome.finishes if f.best == 6} == {"p1", "p2"}


def test_one_player_with_every_chip_wins():
    floor = floor_of({1: {1: "x", 2: "y"}})
    outcome = floor.hand_finished(1, {"x": 2000, "y": 0})
    assert outcome.finished
    assert outcome.finishes == [Finish("x", 1, 1), Finish("y", 2, 2)]


# Whole tournaments, at random


def run_to_the_end(entrants: int, table_size: int, seed: int, *, each=None, **options):
    """A whole tournament of random hands at random tables; `each(before, outcome,
    floor)` sees every outcome, `before` being the tables before that hand."""
    rng = random.Random(seed)
    floor = Floor.drawn(dict.fromkeys(range(entrants), 100), table_size=table_size, rng=random.Random(seed), **options)
    playing = {deal.table for deal in floor.start().deals}
    finishes, outcomes, buttons = [], [], {}
    while not floor.over:
        number = rng.choice(sorted(playing))
        table = floor.tables[number]
        before = {n: SeatedTable(n, dict(t.seats), last_hand(t)) for n, t in floor.tables.items()}
        outcome = floor.hand_finished(number, hand_result({p: floor.stacks[p] for p in table.seats.values()}, rng))
        if each:
            each(before, outcome, floor)
        outcomes.append(outcome)
        finishes += outcome.finishes
        playing.discard(number)
        playing -= set(outcome.broken)
        for deal in outcome.deals:
            playing.add(deal.table)
            dealt = floor.tables[deal.table]
            button = dealt.seats.get(deal.button)  # the dead button may sit on an empty seat
            if len(dealt.seats) > 2 and not outcome.final_table and not floor.dead_button:
                assert buttons.get(deal.table) != button, "the button twice in a row on one player"
            buttons[deal.table] = button
        if not floor.over:
            seated = [p for t in floor.tables.values() for p in t.seats.values()]
            assert len(seated) == len(set(seated)) == floor.players_left  # everyone seated exactly once
            assert sum(floor.stacks[p] for p in seated) == entrants * 100  # chips conserved
            assert all(len(t.seats) <= table_size for t in floor.tables.values())
    return floor, finishes, outcomes


@settings(max_examples=60, deadline=None)
@given(
    entrants=st.integers(2, 120),
    table_size=st.integers(2, 10),
    seed=st.integers(0, 10**6),
    hand_for_hand_at=st.lists(st.integers(2, 120), max_size=3),
    dead_button=st.booleans(),
)
def test_every_tournament_ends_with_places_as_rule_twelve_says_and_minimal_moves(
    entrants, table_size, seed, hand_for_hand_at, dead_button
):
    _, finishes, outcomes = run_to_the_end(
        entrants,
        table_size,
        seed,
        payouts=[100, 50, 25],
        hand_for_hand_at=hand_for_hand_at,
        dead_button=dead_button,
    )
    assert sorted(f.player for f in finishes) == list(range(entrants))
    # The places form a permutation of 1..entrants, a tie covering exactly its shared places.
    covered = Counter()
    for finish in finishes:
        covered[(finish.best, finish.worst)] += 1
    assert sorted(p for (best, worst) in covered for p in range(best, worst + 1)) == list(range(1, entrants + 1))
    assert all(count == worst - best + 1 for (best, worst), count in covered.items())
    for outcome in outcomes:
        movers = [move.player for move in outcome.moves]
        assert len(movers) == len(set(movers)), "a player moved twice in one plan"
        if not outcome.broken and not outcome.final_table:
            assert len(outcome.moves) <= 1 or len({m.source.table for m in outcome.moves}) == len(outcome.moves)


def last_hand(table: TableState) -> Blinds | None:
    if table.hands == 0 or None in (table.button, table.small_blind, table.big_blind):
        return None
    return Blinds(table.button, table.small_blind, table.big_blind)


def dealt_position(seats: Iterable[int], seat: int, first: Blinds, *, dead_button: bool) -> BlindPosition:
    """Where `seat` is in the round of the blinds, dealing on from the hand `first`."""
    occupied, hands, dealt = sorted(seats), 0, first
    while dealt.big_blind != seat:
        hands, dealt = hands + 1, next_blinds(occupied, dealt, dead_button=dead_button)
    return BlindPosition(hands, len(occupied))


@settings(max_examples=60, deadline=None)
@given(
    entrants=st.integers(4, 120),
    table_size=st.integers(3, 10),
    seed=st.integers(0, 10**6),
    dead_button=st.booleans(),
)
def test_nobody_moved_to_balance_skips_both_blinds(entrants, table_size, seed, dead_button):
    def check(before: dict[int, SeatedTable], outcome, floor: Floor) -> None:
        if outcome.broken or outcome.final_table or len(outcome.moves) != 1:
            return  # a break and the final table seat at random; two moves would shift each other
        (move,) = outcome.moves
        source = before[move.source.table]
        left = [seat for seat, player in source.seats.items() if player in floor.where]  # the busts gone
        first = next_blinds(sorted(left), source.last, dead_button=dead_button)
        was = dealt_position(left, move.source.seat, first, dead_button=dead_button)
        target = floor.tables[move.target.table]
        if any(deal.table == move.target.table for deal in outcome.deals):
            first = last_hand(target)  # dealt with him seated
        else:  # still playing the hand he is not in
            first = next_blinds(sorted(target.seats), last_hand(target), dead_button=dead_button)
        now = dealt_position(target.seats, move.target.seat, first, dead_button=dead_button)
        assert not now.free_pass_from(was), (move, was, now)

    run_to_the_end(entrants, table_size, seed, each=check, payouts=[100, 50, 25], dead_button=dead_button)


def test_a_field_that_starts_on_the_bubble_deals_its_first_hands_hand_for_hand():
    floor = Floor.drawn(dict.fromkeys("abcd", 100), table_size=2, rng=random.Random(0), payouts=[100, 50, 25])
    deals = floor.start().deals
    assert len(deals) == 2
    assert all(deal.synchronised for deal in deals)


def test_a_stopped_clock_holds_every_table_even_on_the_bubble():
    floor = Floor.drawn(dict.fromkeys("abcd", 100), table_size=2, rng=random.Random(0), payouts=[100, 50, 25])
    floor.stop()
    assert floor.start().deals == []
    assert len(floor.release().deals) == 2
