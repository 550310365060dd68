"""Rule 20 on real hands played with prepared decks: the scan flags a pair whose big
pots keep going the same way, once; staff withhold a prize, which stays in the pool
until they pay it or confiscate it, through the ledger and with the books clean."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import UserFactory
from tests.tables import act, acting, chips, in_play, prepare, seat_of, started
from tournaments.models import (
    Entry,
    FlagStatus,
    Hand,
    HandStatus,
    IntegrityFlag,
    IntegritySignal,
    PrizeHold,
    PrizeStructure,
    SignalKind,
    Status,
)
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import replay
from tournaments.services.integrity import (
    flag_decide,
    integrity_scan,
    integrity_scan_queue,
    prize_confiscate,
    prize_release,
    prize_withhold,
)
from tournaments.services.prizes import prize_pool_spec
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import entry_sit_out, hand_report
from wallet.models import Transfer, TransferReason
from wallet.services import (
    account_get,
    house_account_spec,
    wallet_account_spec,
)

pytestmark = pytest.mark.django_db


def play(row, *, giver, taker):
    """`giver` raises to 600 before the flop and `taker` calls; everyone else folds;
    then both check it down. Reported to the floor."""
    while row.status == HandStatus.PLAYING:
        hand, who = replay(row), acting(row)
        legal = hand.legal()
        if who.pk == giver.pk and hand.street == "preflop" and hand.bet(legal.seat) < 600:
            row = act(row, ActionKind.BET_RAISE, 600)
        elif who.pk in (giver.pk, taker.pk) or legal.call == 0:
            row = act(row, ActionKind.CHECK_CALL)
        else:
            row = act(row, ActionKind.FOLD)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    return row


def test_three_big_pots_lost_to_the_same_player_flag_the_pair_once():
    tournament, (giver, taker, third) = started([5000, 5000, 5000])
    hands = []
    for _ in range(3):
        row = in_play(tournament)
        prepare(row, {giver: "7c2d", taker: "AsAh", third: "9h8h"}, "3c8d5hKsJd")
        hands.append(play(row, giver=giver, taker=taker).pk)
    assert chips(giver) == [5000 - 3 * 600]

    flags = integrity_scan(tournament_id=tournament.pk, now=timezone.now())

    (flag,) = flags
    assert (flag.kind, flag.player_id, flag.other_id, flag.status) == (
        SignalKind.CHIP_TRANSFER,
        taker.player_id,
        giver.player_id,
        FlagStatus.OPEN,
    )
    assert sorted(flag.signals.values_list("hand_id", flat=True)) == hands
    assert AuditEntry.objects.filter(action="tournaments.integrity.flagged").count() == 1
    # Scanned again: every hand is read once, nothing is flagged twice.
    assert integrity_scan(tournament_id=tournament.pk, now=timezone.now()) == []
    assert (IntegrityFlag.objects.count(), IntegritySignal.objects.count()) == (1, 3)


def test_a_fourth_pot_joins_the_open_flag_and_a_cleared_flag_needs_three_new_ones():
    tournament, (giver, taker, third) = started([5000, 5000, 5000])
    for round_ in range(4):
        row = in_play(tournament)
        prepare(row, {giver: "7c2d", taker: "AsAh", third: "9h8h"}, "3c8d5hKsJd")
        play(row, giver=giver, taker=taker)
        if round_ == 2:
            integrity_scan(tournament_id=tournament.pk, now=timezone.now())
    (flag,) = integrity_scan(tournament_id=tournament.pk, now=timezone.now())
    assert flag.signals.count() == 4

    staff = UserFactory(is_staff=True)
    flag_decide(flag_id=flag.pk, status=FlagStatus.CLEARED, actor=staff, reason="Friends, checked", now=timezone.now())

    row = in_play(tournament)
    prepare(row, {giver: "7c2d", taker: "AsAh", third: "9h8h"}, "3c8d5hKsJd")
    play(row, giver=giver, taker=taker)
    assert integrity_scan(tournament_id=tournament.pk, now=timezone.now()) == []
    assert IntegrityFlag.objects.get().status == FlagStatus.CLEARED


def finish_with_withheld_winner():
    """Three players, winner takes all; the winner's prize withheld on an open flag;
    then an all-in the winner wins: the tournament is over."""
    tournament, (winner, loser, third) = started([1000] * 3, prize_structure=PrizeStructure.WINNER_TAKES_ALL)
    staff = UserFactory(is_staff=True, username="sam")
    flag = IntegrityFlag.objects.create(
        kind=SignalKind.CHIP_TRANSFER,
        tournament=tournament,
        player=winner.player,
        other=loser.player,
        created_at=timezone.now(),
    )
    with pytest.raises(TournamentError) as refused:
        prize_withhold(flag_id=flag.pk, player_id=winner.player_id, actor=staff, reason=" ", now=timezone.now())
    assert refused.value.code == "reason_required"
    prize_withhold(flag_id=flag.pk, player_id=winner.player_id, actor=staff, reason="Review", now=timezone.now())

    row = in_play(tournament)
    prepare(row, {winner: "AsAh", loser: "7c2d", third: "9h8h"}, "3c8d5hKsJd")
    while row.status == HandStatus.PLAYING:
        legal = replay(row).legal()
        row = act(row, ActionKind.BET_RAISE, legal.max_to) if legal.max_to else act(row, ActionKind.CHECK_CALL)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    return tournament, Entry.objects.get(pk=winner.pk), staff


def books_clean():
    call_command("wallet_audit", stdout=StringIO())  # raises on any discrepancy


def test_a_withheld_prize_stays_in_the_pool_then_is_paid_once():
    tournament, winner, staff = finish_with_withheld_winner()
    pool = account_get(prize_pool_spec(tournament))
    player_money = account_get(wallet_account_spec(winner.player_id, pool.currency))
    assert (winner.prize, winner.prize_hold, pool.balance) == (3000, PrizeHold.WITHHELD, 3000)
    assert player_money.balance == 0
    books_clean()
    client = Client()
    client.force_login(winner.player)
    assert "Withheld while the room reviews play" in client.get(reverse("lobby:my_tournaments")).content.decode()

    prize_release(entry_id=winner.pk, actor=staff, reason="Nothing wrong", now=timezone.now())
    with pytest.raises(TournamentError) as refused:
        prize_release(entry_id=winner.pk, actor=staff, reason="Nothing wrong", now=timezone.now())
    assert refused.value.code == "not_withheld"
    with pytest.raises(TournamentError):
        prize_confiscate(entry_id=winner.pk, actor=staff, reason="Too late", now=timezone.now())

    pool.refresh_from_db()
    player_money.refresh_from_db()
    assert (pool.balance, player_money.balance) == (0, 3000)
    assert Transfer.objects.filter(reason=TransferReason.PRIZE, destination=player_money).count() == 1
    assert Entry.objects.get(pk=winner.pk).prize_hold == PrizeHold.PAID
    released = AuditEntry.objects.get(action="tournaments.entry.prize_released")
    assert (released.actor, released.reason) == (staff, "Nothing wrong")
    books_clean()


def public_prize(tournament, winner) -> tuple[str, dict]:
    """The winner's rows in Tournament Info's standings and in the players list (as
    anyone sees them, one after the other), and in the API."""
    client, name = Client(), winner.player.screen_name
    page = client.get(reverse("lobby:tournament", args=[tournament.pk])).content.decode()
    standings = page.split('class="standings"')[1].split("</table>")[0]
    (row,) = [line for line in standings.split("<tr>") if f"<td>{name}</td>" in line]
    players = client.get(reverse("lobby:players", args=[tournament.pk])).content.decode()
    (listed,) = [line for line in players.split("<tr") if f"<td>{name}</td>" in line]
    api = client.get(reverse("api-tournament-detail", args=[tournament.pk])).json()
    (finisher,) = [f for f in api["standings"]["finished"] if f["player"] == name]
    return row + listed, finisher


def test_a_withheld_prize_confiscated_goes_to_the_house():
    tournament, winner, staff = finish_with_withheld_winner()
    pool = account_get(prize_pool_spec(tournament))
    house_before = account_get(house_account_spec(pool.currency)).balance
    row, finisher = public_prize(tournament, winner)  # the review is private: the place's prize shows
    assert row.count("€30") == 2
    assert "Forfeited" not in row
    assert (finisher["prize"], finisher["forfeited"]) == (3000, False)

    with pytest.raises(TournamentError):
        prize_confiscate(entry_id=winner.pk, actor=staff, reason="", now=timezone.now())
    prize_confiscate(entry_id=winner.pk, actor=staff, reason="Chip dumping confirmed", now=timezone.now())

    pool.refresh_from_db()
    assert pool.balance == 0
    assert account_get(house_account_spec(pool.currency)).balance == house_before + 3000
    assert account_get(wallet_account_spec(winner.player_id, pool.currency)).balance == 0
    assert Transfer.objects.filter(reason=TransferReason.CONFISCATION, amount=3000).count() == 1
    assert Entry.objects.get(pk=winner.pk).prize_hold == PrizeHold.CONFISCATED
    assert AuditEntry.objects.filter(action="tournaments.entry.prize_confiscated", actor=staff).count() == 1
    with pytest.raises(TournamentError) as refused:
        prize_release(entry_id=winner.pk, actor=staff, reason="Changed my mind", now=timezone.now())
    assert refused.value.code == "not_withheld"
    assert account_get(house_account_spec(pool.currency)).balance == house_before + 3000
    row, finisher = public_prize(tournament, winner)  # nobody was paid it: the standings say so
    assert row.count("Forfeited after the room's review") == 2  # the standings and the players list
    assert "€30" not in row
    assert (finisher["prize"], finisher["forfeited"]) == (0, True)
    books_clean()


def test_a_prize_already_paid_cannot_be_withheld_and_only_flagged_players_can_be():
    tournament, (first, second, third) = started([1000] * 3, prize_structure=PrizeStructure.WINNER_TAKES_ALL)
    staff = UserFactory(is_staff=True)
    flag = IntegrityFlag.objects.create(
        kind=SignalKind.STRONG_FOLD,
        tournament=tournament,
        player=first.player,
        other=second.player,
        created_at=timezone.now(),
    )
    with pytest.raises(TournamentError) as refused:
        prize_withhold(flag_id=flag.pk, player_id=third.player_id, actor=staff, reason="Why", now=timezone.now())
    assert refused.value.code == "withhold_not_flagged"
    Entry.objects.filter(pk=first.pk).update(prize=0, finish_best=2, finish_worst=2)
    with pytest.raises(TournamentError) as refused:
        prize_withhold(flag_id=flag.pk, player_id=first.player_id, actor=staff, reason="Why", now=timezone.now())
    assert refused.value.code == "withhold_paid"
    flag_decide(flag_id=flag.pk, status=FlagStatus.CONFIRMED, actor=staff, reason="Seen", now=timezone.now())
    with pytest.raises(TournamentError) as refused:
        prize_withhold(flag_id=flag.pk, player_id=second.player_id, actor=staff, reason="Why", now=timezone.now())
    assert refused.value.code == "flag_not_open"


def test_kings_folded_twice_to_the_same_raiser_flag_the_pair():
    tournament, (folder, raiser, third) = started([5000, 5000, 5000])

    def raiser_seat(row):
        return seat_of(row, raiser)

    for _ in range(2):
        row = in_play(tournament)
        prepare(row, {folder: "KsKh", raiser: "7c2d", third: "9h8h"}, "3c8d5hAsJd")
        while row.status == HandStatus.PLAYING:
            hand, who = replay(row), acting(row)
            if who.pk == raiser.pk and hand.bet(hand.legal().seat) < 100:
                row = act(row, ActionKind.BET_RAISE, 100)
            elif who.pk == raiser.pk or (who.pk == folder.pk and hand.bet(raiser_seat(row)) < 100):
                row = act(row, ActionKind.CHECK_CALL)  # the kings wait for the raise
            else:
                row = act(row, ActionKind.FOLD)
        assert hand_report(hand_id=row.pk, now=timezone.now())

    (flag,) = integrity_scan(tournament_id=tournament.pk, now=timezone.now())

    assert (flag.kind, flag.player_id, flag.other_id) == (SignalKind.STRONG_FOLD, raiser.player_id, folder.player_id)
    assert list(flag.signals.values_list("detail", flat=True)) == ["KK preflop", "KK preflop"]


def test_signals_count_across_tournaments():
    earlier, (giver, taker, _third) = started([5000, 5000, 5000])
    hands = list(Hand.objects.filter(tournament=earlier)[:1])
    for hand in hands:
        IntegritySignal.objects.create(
            kind=SignalKind.CHIP_TRANSFER, hand=hand, player=taker.player, other=giver.player, detail="knockout"
        )
    tournament, (again_giver, again_taker, third) = started([5000, 5000, 5000])
    Entry.objects.filter(pk=again_giver.pk).update(player=giver.player)
    Entry.objects.filter(pk=again_taker.pk).update(player=taker.player)
    for _ in range(2):
        row = in_play(tournament)
        prepare(row, {again_giver: "7c2d", again_taker: "AsAh", third: "9h8h"}, "3c8d5hKsJd")
        play(row, giver=again_giver, taker=again_taker)

    (flag,) = integrity_scan(tournament_id=tournament.pk, now=timezone.now())

    assert (flag.player_id, flag.other_id, flag.tournament_id) == (taker.player_id, giver.player_id, tournament.pk)
    assert {signal.hand.tournament_id for signal in flag.signals.all()} == {earlier.pk, tournament.pk}


def test_an_elimination_queues_one_scan_after_its_commit(monkeypatch, django_capture_on_commit_callbacks):
    sent = []

    class Sent:
        def __init__(self, name, args):
            self.name, self.args = name, args

        def apply_async(self, **options):
            sent.append((self.name, self.args))

    monkeypatch.setattr("tournaments.services.integrity.signature", Sent)
    monkeypatch.setattr("tournaments.services.hands.signature", Sent)
    tournament, (short, deep) = started([1000, 5000])
    scans = lambda: [args for name, args in sent if name == "tournaments.tasks.integrity_scan"]  # noqa: E731

    with django_capture_on_commit_callbacks(execute=True):
        row = act(in_play(tournament), ActionKind.FOLD)
        assert hand_report(hand_id=row.pk, now=timezone.now())
    assert scans() == []  # nobody out: no scan

    row = in_play(tournament)
    prepare(row, {short: "7c2d", deep: "AsAh"}, "3c8d5hKsJd")
    with django_capture_on_commit_callbacks(execute=True):
        while row.status == HandStatus.PLAYING:
            legal = replay(row).legal()
            row = act(row, ActionKind.BET_RAISE, legal.max_to) if legal.max_to else act(row, ActionKind.CHECK_CALL)
        assert hand_report(hand_id=row.pk, now=timezone.now())

    assert scans() == [(tournament.pk,)]


def test_two_players_sitting_out_together_three_times_are_flagged_once():
    tournament, (first, second, third) = started([5000, 5000, 5000])
    start = timezone.now()
    for round_ in range(3):
        at = start + timedelta(minutes=10 * round_)
        for entry, seconds in ((first, 0), (second, 20)):
            entry_sit_out(
                tournament_id=tournament.pk,
                player_id=entry.player_id,
                sitting_out=True,
                now=at + timedelta(seconds=seconds),
            )
        for entry in (first, second):
            entry_sit_out(tournament_id=tournament.pk, player_id=entry.player_id, sitting_out=False, now=at)
    # The third sits out alone, long after.
    entry_sit_out(
        tournament_id=tournament.pk, player_id=third.player_id, sitting_out=True, now=start + timedelta(hours=1)
    )

    (flag,) = integrity_scan(tournament_id=tournament.pk, now=timezone.now())

    low, high = sorted((first.player_id, second.player_id))
    assert (flag.kind, flag.player_id, flag.other_id) == (SignalKind.SIT_OUT_TOGETHER, low, high)
    assert list(flag.signals.values_list("detail", flat=True)) == ["sat out 20 s apart"] * 3
    assert integrity_scan(tournament_id=tournament.pk, now=timezone.now()) == []
    assert IntegritySignal.objects.count() == 3


def test_scans_are_queued_once_in_a_while_and_always_at_the_end(monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(
        "tournaments.services.integrity.signature",
        lambda name, args: type("Sent", (), {"apply_async": lambda self: sent.append(args)})(),
    )

    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            integrity_scan_queue(41)
        integrity_scan_queue(42)
        integrity_scan_queue(41, over=True)

    assert sent == [(41,), (42,), (41,)]
