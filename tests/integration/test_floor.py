"""The floor at the start: the seat draw, the first buttons, late entrants' seats,
and the tables on Tournament Info (rules 4, 5, 9)."""

from collections import Counter
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import REBUY_TERMS, BlindStructureFactory, TournamentFactory, entrants
from tournaments.models import BreakPolicyKind, Entry, Hand, Table
from tournaments.selectors.payouts import tournament_payouts
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_rebuy
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import floor_hand_finished
from wallet.models import AccountKind
from wallet.services import AccountSpec, account_get, deposit_create, wallet_account_spec

pytestmark = pytest.mark.django_db


def started(count: int, **fields):
    now = timezone.now()
    fields = {"table_size": 6, "break_policy": BreakPolicyKind.NONE, "max_entrants": 100} | fields
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=now + timedelta(minutes=5), **fields
    )
    entrants(tournament, count, now=now)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tournament.refresh_from_db()
    return tournament


def test_the_start_draws_everyone_to_even_tables_with_a_button_each():
    tournament = started(14)

    entries = Entry.objects.filter(tournament=tournament)
    assert all(entry.table_id and entry.seat for entry in entries)
    assert sorted(Counter(entry.table.number for entry in entries).values()) == [4, 5, 5]
    for table in Table.objects.filter(tournament=tournament):
        occupied = sorted(table.entries.values_list("seat", flat=True))
        assert table.button == occupied[0]  # the first occupied seat from seat 1
    assert AuditEntry.objects.get(action="tournaments.floor.drawn").data == {"tables": 3, "players": 14}


def test_a_late_entrant_sits_at_the_table_with_the_fewest_players():
    tournament = started(14)
    smallest = min(Table.objects.filter(tournament=tournament), key=lambda table: table.entries.count())

    (late,) = entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))

    entry = Entry.objects.get(tournament=tournament, player=late)
    assert entry.late
    assert entry.table == smallest
    assert entry.seat not in set(smallest.entries.exclude(pk=entry.pk).values_list("seat", flat=True))


def test_when_every_table_is_full_a_late_entrant_opens_a_new_one():
    tournament = started(6)
    (late,) = entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))
    assert Entry.objects.get(tournament=tournament, player=late).table.number == 2


def test_tournament_info_lists_each_table_with_its_players_and_the_chip_leaders(client):
    tournament = started(7)
    page = " ".join(client.get(f"/tournaments/{tournament.pk}/").content.decode().split())
    assert "Chip leaders" in page
    seated = Counter(Entry.objects.filter(tournament=tournament).values_list("table__number", flat=True))
    assert sorted(seated) == [1, 2]
    for number, players in seated.items():
        path = f"/tournaments/{tournament.pk}/tables/{number}/"
        assert f'<tr><td><a href="{path}">Table {number}</a></td><td class="money">{players}</td>' in page


# Hands, eliminations, prizes and the end, through the services


def stacks_at(tournament, number: int) -> dict[int, int]:
    return dict(
        Entry.objects.filter(table__tournament=tournament, table__number=number, table__broken_at=None).values_list(
            "pk", "chips"
        )
    )


def bust(tournament, number: int, *losers: int, now=None) -> None:
    """A hand at table `number`: `losers` (entry ids) lose everything to the table's biggest other stack."""
    stacks = stacks_at(tournament, number)
    winner = max((pk for pk in stacks if pk not in losers), key=lambda pk: (stacks[pk], pk))
    result = dict(stacks)
    for pk in losers:
        result[winner] += result[pk]
        result[pk] = 0
    floor_hand_finished(tournament_id=tournament.pk, table=number, stacks=result, now=now or timezone.now())


def test_a_table_has_its_own_page_with_every_seat_and_tournament_info_links_to_it(client):
    tournament = started(7)
    table = Table.objects.get(tournament=tournament, number=1)
    seated = {entry.seat: entry for entry in table.entries.select_related("player")}

    page = client.get(f"/tournaments/{tournament.pk}/tables/1/").content.decode()

    assert f'data-live="table-{tournament.pk}-1.en,tables-{tournament.pk}.en"' in page
    for entry in seated.values():
        assert entry.player.screen_name in page
    assert page.count("Empty") == tournament.table_size - len(seated)
    hand = Hand.objects.get(table=table)
    assert f"Hand #{hand.pk} in play" in page
    assert hand.commitment in page  # the deck committed to before a card is seen
    info = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/tables/1/"' in info
    missing = client.get(f"/tournaments/{tournament.pk}/tables/9/")
    assert missing.status_code == 404


def test_players_out_are_placed_and_paid_through_the_wallet_and_the_winner_takes_first():
    tournament = started(3, late_registration_minutes=0, buy_in=1000, fee=100)
    assert tournament.payouts_locked_at is not None
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    pool = account_get(AccountSpec(kind=AccountKind.PRIZE_POOL, currency="EUR", ref=f"tournament:{tournament.pk}"))
    assert pool.balance == 3000

    first_out = min(entries, key=lambda e: e.pk)
    bust(tournament, 1, first_out.pk)
    first_out.refresh_from_db()
    assert (first_out.status, first_out.finish_best, first_out.finish_worst) == ("eliminated", 3, 3)

    left = [e.pk for e in entries if e.pk != first_out.pk]
    bust(tournament, 1, left[0])
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    winner = Entry.objects.get(pk=left[1])
    assert winner.finish_best == 1
    assert winner.prize == 3000  # three entrants: winner takes all
    assert account_get(wallet_account_spec(winner.player_id, "EUR")).balance == 3000
    pool.refresh_from_db()
    assert pool.balance == 0
    call_command("wallet_audit", stdout=StringIO())  # the books balance
    assert AuditEntry.objects.filter(action="tournaments.floor.finished", subject_id=str(tournament.pk)).exists()


def test_a_hand_result_that_creates_chips_is_refused_and_changes_nothing():
    tournament = started(4, late_registration_minutes=0)
    stacks = stacks_at(tournament, 1)
    wrong = {pk: chips + 1 for pk, chips in stacks.items()}
    with pytest.raises(TournamentError, match="chips are neither created nor lost"):
        floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=wrong, now=timezone.now())
    assert stacks_at(tournament, 1) == stacks


def test_balancing_moves_a_player_and_is_stored():
    tournament = started(16, late_registration_minutes=0)  # 6/5/5 at six-seat tables
    sizes = {t.number: t.entries.count() for t in Table.objects.filter(tournament=tournament)}
    big = next(number for number, size in sizes.items() if size == 6)
    small = next(number for number, size in sizes.items() if size == 5)
    bust(tournament, small, *list(stacks_at(tournament, small))[:2])  # 6/5/3: three apart
    report = floor_hand_finished(
        tournament_id=tournament.pk, table=big, stacks=stacks_at(tournament, big), now=timezone.now()
    )
    assert report.moves == 1
    counts = sorted(t.entries.count() for t in Table.objects.filter(tournament=tournament, broken_at=None))
    assert counts == [4, 5, 5]
    assert Entry.objects.filter(tournament=tournament, times_moved=1).count() == 1


def test_a_break_waits_for_its_last_table_then_every_table_deals_after_it():
    tournament = started(4, late_registration_minutes=0, table_size=2)
    tournament.break_policy = BreakPolicyKind.INTERVAL
    tournament.break_interval_minutes, tournament.break_minutes = 10, 5
    tournament.save()
    breaks_at = tournament.scheduled_start + timedelta(minutes=10)
    tournament_advance(tournament_id=tournament.pk, now=breaks_at)
    tournament.refresh_from_db()
    assert tournament.break_pending_since == breaks_at  # two tables still in a hand

    first = breaks_at + timedelta(seconds=20)
    floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=stacks_at(tournament, 1), now=first)
    assert Table.objects.get(tournament=tournament, number=1).held  # no new hand: the break is due
    last = breaks_at + timedelta(seconds=45)
    floor_hand_finished(tournament_id=tournament.pk, table=2, stacks=stacks_at(tournament, 2), now=last)
    tournament.refresh_from_db()
    assert tournament.status == "on_break"
    assert tournament.break_ends_at == last + timedelta(minutes=5)

    tournament_advance(tournament_id=tournament.pk, now=tournament.break_ends_at)
    tables = Table.objects.filter(tournament=tournament)
    assert all(table.playing and not table.held for table in tables)


def test_a_synchronised_hand_that_ends_as_a_break_begins_places_its_player_out_before_the_break():
    tournament = started(4, late_registration_minutes=0, table_size=2, hand_for_hand_at=[4])
    tournament.break_policy = BreakPolicyKind.INTERVAL
    tournament.break_interval_minutes, tournament.break_minutes = 10, 5
    tournament.save()
    assert tournament.hand_for_hand
    breaks_at = tournament.scheduled_start + timedelta(minutes=10)
    tournament_advance(tournament_id=tournament.pk, now=breaks_at)
    out = Entry.objects.filter(table__number=1, table__tournament=tournament).order_by("pk").first()

    bust(tournament, 1, out.pk, now=breaks_at + timedelta(seconds=20))
    last = breaks_at + timedelta(seconds=45)
    floor_hand_finished(tournament_id=tournament.pk, table=2, stacks=stacks_at(tournament, 2), now=last)

    out.refresh_from_db()
    assert (out.finish_best, out.ended_at, out.prize) == (4, last, 0)  # placed, and paid what fourth pays
    tournament.refresh_from_db()
    assert tournament.status == "on_break"
    tournament_advance(tournament_id=tournament.pk, now=tournament.break_ends_at)
    assert Table.objects.get(tournament=tournament, number=2).playing  # table 1 has one player left


def test_a_table_with_a_single_player_never_holds_a_break_up():
    tournament = started(2, table_size=2)
    tournament.break_policy = BreakPolicyKind.INTERVAL
    tournament.break_interval_minutes, tournament.break_minutes = 10, 5
    tournament.save()
    # A late entrant alone at a new table: no hand is dealt there.
    entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))
    alone = Table.objects.get(tournament=tournament, number=2)
    assert alone.entries.count() == 1
    assert not alone.playing
    breaks_at = tournament.scheduled_start + timedelta(minutes=10)
    tournament_advance(tournament_id=tournament.pk, now=breaks_at)
    tournament.refresh_from_db()
    assert tournament.break_pending_since == breaks_at  # table 1 is in a hand

    finished = breaks_at + timedelta(seconds=30)
    floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=stacks_at(tournament, 1), now=finished)
    tournament.refresh_from_db()
    assert tournament.status == "on_break"  # the lone player's table was not waited for
    assert tournament.break_ends_at == finished + timedelta(minutes=5)


def test_a_late_entrant_moves_every_finished_place_down_one():
    tournament = started(3, late_registration_minutes=30)
    out = Entry.objects.filter(tournament=tournament).order_by("pk").first()
    bust(tournament, 1, out.pk, now=tournament.scheduled_start + timedelta(minutes=1))
    out.refresh_from_db()
    assert out.finish_best == 3
    entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=2))
    out.refresh_from_db()
    assert out.finish_best == 4
    assert out.prize is None  # paid (if anything) once registration is over


def test_late_registration_closes_at_the_first_elimination_where_the_event_says_so():
    tournament = started(3, late_registration_minutes=30, late_registration_closes_at_first_elimination=True)
    at = tournament.scheduled_start + timedelta(minutes=1)
    bust(tournament, 1, Entry.objects.filter(tournament=tournament).order_by("pk").first().pk, now=at)
    tournament.refresh_from_db()
    assert tournament.late_registration_closed_at == at
    assert tournament.status == "running"


def seven_seat_satellite(target):
    """Seven players at 700 for seats of 1,000 in `target`, started; it ends once
    everyone left would win the same."""
    return started(
        7,
        late_registration_minutes=0,
        buy_in=700,
        fee=0,
        satellite_target=target,
        prize_structure="satellite",
        ends_when_prizes_equal=True,
        table_size=9,
    )


def test_a_five_seat_satellite_ends_with_five_players_and_awards_five_seats():
    target = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=timezone.now() + timedelta(days=2), buy_in=1000, fee=0
    )
    tournament = seven_seat_satellite(target)
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    # 4,900 pays four seats of 1,000 and 900 to the fifth: not all alike, so play down to five with a bust of two.
    assert tournament_payouts(tournament, now=timezone.now()).places[:4] == [1000] * 4
    bust(tournament, 1, entries[0].pk, entries[1].pk)
    tournament.refresh_from_db()
    assert tournament.status == "running"  # five left, but the fifth place pays less
    bust(tournament, 1, entries[2].pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert Entry.objects.filter(tournament=target).count() == 4


def test_a_satellite_played_down_while_its_target_runs_late_registration_seats_its_winners_there():
    target = started(7, late_registration_minutes=60, buy_in=1000, fee=0)
    satellite = seven_seat_satellite(target)
    entries = list(Entry.objects.filter(tournament=satellite).order_by("pk"))
    later = max(target.scheduled_start, satellite.scheduled_start) + timedelta(minutes=2)

    bust(satellite, 1, entries[0].pk, entries[1].pk, now=later)
    bust(satellite, 1, entries[2].pk, now=later)

    satellite.refresh_from_db()
    target.refresh_from_db()
    assert satellite.status == "finished"
    assert (target.status, target.entries_count) == ("late_registration", 11)
    won = Entry.objects.filter(tournament=target, won_in=satellite)
    assert won.count() == 4
    for entry in won:
        assert (entry.late, entry.chips) == (True, target.starting_stack)
        assert entry.table is not None
        assert entry.table.tournament == target
    seats = list(Entry.objects.filter(tournament=target).values_list("table", "seat"))
    assert len(set(seats)) == 11


def test_play_bots_plays_a_tournament_of_bots_to_the_end_with_the_books_balanced():
    out = StringIO()
    call_command("play_bots", entrants=20, table_size=6, stdout=out)
    report = out.getvalue()
    assert "20 entrants, 4 tables of 6" in report
    assert "places 20, prizes paid 20000 of a pool of 20000" in report
    call_command("wallet_audit", stdout=StringIO())


def test_a_hand_reported_twice_is_played_once():
    tournament = started(4, late_registration_minutes=0)
    table = Table.objects.get(tournament=tournament, number=1)
    stacks = stacks_at(tournament, 1)
    loser, winner = sorted(stacks)[:2]
    result = stacks | {loser: stacks[loser] - 100, winner: stacks[winner] + 100}
    floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=result, now=timezone.now(), hand=table.hands)
    with pytest.raises(TournamentError, match="already been reported"):
        floor_hand_finished(tournament_id=tournament.pk, table=1, stacks=result, now=timezone.now(), hand=table.hands)
    assert stacks_at(tournament, 1) == result


def test_hand_for_hand_shows_on_tournament_info_and_groups_busts_across_tables(client):
    tournament = started(6, late_registration_minutes=0, table_size=3, hand_for_hand_at=[5])
    first = min(stacks_at(tournament, 1))
    bust(tournament, 1, first)  # five left: hand-for-hand
    tournament.refresh_from_db()
    assert tournament.hand_for_hand
    assert Table.objects.get(tournament=tournament, number=1).held
    assert "Hand-for-hand" in client.get(f"/tournaments/{tournament.pk}/").content.decode()

    floor_hand_finished(tournament_id=tournament.pk, table=2, stacks=stacks_at(tournament, 2), now=timezone.now())
    assert all(t.synchronised and t.playing for t in Table.objects.filter(tournament=tournament))
    # The synchronised hand: one out at table 1; placed only once table 2 has finished too.
    out = min(stacks_at(tournament, 1))
    bust(tournament, 1, out)
    assert Entry.objects.get(pk=out).finish_best is None
    other = min(stacks_at(tournament, 2))
    bust(tournament, 2, other)
    # One group across the tables: the same starting stack, so they share places 4 and 5.
    places = [(e.finish_best, e.finish_worst) for e in Entry.objects.filter(pk__in=(out, other))]
    assert places == [(4, 5), (4, 5)]


def test_an_event_that_ends_while_rebuys_and_late_registration_are_open_pays_everyone_and_stops_its_clock():
    # Rule 11: the end; rule 7: the payouts lock then, whatever the periods still say.
    tournament = started(3, late_registration_minutes=60, table_size=9, **REBUY_TERMS)
    assert tournament.payouts_locked_at is None
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    rebuyer = entries[0].player
    deposit_create(user=rebuyer, currency="EUR", amount=330, idempotency_key="rebuy-fund")
    at = tournament.scheduled_start + timedelta(minutes=1)
    entry_rebuy(tournament_id=tournament.pk, player=rebuyer, now=at)

    bust(tournament, 1, entries[1].pk, now=at + timedelta(minutes=1))
    bust(tournament, 1, entries[2].pk, now=at + timedelta(minutes=2))

    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert tournament.payouts_locked_at is not None
    assert not tournament_payouts(tournament, now=timezone.now()).provisional
    pool = account_get(AccountSpec(kind=AccountKind.PRIZE_POOL, currency="EUR", ref=f"tournament:{tournament.pk}"))
    assert pool.balance == 0
    prizes = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "prize"))
    assert None not in prizes.values()
    assert sum(prizes.values()) == 4 * 300  # three buy-ins and the rebuy
    assert account_get(wallet_account_spec(rebuyer.pk, "EUR")).balance == prizes[entries[0].pk]
    call_command("wallet_audit", stdout=StringIO())
    # The clock has stopped: no countdown, nothing queued, nothing applied later.
    assert (tournament.level_ends_at, tournament.next_transition_at) == (None, None)
    applied = AuditEntry.objects.filter(subject_id=str(tournament.pk)).count()
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start + timedelta(hours=3))
    assert AuditEntry.objects.filter(subject_id=str(tournament.pk)).count() == applied
