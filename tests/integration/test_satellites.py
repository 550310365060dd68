"""Satellite results: seats in the target event as entries or tickets (rules 10, 11)."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants
from tournaments.models import Entry, EntryKind, EntryStatus, PaymentForm, Purchase, Status, Table
from tournaments.rules.payouts import PrizeStructure
from tournaments.services.cancellation import tournament_cancel
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register, entry_unregister
from tournaments.services.refusals import TournamentError
from tournaments.services.satellites import satellite_award_seats
from wallet.models import AccountKind, Currency, Ticket, TicketStatus, Transfer
from wallet.services import (
    AccountSpec,
    account_get,
    deposit_create,
    house_account_spec,
    wallet_account_spec,
)

pytestmark = pytest.mark.django_db

START_CASH = 10_000


def balance(user, currency="EUR") -> int:
    return account_get(wallet_account_spec(user.pk, currency)).balance


def room(kind, tournament, currency="EUR") -> int:
    return account_get(AccountSpec(kind=kind, currency=currency, ref=f"tournament:{tournament.pk}")).balance


def funded(name: str, currency: str = "EUR"):
    user = UserFactory(username=name)
    deposit_create(user=user, currency=currency, amount=START_CASH, idempotency_key=f"deposit:{name}:{currency}")
    return user


def target_event(now, **terms):
    """The event the seats are for: 1,000 + 100, so one seat is worth 1,100."""
    values = {"scheduled_start": now + timedelta(hours=4), "buy_in": 1_000, "fee": 100, **terms}
    return TournamentFactory(blind_structure=BlindStructureFactory(), name="Sunday Main", **values)


def played_satellite(now, target, entrants: int, **terms):
    """A 100 + 10 satellite for `target`, under way, with `entrants` registered players."""
    values = {
        "scheduled_start": now - timedelta(minutes=5),
        "status": Status.LATE_REGISTRATION,
        "buy_in": 100,
        "fee": 10,
        "prize_structure": PrizeStructure.SATELLITE,
        "satellite_target": target,
        **terms,
    }
    satellite = TournamentFactory(blind_structure=BlindStructureFactory(), name="Sunday Sat", **values)
    currency = Currency.TMONEY if satellite.entry_kind == EntryKind.TMONEY else "EUR"
    players = [funded(f"sat{satellite.pk}p{i}", currency) for i in range(entrants)]
    for player in players:
        # In the satellite's late registration, however long ago it started.
        entry_register(tournament_id=satellite.pk, player=player, now=satellite.scheduled_start + timedelta(minutes=1))
    return satellite, players


# Seats as entries


def test_top_finishers_get_entries_in_the_target_paid_from_the_satellite_pool(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=23)  # 2,300: two seats and 100
    finishers = [player.pk for player in players]

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=finishers, actor=staff, now=now)

    first, second, third = players[:3]
    seats = Entry.objects.filter(tournament=target).order_by("pk")
    assert [(entry.player, entry.won_in, entry.status) for entry in seats] == [
        (first, satellite, EntryStatus.ACTIVE),
        (second, satellite, EntryStatus.ACTIVE),
    ]
    assert set(Purchase.objects.filter(entry__tournament=target).values_list("form", flat=True)) == {PaymentForm.SEAT}
    assert award.seat_value == 1_100
    assert [seat["entry"] for seat in award.seats] == [entry.pk for entry in seats]
    assert (award.remainder, award.remainder_to) == (100, third.pk)
    # Seat winners paid 110 each for the satellite and nothing for the target.
    assert balance(first) == START_CASH - 110
    assert balance(third) == START_CASH - 110 + 100
    assert room(AccountKind.PRIZE_POOL, satellite) == 0
    assert room(AccountKind.PRIZE_POOL, target) == 2_000
    assert room(AccountKind.FEES, target) == 200
    target.refresh_from_db()
    satellite.refresh_from_db()
    assert (target.entries_count, target.prize_contributions) == (2, 2_000)
    assert satellite.status == Status.FINISHED
    audit = AuditEntry.objects.get(action="tournaments.satellite.seats_awarded")
    assert (audit.actor, audit.data["remainder"]) == (staff, 100)
    call_command("wallet_audit")


def test_awarding_a_satellite_twice_returns_the_first_award_and_moves_nothing(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=12)
    finishers = [player.pk for player in players]
    first = satellite_award_seats(satellite_id=satellite.pk, finishers=finishers, actor=staff, now=now)
    transfers = Transfer.objects.count()

    again = satellite_award_seats(satellite_id=satellite.pk, finishers=finishers[::-1], actor=staff, now=now)

    assert again == first
    assert Transfer.objects.count() == transfers
    assert Entry.objects.filter(tournament=target).count() == 1
    assert AuditEntry.objects.filter(action="tournaments.satellite.seats_awarded").count() == 1


def test_a_seat_refunded_on_unregistration_comes_back_as_tmoney_never_cash(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=11)  # exactly one seat
    winner = players[0]
    satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)
    cash_before = balance(winner)

    entry_unregister(tournament_id=target.pk, player=winner, now=now)

    assert balance(winner, Currency.TMONEY) == 1_100
    assert balance(winner) == cash_before
    assert room(AccountKind.PRIZE_POOL, target) == 0
    assert room(AccountKind.FEES, target) == 0
    assert Entry.objects.get(tournament=target, player=winner).status == EntryStatus.UNREGISTERED
    call_command("wallet_audit")


def test_cancelling_the_target_refunds_a_seat_as_tmoney(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=11)
    winner = players[0]
    satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)

    tournament_cancel(tournament_id=target.pk, actor=staff, reason="Main event cancelled", now=now)

    assert balance(winner, Currency.TMONEY) == 1_100
    assert balance(winner) == START_CASH - 110
    assert room(AccountKind.PRIZE_POOL, target) == 0
    call_command("wallet_audit")


def test_a_target_in_late_registration_seats_the_winners_then(staff):
    now = timezone.now()
    target = target_event(now, scheduled_start=now - timedelta(minutes=10), status=Status.LATE_REGISTRATION)
    satellite, players = played_satellite(now, target, entrants=11, scheduled_start=now - timedelta(hours=1))

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)

    entry = Entry.objects.get(pk=award.seats[0]["entry"])
    assert (entry.tournament, entry.player, entry.late) == (target, players[0], True)
    assert entry.chips == target.starting_stack
    call_command("wallet_audit")


def test_a_seat_won_into_a_target_whose_tables_are_drawn_is_seated_like_a_late_registration(staff):
    now = timezone.now()
    target = target_event(now, scheduled_start=now + timedelta(minutes=5), table_size=6, max_entrants=100)
    entrants(target, 7, now=now)
    tournament_advance(tournament_id=target.pk, now=target.scheduled_start)  # the draw: tables of 4 and 3
    smallest = min(Table.objects.filter(tournament=target), key=lambda table: table.entries.count())
    later = target.scheduled_start + timedelta(minutes=1)
    satellite, players = played_satellite(now, target, entrants=11, scheduled_start=now - timedelta(hours=1))

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=later)

    entry = Entry.objects.get(pk=award.seats[0]["entry"])
    assert (entry.player, entry.late) == (players[0], True)
    assert entry.table == smallest  # the table with the fewest players, as every late entrant
    assert entry.seat not in set(smallest.entries.exclude(pk=entry.pk).values_list("seat", flat=True))

    again = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=later)

    assert again == award
    assert Entry.objects.filter(tournament=target).count() == 8
    assert (Entry.objects.get(pk=entry.pk).table, Entry.objects.get(pk=entry.pk).seat) == (smallest, entry.seat)
    assert smallest.entries.count() == 4
    call_command("wallet_audit")


def test_a_seat_won_into_a_target_running_its_late_registration_is_seated_like_a_late_registrant(staff):
    # Clear of the hourly break at :55 (rule 17), which a run at 02:50 would reach.
    now = timezone.now().replace(minute=10, second=0, microsecond=0)
    target = target_event(now, scheduled_start=now + timedelta(minutes=5), table_size=6, max_entrants=100)
    entrants(target, 7, now=now)
    tournament_advance(tournament_id=target.pk, now=target.scheduled_start)  # the draw, then late registration
    later = target.scheduled_start + timedelta(minutes=1)
    tournament_advance(tournament_id=target.pk, now=later)
    latecomer = funded("latecomer")
    satellite, players = played_satellite(now, target, entrants=11, scheduled_start=now - timedelta(hours=1))

    registered = entry_register(tournament_id=target.pk, player=latecomer, now=later)
    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=later)

    target.refresh_from_db()
    won = Entry.objects.get(pk=award.seats[0]["entry"])
    assert target.status == Status.LATE_REGISTRATION
    for entry in (registered, won):
        entry.refresh_from_db()
        assert (entry.status, entry.late, entry.chips) == (EntryStatus.ACTIVE, True, target.starting_stack)
        assert entry.table is not None
        assert entry.table.broken_at is None
        assert entry.seat is not None
    assert won.won_in == satellite
    seats = list(Entry.objects.filter(tournament=target, table__isnull=False).values_list("table", "seat"))
    assert len(seats) == len(set(seats)) == 9
    assert (target.entries_count, target.prize_contributions) == (9, 9 * 1_000)
    call_command("wallet_audit")


def test_the_house_pays_for_guaranteed_seats_the_entries_do_not_cover(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=5, satellite_seats=3)  # 500 in, 3,300 out
    house_before = account_get(house_account_spec("EUR")).balance

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)

    assert len(award.seats) == 3
    assert award.remainder == 0
    assert account_get(house_account_spec("EUR")).balance == house_before - 2_800
    assert room(AccountKind.PRIZE_POOL, target) == 3_000
    call_command("wallet_audit")


def test_a_tmoney_satellite_seats_its_winners_in_a_cash_target(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(
        now, target, entrants=12, entry_kind=EntryKind.TMONEY, currency=Currency.TMONEY
    )

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)

    assert Entry.objects.get(pk=award.seats[0]["entry"]).tournament == target
    assert room(AccountKind.PRIZE_POOL, satellite, Currency.TMONEY) == 0
    assert room(AccountKind.PRIZE_POOL, target) == 1_000
    assert balance(players[1], Currency.TMONEY) == START_CASH - 110 + 100  # the remainder, in the pool's money
    call_command("wallet_audit")


# Seats as tickets


def test_a_target_closed_to_registration_gives_tickets_for_its_buy_in_level(staff):
    now = timezone.now()
    target = target_event(now, scheduled_start=now - timedelta(hours=2), status=Status.RUNNING)
    satellite, players = played_satellite(now, target, entrants=23, scheduled_start=now - timedelta(hours=3))
    house_before = account_get(house_account_spec("EUR")).balance

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)

    assert not Entry.objects.filter(tournament=target).exists()
    tickets = Ticket.objects.filter(pk__in=[seat["ticket"] for seat in award.seats]).order_by("pk")
    assert [(t.owner, t.value, t.currency, t.tournament_ref, t.status) for t in tickets] == [
        (players[0], 1_100, "EUR", None, TicketStatus.AVAILABLE),
        (players[1], 1_100, "EUR", None, TicketStatus.AVAILABLE),
    ]
    # The pool pays the house the two seats; the house pays the entries the tickets buy.
    assert account_get(house_account_spec("EUR")).balance == house_before + 2_200
    assert balance(players[2]) == START_CASH - 110 + 100
    assert room(AccountKind.PRIZE_POOL, satellite) == 0
    call_command("wallet_audit")


def test_a_finisher_already_in_the_target_gets_a_ticket_for_it_instead(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=11)
    winner = players[0]
    entry_register(tournament_id=target.pk, player=winner, now=now)

    award = satellite_award_seats(satellite_id=satellite.pk, finishers=[p.pk for p in players], actor=staff, now=now)

    ticket = Ticket.objects.get(pk=award.seats[0]["ticket"])
    assert (ticket.owner, ticket.tournament_ref, ticket.value) == (winner, target.pk, 1_100)
    assert Entry.objects.filter(tournament=target).count() == 1
    # Unregister the paid entry (cash back as cash), then enter with the ticket.
    entry_unregister(tournament_id=target.pk, player=winner, now=now)
    entry_register(tournament_id=target.pk, player=winner, now=now, ticket_id=ticket.pk)
    assert balance(winner) == START_CASH - 110
    call_command("wallet_audit")


# Refusals


def test_an_event_without_a_target_awards_no_seats(staff):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), status=Status.RUNNING)

    with pytest.raises(TournamentError) as refused:
        satellite_award_seats(satellite_id=event.pk, finishers=[], actor=staff, now=timezone.now())

    assert refused.value.code == "not_a_satellite"


def test_a_satellite_that_has_not_started_awards_no_seats(staff):
    now = timezone.now()
    target = target_event(now)
    satellite = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        satellite_target=target,
        prize_structure=PrizeStructure.SATELLITE,
        scheduled_start=now + timedelta(hours=1),
    )

    with pytest.raises(TournamentError) as refused:
        satellite_award_seats(satellite_id=satellite.pk, finishers=[], actor=staff, now=now)

    assert refused.value.code == "not_started"


def test_too_few_finishers_are_refused_and_nothing_moves(staff):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=23)  # three places paid
    transfers = Transfer.objects.count()

    with pytest.raises(TournamentError) as refused:
        satellite_award_seats(satellite_id=satellite.pk, finishers=[players[0].pk], actor=staff, now=now)

    assert refused.value.code == "too_few_finishers"
    assert "3 places" in refused.value.message
    assert Transfer.objects.count() == transfers


@pytest.mark.parametrize("who", ["stranger", "twice"])
def test_finishers_must_be_different_entrants_of_the_satellite(staff, who):
    now = timezone.now()
    target = target_event(now)
    satellite, players = played_satellite(now, target, entrants=11)
    finishers = [UserFactory(username="stranger").pk] if who == "stranger" else [players[0].pk, players[0].pk]

    with pytest.raises(TournamentError) as refused:
        satellite_award_seats(satellite_id=satellite.pk, finishers=finishers, actor=staff, now=now)

    assert refused.value.code == "not_entrants"
    assert not Entry.objects.filter(tournament=target).exists()
