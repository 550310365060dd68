"""The rules of play on real hands with prepared decks, through the services a
player's browser and the worker call (rules 6, 12, 15, 18, 25): what each player's
chips are after the floor has the result, not only what the engine computed."""

import pytest
from django.utils import timezone

from tests.tables import act, acting, chips, in_play, prepare, seat_of, started
from tournaments.models import Entry, EntryStatus, Hand, HandStatus, Status
from tournaments.rules.hands import ActionKind, HandSetup
from tournaments.selectors.replays import entry_of, replay
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import entry_sit_out, hand_act, hand_due, hand_report, hands_catch_up, hands_check_down

pytestmark = pytest.mark.django_db


def all_in_or_call(row: Hand) -> Hand:
    """Everyone puts all his chips in (or calls what he cannot raise), and the floor has the result."""
    while row.status == HandStatus.PLAYING:
        hand = replay(row)
        legal = hand.legal()
        if legal.max_to is not None and legal.max_to > legal.call + hand.bet(legal.seat):
            row = act(row, ActionKind.BET_RAISE, legal.max_to)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    return row


def test_three_all_ins_of_different_sizes_pay_each_side_pot_to_its_winner():
    # The shortest stack has the best hand, the next the second best, and so on.
    tournament, (short, middle, deep, deepest) = started([1000, 3000, 6000, 10000])
    row = in_play(tournament)
    prepare(row, {short: "AsAh", middle: "KsKh", deep: "QsQh", deepest: "7c2d"}, "3c8d5h2sJd")

    all_in_or_call(row)

    # Main pot 4 x 1,000; side pots 3 x 2,000 and 2 x 3,000; the deepest stack's last
    # 4,000 were called by nobody and come back.
    assert chips(short, middle, deep, deepest) == [4000, 6000, 6000, 4000]
    assert Entry.objects.filter(tournament=tournament, status=EntryStatus.ELIMINATED).count() == 0
    assert in_play(tournament).setup["stacks"] == {
        str(seat_of(row, entry)): amount
        for entry, amount in zip((short, middle, deep, deepest), (4000, 6000, 6000, 4000), strict=True)
    }


def test_players_out_in_the_same_hand_are_placed_by_their_chips_at_its_start():
    tournament, (short, middle, deep, deepest) = started([1000, 3000, 6000, 10000])
    row = in_play(tournament)
    prepare(row, {short: "7c2d", middle: "QsQh", deep: "KsKh", deepest: "AsAh"}, "3c8d5h4sJd")

    all_in_or_call(row)

    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    places = {entry.pk: (entry.status, entry.finish_best) for entry in Entry.objects.filter(tournament=tournament)}
    assert places == {
        deepest.pk: (EntryStatus.ACTIVE, 1),
        deep.pk: (EntryStatus.ELIMINATED, 2),
        middle.pk: (EntryStatus.ELIMINATED, 3),
        short.pk: (EntryStatus.ELIMINATED, 4),
    }
    assert chips(deepest) == [20000]


def test_a_player_eliminated_at_one_table_while_another_tables_hand_goes_on():
    tournament, entries = started([1000] * 8, table_size=4)
    first, second = (in_play(tournament, table__number=number) for number in (1, 2))
    loser = acting(first)
    winner = next(entry for entry in entries if entry.pk in first.seats.values() and entry.pk != loser.pk)
    prepare(first, {loser: "7c2d", winner: "AsAh"}, "3c8d5hKsJd")

    first = act(first, ActionKind.BET_RAISE, 1000)  # all in
    while first.status == HandStatus.PLAYING:
        first = act(first, ActionKind.CHECK_CALL if acting(first).pk == winner.pk else ActionKind.FOLD)
    assert hand_report(hand_id=first.pk, now=timezone.now())

    out = Entry.objects.get(pk=loser.pk)
    assert (out.status, out.finish_best, out.chips) == (EntryStatus.ELIMINATED, 8, 0)
    assert Entry.objects.get(pk=winner.pk).chips > 2000 - 30
    # The other table's hand is the same hand, untouched, and plays on.
    still = in_play(tournament, table__number=2)
    assert (still.pk, still.actions) == (second.pk, [])
    assert act(still, ActionKind.CHECK_CALL).actions != []
    # Table 1 deals again to its three; nobody moves for a difference of one.
    assert len(in_play(tournament, table__number=1).seats) == 3
    assert Entry.objects.filter(tournament=tournament, times_moved__gt=0).count() == 0


OMAHA_HILO = {"game": "omaha_hilo", "betting": "fl"}


def check_down(row: Hand) -> Hand:
    while row.status == HandStatus.PLAYING:
        row = act(row, ActionKind.CHECK_CALL)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    return row


def test_omaha_hi_lo_splits_the_pot_between_the_high_and_the_qualifying_low():
    tournament, (low, high, nothing) = started([1000] * 3, **OMAHA_HILO)
    row = in_play(tournament)
    prepare(row, {low: "As2sQhQc", high: "KsKcJhJd", nothing: "9s9c8h8d"}, "3d4d7cKdTs")

    check_down(row)

    # Each put in the big blind of 20: the pot of 60 is halved between high and low.
    assert chips(low, high, nothing) == [1010, 1010, 980]


def test_omaha_hi_lo_without_a_qualifying_low_gives_the_high_hand_the_whole_pot():
    tournament, (broadway, kings, nines) = started([1000] * 3, **OMAHA_HILO)
    row = in_play(tournament)
    # Nothing on the board is 8 or lower: no low. Ace-queen makes the Broadway straight.
    prepare(row, {broadway: "As2sQhQc", kings: "KsKcJhJd", nines: "9s9c8h8d"}, "Kd9dTcQsJs")

    row = check_down(row)

    assert chips(broadway, kings, nines) == [1040, 980, 980]
    assert row.result["pots"][0]["low"] == []


def test_fixed_limit_refuses_the_fifth_bet_of_a_round():
    tournament, _ = started([1000] * 3, betting="fl")
    row = in_play(tournament)
    for raise_to in (40, 60, 80):  # the big blind's 20 is the first bet
        row = act(row, ActionKind.BET_RAISE, raise_to)
    player = acting(row).player_id

    with pytest.raises(TournamentError, match="one bet and three raises"):
        hand_act(hand_id=row.pk, player_id=player, at=3, kind="cbr", amount=100, now=timezone.now())

    assert len(Hand.objects.get(pk=row.pk).actions) == 3
    assert replay(row).legal().max_to is None  # only call or fold is left


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_before_the_flop_only():
    tournament, _ = started([1000] * 2)
    row = in_play(tournament)
    setup = HandSetup.from_json(row.setup)

    assert setup.small_blind_seat == setup.button
    assert row.to_act == setup.button
    row = act(row, ActionKind.CHECK_CALL)
    assert row.to_act == setup.big_blind_seat
    row = act(row, ActionKind.CHECK_CALL)
    assert len(replay(row).board) == 3
    assert row.to_act == setup.big_blind_seat  # after the flop the button acts last


def test_time_out_checks_a_player_who_faces_no_bet():
    tournament, _ = started([1000] * 2)
    row = act(in_play(tournament), ActionKind.CHECK_CALL)  # the button completes the small blind
    big_blind = acting(row)

    assert hand_due(hand_id=row.pk, at=1, now=row.deadline_at)

    row.refresh_from_db()
    assert row.actions[1] == [seat_of(row, big_blind), ActionKind.CHECK_CALL.value, None]
    assert Entry.objects.get(pk=big_blind.pk).sitting_out


def test_a_player_sitting_out_posts_his_ante_and_blinds_and_is_folded_or_checked_at_once():
    tournament, entries = started([1000] * 3, levels=[(10, 20, 5, 20)])
    away = entries[0]
    entry_sit_out(tournament_id=tournament.pk, player_id=away.player_id, sitting_out=True, now=timezone.now())
    hands_check_down(tournament_id=tournament.pk, now=timezone.now())  # the hand dealt before he left

    row = in_play(tournament)
    seat = seat_of(row, away)  # still dealt in
    others = [entry for entry in entries if entry != away]
    prepare(row, {away: "7c2d", others[0]: "AsAh", others[1]: "KsKh"}, "3c8d9hQsJd")
    start = row.setup["stacks"][str(seat)]
    if row.to_act == seat:  # first to act: his turn is due the moment it begins
        assert row.deadline_at == row.turn_started_at
        hands_catch_up(now=timezone.now(), before=timezone.now(), tournament_id=tournament.pk)
        row.refresh_from_db()
    while not any(action[0] == seat for action in row.actions):
        # He acts in the same moment as the player before him: nobody waits for him.
        row = act(row, ActionKind.CHECK_CALL)
    turn = next(index for index, action in enumerate(row.actions) if action[0] == seat)
    facing = replay(Hand(setup=row.setup, deck=row.deck, actions=row.actions[:turn])).legal().call > 0
    assert row.actions[turn] == [seat, (ActionKind.FOLD if facing else ActionKind.CHECK_CALL).value, None]

    hands_check_down(tournament_id=tournament.pk, now=timezone.now())
    posted = 5 + {row.setup["small_blind_seat"]: 10, row.setup["big_blind_seat"]: 20}.get(seat, 0)
    assert Entry.objects.get(pk=away.pk).chips <= start - posted


def test_balancing_moves_a_player_sitting_out_first():
    tournament, entries = started([1000] * 7, table_size=4)
    big, small = sorted((in_play(tournament, table__number=n) for n in (1, 2)), key=lambda row: -len(row.seats))
    # The big blind now posts the small blind next: no empty seat can pass him through both blinds.
    away = Entry.objects.get(pk=entry_of(big, big.setup["big_blind_seat"]))
    entry_sit_out(tournament_id=tournament.pk, player_id=away.player_id, sitting_out=True, now=timezone.now())
    loser = acting(small)
    winner = next(entry for entry in entries if entry.pk in small.seats.values() and entry.pk != loser.pk)
    prepare(small, {loser: "7c2d", winner: "AsAh"}, "3c8d5hKsJd")
    small = act(small, ActionKind.BET_RAISE, 1000)
    while small.status == HandStatus.PLAYING:
        small = act(small, ActionKind.CHECK_CALL if acting(small).pk == winner.pk else ActionKind.FOLD)
    assert hand_report(hand_id=small.pk, now=timezone.now())

    hands_check_down(tournament_id=tournament.pk, now=timezone.now())  # four against two: one moves

    moved = Entry.objects.filter(tournament=tournament, times_moved__gt=0)
    assert list(moved.values_list("pk", "table_id")) == [(away.pk, small.table_id)]
