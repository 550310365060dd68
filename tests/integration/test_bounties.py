"""Knockout bounties paid from real hands on prepared decks (rules 24-27): each
player knocked out has his bounty paid, through the ledger, to the winners of the
pot he put his last chips in; split to the cent; the high hand's in hi/lo; once."""

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import User
from tests.factories import UserFactory
from tests.integration.test_table_rules import OMAHA_HILO, all_in_or_call
from tests.tables import act, in_play, prepare, seat_of, started
from tournaments.models import Entry, Hand, HandStatus, IntegrityFlag, PrizeHold, SignalKind, Status, Tournament
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import entry_of, replay
from tournaments.services.bounties import bounties_pay
from tournaments.services.cancellation import CancelMode, tournament_cancel
from tournaments.services.integrity import prize_confiscate, prize_release, prize_withhold
from tournaments.services.prizes import bounty_spec
from tournaments.services.tables import entry_sit_out, hand_report, hands_catch_up
from wallet.models import Transfer, TransferReason
from wallet.services import account_get, house_account_spec, wallet_account_spec

pytestmark = pytest.mark.django_db

BOUNTY = 500  # cents
KNOCKOUT = {"bounty_kind": "knockout", "bounty_amount": BOUNTY, "buy_in": 1000, "fee": 100}


def balance(entry: Entry) -> int:
    return account_get(wallet_account_spec(entry.player_id, "EUR")).balance


def books_balance() -> None:
    call_command("wallet_audit", stdout=StringIO())


def test_the_rule_24_example_pays_each_bounty_from_its_relevant_pot():
    tournament, (daniel, barry, vicky, julian) = started([100, 200, 400, 1000], **KNOCKOUT)
    row = in_play(tournament)
    prepare(row, {barry: "AsAh", julian: "KsKh", vicky: "QsQh", daniel: "7c2d"}, "9c8d5h3sJd")

    row = all_in_or_call(row)

    # Barry wins the main pot and side pot 1, Julian side pot 2.
    pots = row.result["pots"]
    assert [pot["high"] for pot in pots[:3]] == [[seat_of(row, barry)]] * 2 + [[seat_of(row, julian)]]
    assert [balance(entry) for entry in (daniel, barry, vicky, julian)] == [0, BOUNTY, 0, BOUNTY]
    row.refresh_from_db()
    assert sorted(row.bounties, key=lambda award: award["victim"]) == sorted(
        [
            {"victim": daniel.pk, "won": {str(barry.pk): BOUNTY}},
            {"victim": vicky.pk, "won": {str(julian.pk): BOUNTY}},
        ],
        key=lambda award: award["victim"],
    )
    paid_out = Transfer.objects.filter(reason=TransferReason.BOUNTY).exclude(memo="")  # not the buy-ins' bounties
    memos = set(paid_out.values_list("memo", flat=True))
    assert memos == {f"bounty of {daniel.player.screen_name}", f"bounty of {vicky.player.screen_name}"}
    books_balance()
    table = Client().get(f"/tournaments/{tournament.pk}/tables/1/").text
    assert f"{barry.player.screen_name} won {daniel.player.screen_name}'s bounty of €5" in table
    assert f"{julian.player.screen_name} won {vicky.player.screen_name}'s bounty of €5" in table

    players = Client().get(f"/tournaments/{tournament.pk}/players/").text
    assert "Bounties won" in players
    barry_row = re.search(rf"<tr[^>]*>(?:(?!</tr>).)*{barry.player.screen_name}(?:(?!</tr>).)*</tr>", players, re.S)
    daniel_row = re.search(rf"<tr[^>]*>(?:(?!</tr>).)*{daniel.player.screen_name}(?:(?!</tr>).)*</tr>", players, re.S)
    assert barry_row is not None
    assert daniel_row is not None
    assert barry_row.group(0).count("€5") == 2  # the bounty on his head, and Daniel's he won
    assert "€5" not in daniel_row.group(0)

    wallet = Client()
    wallet.force_login(barry.player)
    history = wallet.get("/wallet/").text
    assert f"bounty of {daniel.player.screen_name}" in history
    assert tournament.name in history

    info = Client().get(f"/tournaments/{tournament.pk}/").text
    assert f"{barry.player.screen_name} " in info
    assert "(bounty €5, €5 in bounties won)" in info  # Barry among the chip leaders
    body = Client().get(f"/api/v1/tournaments/{tournament.pk}/").json()
    leaders = {leader["player"]: leader for leader in body["standings"]["chip_leaders"]}
    assert (leaders[barry.player.screen_name]["bounty"], leaders[barry.player.screen_name]["bounties_won"]) == (
        BOUNTY,
        BOUNTY,
    )
    finished = {finisher["player"]: finisher["bounties_won"] for finisher in body["standings"]["finished"]}
    assert finished == {daniel.player.screen_name: 0, vicky.player.screen_name: 0}

    # A report repeated (a retried task) pays nothing twice.
    bounties_pay(tournament=tournament, rows=[Hand.objects.get(pk=row.pk)])
    assert [balance(entry) for entry in (daniel, barry, vicky, julian)] == [0, BOUNTY, 0, BOUNTY]
    books_balance()


def test_a_bounty_split_three_ways_gives_the_odd_cent_to_the_first_winner_after_the_button():
    tournament, (victim, *winners) = started([100, 1000, 1000, 1000], **KNOCKOUT)
    row = in_play(tournament)
    # A straight on the board; a jack makes each winner the higher one.
    prepare(row, {victim: "2d3h", winners[0]: "JcAd", winners[1]: "JdAh", winners[2]: "JhAs"}, "Tc9d8h7s6c")

    row = all_in_or_call(row)

    button = row.setup["button"]
    seats = sorted(int(seat) for seat in row.seats)
    order = [seat for seat in seats if seat > button] + [seat for seat in seats if seat <= button]
    first = min(winners, key=lambda entry: order.index(seat_of(row, entry)))
    last = max(winners, key=lambda entry: order.index(seat_of(row, entry)))
    paid = {entry.pk: balance(entry) for entry in winners}
    # 500 cents in three: 166 each and two odd cents, to the first two after the button.
    assert sum(paid.values()) == BOUNTY
    assert (paid[first.pk], paid[last.pk]) == (167, 166)
    assert sorted(paid.values()) == [166, 167, 167]
    books_balance()


def test_in_hi_lo_the_bounty_goes_with_the_high_half_and_the_low_winner_gets_none():
    tournament, (low, high, out) = started([1000, 1000, 30], **(OMAHA_HILO | KNOCKOUT))
    row = in_play(tournament)
    prepare(row, {low: "As2sQhQc", high: "KsKcJhJd", out: "9s9c8h8d"}, "3d4d7cKdTs")

    row = all_in_or_call(row)

    relevant = next(pot for pot in reversed(row.result["pots"]) if seat_of(row, out) in pot["eligible"])
    assert relevant["low"] == [seat_of(row, low)]  # the low took half the pot
    assert (balance(high), balance(low)) == (BOUNTY, 0)
    books_balance()


def test_the_winner_of_a_knockout_event_gets_his_own_bounty():
    tournament, (winner, loser) = started([1000, 1000], **KNOCKOUT)
    row = in_play(tournament)
    prepare(row, {winner: "AsAh", loser: "7c2d"}, "9c8d5h3sJd")

    all_in_or_call(row)

    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    winner.refresh_from_db()
    # His prize, the loser's bounty and his own.
    assert (balance(winner), balance(loser)) == (winner.prize + 2 * BOUNTY, 0)
    books_balance()


def test_no_bounty_is_paid_in_an_event_without_bounties():
    tournament, (winner, loser) = started([1000, 1000])
    row = in_play(tournament)
    prepare(row, {winner: "AsAh", loser: "7c2d"}, "9c8d5h3sJd")

    all_in_or_call(row)

    assert not Transfer.objects.filter(reason=TransferReason.BOUNTY).exists()
    books_balance()


def test_a_progressive_knockout_chain_pays_half_in_cash_and_carries_half_on_the_winners_heads():
    tournament, (a, b, c) = started([2000, 500, 10_000], bounty_kind="progressive", bounty_amount=BOUNTY)
    row = in_play(tournament)
    prepare(row, {a: "AsAh", c: "KsKh", b: "7c2d"}, "9c8d5h3sJd")

    all_in_or_call(row)  # A knocks B out: 250 in cash, 250 on A's head

    assert balance(a) == 250
    assert Entry.objects.get(pk=a.pk).bounty_added == 250
    table = Client().get(f"/tournaments/{tournament.pk}/tables/1/").text
    assert f"{a.player.screen_name} won {b.player.screen_name}'s bounty of €2.50 (and €2.50 on his own head)" in table
    assert "Bounty €7.50" in table  # on A's head; C's is still €5
    assert "Bounty €5" in table
    row = in_play(tournament)
    prepare(row, {a: "7d2c", c: "AdAc"}, "9h8s5d3cJh")

    all_in_or_call(row)  # C knocks A out: A's head of 750, 375 in cash and 375 on C's head

    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    a.refresh_from_db()
    b.refresh_from_db()
    c.refresh_from_db()
    assert balance(b) == b.prize
    assert balance(a) == a.prize + 250
    # 375 for A's bounty, then his own head as the winner: 500 paid, 375 added.
    assert balance(c) == c.prize + 375 + 875
    # Every cent of the bounties in is paid out.
    assert account_get(bounty_spec(tournament)).balance == 0
    books_balance()


def test_a_progressive_knockout_cancelled_mid_play_returns_every_head_in_full(staff):
    tournament, (a, b, c) = started([2000, 500, 10_000], bounty_kind="progressive", bounty_amount=BOUNTY)
    row = in_play(tournament)
    prepare(row, {a: "AsAh", c: "KsKh", b: "7c2d"}, "9c8d5h3sJd")
    all_in_or_call(row)  # A knocks B out: 250 in cash, 250 on A's head

    tournament_cancel(
        tournament_id=tournament.pk,
        actor=staff,
        reason="Servers down",
        mode=CancelMode.ROLL_FORWARD,
        now=tournament.scheduled_start,
    )

    bounty_refunds = Transfer.objects.filter(reason__in=[TransferReason.REFUND, TransferReason.BOUNTY]).exclude(memo="")
    assert account_get(bounty_spec(tournament)).balance == 0
    assert bounty_refunds.filter(memo="bounties won, on his head").get().amount == 250
    books_balance()


# The room's bounties: Team Pro and fixed (rules 27, 28)


def test_a_team_pro_s_bounty_is_paid_by_the_room_and_a_player_s_knockout_pays_none():
    tournament, (pro, winner, other) = started([500, 5000, 400], bounty_kind="team_pro", bounty_amount=1000)
    User.objects.filter(pk=pro.player_id).update(is_team_pro=True)
    row = in_play(tournament)
    prepare(row, {winner: "AsAh", pro: "KsKh", other: "7c2d"}, "9c8d5h3sJd")

    all_in_or_call(row)  # both short stacks out

    winner.refresh_from_db()
    assert balance(winner) == winner.prize + 1000  # the pro's bounty, none for the other
    paid = Transfer.objects.filter(reason=TransferReason.BOUNTY).exclude(memo="").get()
    assert (paid.source.kind, paid.amount, paid.memo) == ("house", 1000, f"bounty of {pro.player.screen_name}")
    books_balance()


def test_a_fixed_bounty_player_who_did_not_play_has_no_bounty_and_one_who_wins_keeps_none():
    tournament, (named, loser) = started([1000, 1000], bounty_kind="fixed", bounty_amount=2000)
    absent = UserFactory(screen_name="Absent Pro")
    tournament.bounty_players.add(named.player, absent)
    row = in_play(tournament)
    prepare(row, {named: "AsAh", loser: "7c2d"}, "9c8d5h3sJd")

    Tournament.objects.filter(pk=tournament.pk).update(status="running")  # late registration over: it is known
    lobby = Client().get("/?status=running").text
    info = Client().get(f"/tournaments/{tournament.pk}/").text
    all_in_or_call(row)  # the bounty player wins the event

    assert 'Absent Pro <span class="note">did not play: no bounty</span>' in info
    assert "(1 bounty player did not play: no bounty)" in lobby
    assert named.player.screen_name in info
    named.refresh_from_db()
    assert balance(named) == named.prize  # the room keeps his bounty (rule 27)
    assert not Transfer.objects.filter(reason=TransferReason.BOUNTY).exists()
    books_balance()


@pytest.mark.parametrize("kind", ["knockout", "progressive"])
def test_over_a_whole_bot_tournament_every_cent_of_bounty_in_is_paid_out(kind):
    """The property: what the entrants paid into the bounty account leaves it, to the
    cent, as bounties won and the winner's own head; the account ends empty."""
    tournament, entries = started([200] * 12, bounty_kind=kind, bounty_amount=777, pko_cash_percent=40)
    User.objects.filter(pk__in=[entry.player_id for entry in entries]).update(is_bot=True)
    now = tournament.scheduled_start
    for _ in range(2000):
        tournament.refresh_from_db()
        if tournament.status == Status.FINISHED:
            break
        now += timedelta(seconds=30)
        hands_catch_up(now=now, before=now, tournament_id=tournament.pk)

    assert tournament.status == Status.FINISHED
    paid_in = 12 * 777
    paid_out = Transfer.objects.filter(reason=TransferReason.BOUNTY).exclude(memo="")
    assert sum(paid_out.values_list("amount", flat=True)) == paid_in
    assert account_get(bounty_spec(tournament)).balance == 0
    books_balance()


# Rule 29: bounties won while a player's winnings are withheld for review


def knockout_while_withheld(staff):
    """A knockout event; the big stack's winnings withheld on an open flag; then he
    calls the short stack's all-in and knocks him out (the third player folds)."""
    tournament, (big, short, third) = started([3000, 500, 3000], **KNOCKOUT)
    flag = IntegrityFlag.objects.create(
        kind=SignalKind.CHIP_TRANSFER,
        tournament=tournament,
        player=big.player,
        other=short.player,
        created_at=timezone.now(),
    )
    prize_withhold(flag_id=flag.pk, player_id=big.player_id, actor=staff, reason="Review", now=timezone.now())
    row = in_play(tournament)
    prepare(row, {big: "AsAh", short: "7c2d", third: "9h8h"}, "3c8d5hKsJd")
    while row.status == HandStatus.PLAYING:
        legal = replay(row).legal()
        who = entry_of(row, row.to_act)
        if who == short.pk and legal.max_to:
            row = act(row, ActionKind.BET_RAISE, legal.max_to)  # all in
        elif who == third.pk and not legal.can_check:
            row = act(row, ActionKind.FOLD)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    big.refresh_from_db()
    return tournament, big, short


def test_a_bounty_won_while_withheld_stays_in_the_bounty_account_until_staff_pay_it(staff):
    tournament, big, short = knockout_while_withheld(staff)
    assert Entry.objects.get(pk=short.pk).status == "eliminated"
    assert (big.bounty_held, balance(big)) == (BOUNTY, 0)
    assert account_get(bounty_spec(tournament)).balance == 3 * BOUNTY  # nothing has left it
    books_balance()

    prize_release(entry_id=big.pk, actor=staff, reason="Nothing wrong", now=timezone.now())

    assert balance(big) == BOUNTY
    assert Entry.objects.get(pk=big.pk).bounty_held == 0
    books_balance()


def test_a_bounty_won_while_withheld_is_confiscated_with_the_prize(staff):
    tournament, big, _ = knockout_while_withheld(staff)
    Entry.objects.filter(pk=big.pk).update(prize=0)  # his prize is due (none): the decision can be made
    house_before = account_get(house_account_spec("EUR")).balance

    prize_confiscate(entry_id=big.pk, actor=staff, reason="Chip dumping confirmed", now=timezone.now())

    assert balance(big) == 0
    assert account_get(house_account_spec("EUR")).balance == house_before + BOUNTY
    assert account_get(bounty_spec(tournament)).balance == 2 * BOUNTY
    books_balance()


def knock_out(tournament: Tournament, big: Entry, victims: list[Entry]) -> None:
    """The next hand: the victims go all in, the big stack calls and wins with aces,
    every other player folds to a bet."""
    row = in_play(tournament)
    others = [Entry.objects.get(pk=pk) for pk in map(int, row.seats.values()) if pk != big.pk]
    cards = iter(["7c2d", "7h2s", "6c2h", "6d2c", "9c9d"])
    prepare(row, {big: "AsAh"} | {entry: next(cards) for entry in others}, "3c8d5hKsJd")
    out = {entry.pk for entry in victims}
    while row.status == HandStatus.PLAYING:
        hand = replay(row)
        legal = hand.legal()
        who = entry_of(row, row.to_act)
        if who in out and legal.max_to is not None and legal.max_to > legal.call + hand.bet(legal.seat):
            row = act(row, ActionKind.BET_RAISE, legal.max_to)  # all in
        elif who not in out and who != big.pk and not legal.can_check:
            row = act(row, ActionKind.FOLD)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    assert Entry.objects.filter(pk__in=out, status="eliminated").count() == len(out)


def withhold(flag: IntegrityFlag, entry: Entry, staff: User) -> None:
    prize_withhold(flag_id=flag.pk, player_id=entry.player_id, actor=staff, reason="Review", now=timezone.now())


def lift(entry: Entry, staff: User) -> None:
    prize_release(entry_id=entry.pk, actor=staff, reason="Nothing found yet", now=timezone.now())


def flagged(tournament: Tournament, big: Entry, other: Entry) -> IntegrityFlag:
    return IntegrityFlag.objects.create(
        kind=SignalKind.CHIP_TRANSFER,
        tournament=tournament,
        player=big.player,
        other=other.player,
        created_at=timezone.now(),
    )


@pytest.mark.parametrize("second", [1, 2])
def test_a_hold_lifted_and_made_again_pays_the_bounties_of_each_period_in_full(staff, second):
    # One bounty in the second period was paid as the first again (nothing); two
    # collided with the first period's payment ("request key was already used").
    tournament, (big, v1, v2, v3, other) = started([10_000, 500, 500, 500, 10_000], **KNOCKOUT)
    flag = flagged(tournament, big, other)
    withhold(flag, big, staff)
    knock_out(tournament, big, [v1])
    lift(big, staff)
    assert balance(big) == BOUNTY

    withhold(flag, big, staff)
    knock_out(tournament, big, [v2, v3][:second])
    assert balance(big) == BOUNTY
    assert Entry.objects.get(pk=big.pk).bounty_held == second * BOUNTY
    lift(big, staff)

    assert balance(big) == (1 + second) * BOUNTY
    assert Entry.objects.get(pk=big.pk).bounty_held == 0
    assert account_get(bounty_spec(tournament)).balance == (5 - 1 - second) * BOUNTY
    books_balance()


def test_the_third_period_of_a_hold_is_confiscated_in_full_after_two_lifted_ones_were_paid(staff):
    tournament, (big, v1, v2, v3) = started([10_000, 500, 500, 500], **KNOCKOUT)
    flag = flagged(tournament, big, v1)
    for victim in (v1, v2):
        withhold(flag, big, staff)
        knock_out(tournament, big, [victim])
        lift(big, staff)
    assert balance(big) == 2 * BOUNTY
    withhold(flag, big, staff)
    knock_out(tournament, big, [v3])  # the last: he wins the event, its prize and his own head
    tournament.refresh_from_db()
    big.refresh_from_db()
    assert tournament.status == Status.FINISHED
    assert (big.bounty_held, big.prize_hold) == (2 * BOUNTY, PrizeHold.WITHHELD)
    house_before = account_get(house_account_spec("EUR")).balance

    prize_confiscate(entry_id=big.pk, actor=staff, reason="Chip dumping confirmed", now=timezone.now())

    assert balance(big) == 2 * BOUNTY
    assert account_get(house_account_spec("EUR")).balance == house_before + big.prize + 2 * BOUNTY
    assert account_get(bounty_spec(tournament)).balance == 0
    assert Entry.objects.get(pk=big.pk).bounty_held == 0
    books_balance()


def test_a_knockout_event_rolled_back_after_a_bounty_was_won_refunds_everyone_and_the_winner_keeps_it(staff):
    tournament, (winner, loser, third) = started([1000, 500, 1000], **KNOCKOUT)
    row = in_play(tournament)
    prepare(row, {winner: "AsAh", loser: "7c2d", third: "9h8h"}, "3c8d5hKsJd")
    while row.status == HandStatus.PLAYING:
        legal = replay(row).legal()
        who = entry_of(row, row.to_act)
        if who == loser.pk and legal.max_to:
            row = act(row, ActionKind.BET_RAISE, legal.max_to)
        elif who == third.pk and not legal.can_check:
            row = act(row, ActionKind.FOLD)
        else:
            row = act(row, ActionKind.CHECK_CALL)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    assert balance(winner) == BOUNTY
    house_before = account_get(house_account_spec("EUR")).balance

    tournament_cancel(tournament_id=tournament.pk, actor=staff, reason="Servers down", now=timezone.now())

    price = 1000 + 100 + BOUNTY
    assert [balance(entry) for entry in (winner, loser, third)] == [price + BOUNTY, price, price]
    assert account_get(house_account_spec("EUR")).balance == house_before - BOUNTY  # the room pays the bounty won
    assert account_get(bounty_spec(tournament)).balance == 0
    books_balance()


def test_a_match_ended_for_idleness_gives_its_leader_the_bounties_of_the_players_it_put_out():
    # Rule 18.5 with rule 24: the leader takes every chip at the table, and so every head.
    tournament, entries = started([1500, 1000, 500], table_size=3, shootout=True, idle_hands_limit=2, **KNOCKOUT)
    leader, *others = entries
    for entry in entries:
        entry_sit_out(tournament_id=tournament.pk, player_id=entry.player_id, sitting_out=True, now=timezone.now())

    for _ in range(2):  # each hand plays itself: blinds posted, folded or checked at once
        hands_catch_up(now=timezone.now(), before=timezone.now(), tournament_id=tournament.pk)

    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    for entry in entries:
        entry.refresh_from_db()
    assert leader.finish_best == 1
    awards = [award for hand in Hand.objects.filter(tournament=tournament) for award in hand.bounties]
    assert sorted(award["victim"] for award in awards) == sorted(entry.pk for entry in others)
    assert all(award["won"] == {str(leader.pk): BOUNTY} for award in awards)
    # Both heads at the table, and his own as the event's winner (rule 27).
    assert balance(leader) == (leader.prize or 0) + 3 * BOUNTY
    assert [balance(entry) for entry in others] == [entry.prize or 0 for entry in others]
    books_balance()
