"""Cancelling (rule 22; ALGORITHMS C10) and postponing (rule 2) an event."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.models import BountyKind, EntryStatus, Status
from tournaments.rules.payouts import PrizeStructure, payout_table
from tournaments.services.cancellation import CancelMode, tournament_cancel, tournament_postpone
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_addon, entry_rebuy, entry_register
from tournaments.services.refusals import TournamentError
from wallet.models import AccountKind, Currency, Ticket, TicketStatus
from wallet.services import (
    AccountSpec,
    account_get,
    deposit_create,
    house_account_spec,
    wallet_account_spec,
)
from wallet.tickets import ticket_issue

pytestmark = pytest.mark.django_db

START_CASH = 10_000


def balance(user, currency="EUR") -> int:
    return account_get(wallet_account_spec(user.pk, currency)).balance


def room(kind, tournament, currency="EUR") -> int:
    return account_get(AccountSpec(kind=kind, currency=currency, ref=f"tournament:{tournament.pk}")).balance


def funded(name: str, currency: str = "EUR", amount: int = START_CASH):
    user = UserFactory(username=name)
    deposit_create(user=user, currency=currency, amount=amount, idempotency_key=f"deposit:{name}:{currency}")
    return user


def started_event(now, **terms):
    """An event that started five minutes ago and is in late registration."""
    return TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=now - timedelta(minutes=5),
        status=Status.LATE_REGISTRATION,
        **terms,
    )


def set_chips(tournament, player, chips, status=EntryStatus.ACTIVE):
    tournament.entries.filter(player=player).update(chips=chips, status=status)


def cancelled_audit(tournament) -> AuditEntry:
    return AuditEntry.objects.get(action="tournaments.tournament.cancelled", subject_id=str(tournament.pk))


# Rollback


def test_rollback_before_the_start_refunds_cash_tmoney_and_tickets_in_the_form_paid(staff):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1_000, fee=100)
    cash, tmoney, holder = funded("cash"), funded("tm", Currency.TMONEY), UserFactory(username="holder")
    ticket = ticket_issue(owner=holder, value=1_100, currency="EUR", expires_at=now + timedelta(days=9))
    entry_register(tournament_id=event.pk, player=cash, now=now)
    entry_register(tournament_id=event.pk, player=tmoney, now=now, form="tmoney")
    entry_register(tournament_id=event.pk, player=holder, now=now, ticket_id=ticket.pk)
    assert room(AccountKind.PRIZE_POOL, event) == 3_000

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Server trouble", mode=CancelMode.ROLLBACK, now=now)

    event.refresh_from_db()
    ticket.refresh_from_db()
    assert event.status == Status.CANCELLED
    assert balance(cash) == START_CASH
    assert balance(tmoney, Currency.TMONEY) == START_CASH
    assert balance(tmoney) == 0
    assert ticket.status == TicketStatus.AVAILABLE
    assert room(AccountKind.PRIZE_POOL, event) == 0
    assert room(AccountKind.FEES, event) == 0
    assert (event.entries_count, event.prize_contributions) == (0, 0)
    assert set(event.entries.values_list("status", flat=True)) == {EntryStatus.REFUNDED}
    audit = cancelled_audit(event)
    assert (audit.actor, audit.reason, audit.data["mode"]) == (staff, "Server trouble", "rollback")
    call_command("wallet_audit")


def test_rollback_is_the_default_mode(staff):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory())
    player = funded("alice")
    entry_register(tournament_id=event.pk, player=player, now=now)

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="No dealer", now=now)

    assert balance(player) == START_CASH
    assert cancelled_audit(event).data["mode"] == "rollback"
    call_command("wallet_audit")


def test_rollback_after_the_start_refunds_rebuys_addons_eliminated_players_and_spent_tickets(staff):
    now = timezone.now()
    event = started_event(
        now,
        buy_in=300,
        fee=30,
        rebuy_price=300,
        rebuy_fee=30,
        rebuy_chips=10_000,
        rebuy_levels=1,
        addon_price=500,
        addon_fee=50,
        addon_chips=15_000,
    )
    rebuyer, busted, holder = funded("rebuyer"), funded("busted"), UserFactory(username="holder")
    ticket = ticket_issue(owner=holder, value=330, currency="EUR", expires_at=now + timedelta(days=2))
    entry_register(tournament_id=event.pk, player=rebuyer, now=now)
    entry_rebuy(tournament_id=event.pk, player=rebuyer, now=now)
    entry_rebuy(tournament_id=event.pk, player=rebuyer, now=now)
    entry_addon(tournament_id=event.pk, player=rebuyer, now=now)
    entry_register(tournament_id=event.pk, player=busted, now=now)
    entry_register(tournament_id=event.pk, player=holder, now=now, ticket_id=ticket.pk)
    tournament_advance(tournament_id=event.pk, now=now)  # the start spends the ticket
    set_chips(event, busted, 0, EntryStatus.ELIMINATED)
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.CONSUMED
    assert room(AccountKind.PRIZE_POOL, event) == 300 * 4 + 500 + 300

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Server crash", mode="rollback", now=now)

    assert balance(rebuyer) == START_CASH
    assert balance(busted) == START_CASH
    replacement = Ticket.objects.get(owner=holder, status=TicketStatus.AVAILABLE)
    assert (replacement.value, replacement.currency, replacement.tournament_ref) == (330, "EUR", None)
    assert replacement.expires_at >= now + timedelta(days=30)
    assert room(AccountKind.PRIZE_POOL, event) == 0
    assert room(AccountKind.FEES, event) == 0
    assert cancelled_audit(event).data["replaced_tickets"] == [replacement.pk]
    event.refresh_from_db()
    assert event.prize_contributions == 0
    call_command("wallet_audit")


def test_rollback_of_a_knockout_event_returns_the_bounty_too(staff):
    now = timezone.now()
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(), bounty_kind=BountyKind.KNOCKOUT, bounty_amount=500
    )
    player = funded("alice")
    entry_register(tournament_id=event.pk, player=player, now=now)
    assert balance(player) == START_CASH - 1_600

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Bounty bug", now=now)

    assert balance(player) == START_CASH
    assert room(AccountKind.BOUNTIES, event) == 0
    call_command("wallet_audit")


# Roll forward


def test_roll_forward_refunds_fees_in_the_form_paid_and_shares_the_pool_exactly(staff):
    now = timezone.now()
    event = started_event(now, buy_in=1_000, fee=100)
    cash, tmoney, holder, busted = funded("cash"), funded("tm", Currency.TMONEY), UserFactory(username="h"), funded("b")
    ticket = ticket_issue(owner=holder, value=1_100, currency="EUR", expires_at=now + timedelta(days=2))
    entry_register(tournament_id=event.pk, player=cash, now=now)
    entry_register(tournament_id=event.pk, player=tmoney, now=now, form="tmoney")
    entry_register(tournament_id=event.pk, player=holder, now=now, ticket_id=ticket.pk)
    entry_register(tournament_id=event.pk, player=busted, now=now)
    tournament_advance(tournament_id=event.pk, now=now)
    set_chips(event, cash, 30_000)
    set_chips(event, tmoney, 20_000)
    set_chips(event, holder, 10_000)
    set_chips(event, busted, 0, EntryStatus.ELIMINATED)
    house_before = account_get(house_account_spec("EUR")).balance

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Servers down", mode="roll_forward", now=now)

    # 4,000 in the pool, 4 entrants pay 2 places, 3 left: not in the money. Half
    # (2,000) equally, half by chips 3:2:1.
    shares = {cash: 1_667, tmoney: 1_333, holder: 1_000}
    assert sum(shares.values()) == 4_000
    assert balance(cash) == START_CASH - 1_100 + 100 + shares[cash]
    assert balance(tmoney, Currency.TMONEY) == START_CASH - 1_100 + 100
    assert balance(tmoney) == shares[tmoney]
    assert balance(holder, Currency.TMONEY) == 100  # a ticket's fee comes back as T-Money
    assert balance(holder) == shares[holder]
    assert balance(busted) == START_CASH - 1_100
    assert room(AccountKind.PRIZE_POOL, event) == 0
    assert room(AccountKind.FEES, event) == 100  # the eliminated player's fee is the room's
    # No overlay. The house paid the T-Money player's and the ticket's fees in euros:
    # it takes those back and pays them out as T-Money.
    assert account_get(house_account_spec("EUR")).balance == house_before + 200
    event.refresh_from_db()
    assert event.status == Status.CANCELLED
    assert event.entries.get(player=busted).status == EntryStatus.ELIMINATED
    assert event.entries.get(player=cash).status == EntryStatus.REFUNDED
    audit = cancelled_audit(event)
    assert audit.data["mode"] == "roll_forward"
    assert audit.data["pool"] == 4_000
    assert audit.data["fees_refunded"] == 300
    assert audit.data["shares"] == {str(player.pk): share for player, share in shares.items()}
    call_command("wallet_audit")


def test_roll_forward_refunds_rebuy_and_addon_fees_and_shares_their_pool(staff):
    now = timezone.now()
    event = started_event(now, buy_in=300, fee=30, rebuy_price=300, rebuy_fee=30, rebuy_chips=10_000, rebuy_levels=1)
    rebuyer, other = funded("rebuyer"), funded("other")
    entry_register(tournament_id=event.pk, player=rebuyer, now=now)
    entry_rebuy(tournament_id=event.pk, player=rebuyer, now=now)
    entry_register(tournament_id=event.pk, player=other, now=now)
    tournament_advance(tournament_id=event.pk, now=now)
    set_chips(event, rebuyer, 15_000)
    set_chips(event, other, 15_000)

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Servers down", mode="roll_forward", now=now)

    # Two players, one place: not in the money; equal stacks share 900 equally.
    assert balance(rebuyer) == START_CASH - 660 + 60 + 450
    assert balance(other) == START_CASH - 330 + 30 + 450
    paid_out = balance(rebuyer) + balance(other) - (START_CASH - 660) - (START_CASH - 330)
    assert paid_out == 900 + 90  # the pool and every fee the remaining players paid
    assert room(AccountKind.PRIZE_POOL, event) == 0
    call_command("wallet_audit")


def test_roll_forward_pays_the_overlay_up_to_the_guarantee_from_the_house(staff):
    now = timezone.now()
    event = started_event(now, buy_in=1_000, fee=100, guarantee=10_000)
    players = [funded(name) for name in ("p1", "p2", "p3")]
    for player in players:
        entry_register(tournament_id=event.pk, player=player, now=now)
    tournament_advance(tournament_id=event.pk, now=now)
    for player in players:
        set_chips(event, player, 10_000)
    house_before = account_get(house_account_spec("EUR")).balance

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Power cut", mode="roll_forward", now=now)

    assert account_get(house_account_spec("EUR")).balance == house_before - 7_000
    # 3 entrants pay 1 place: 10,000 shared equally, the odd unit to the lowest id.
    received = sorted(balance(player) - (START_CASH - 1_100 + 100) for player in players)
    assert received == [3_333, 3_333, 3_334]
    assert room(AccountKind.PRIZE_POOL, event) == 0
    assert cancelled_audit(event).data["overlay"] == 7_000
    call_command("wallet_audit")


def test_roll_forward_in_the_money_gives_each_the_lowest_unawarded_prize_first(staff):
    now = timezone.now()
    event = started_event(now, buy_in=1_000, fee=100)
    players = [funded(f"p{i}") for i in range(7)]
    for player in players:
        entry_register(tournament_id=event.pk, player=player, now=now)
    tournament_advance(tournament_id=event.pk, now=now)
    leader, short, *busted = players
    set_chips(event, leader, 45_000)
    set_chips(event, short, 15_000)
    for player in busted:
        set_chips(event, player, 0, EntryStatus.ELIMINATED)
    assert payout_table(structure=PrizeStructure.STANDARD, entrants=7, pool=7_000) == [3_900, 1_900, 1_200]

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Servers down", mode="roll_forward", now=now)

    # Two left of three places: both are sure of 2nd (1,900); the other 3,200 by chips 3:1.
    assert balance(leader) == START_CASH - 1_000 + 1_900 + 2_400
    assert balance(short) == START_CASH - 1_000 + 1_900 + 800
    assert all(balance(player) == START_CASH - 1_100 for player in busted)
    assert room(AccountKind.PRIZE_POOL, event) == 0
    call_command("wallet_audit")


def test_roll_forward_gives_back_the_own_knockout_bounty(staff):
    now = timezone.now()
    event = started_event(now, buy_in=1_000, fee=100, bounty_kind=BountyKind.KNOCKOUT, bounty_amount=500)
    alice, bob = funded("alice"), funded("bob")
    for player in (alice, bob):
        entry_register(tournament_id=event.pk, player=player, now=now)
    tournament_advance(tournament_id=event.pk, now=now)

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Servers down", mode="roll_forward", now=now)

    assert balance(alice) == START_CASH - 1_600 + 100 + 500 + 1_000
    assert room(AccountKind.BOUNTIES, event) == 0
    call_command("wallet_audit")


def test_roll_forward_of_a_tmoney_event_pays_in_tmoney(staff):
    now = timezone.now()
    event = started_event(now, entry_kind="tmoney", currency=Currency.TMONEY, buy_in=1_000, fee=100)
    alice, bob = funded("alice", Currency.TMONEY), funded("bob", Currency.TMONEY)
    for player in (alice, bob):
        entry_register(tournament_id=event.pk, player=player, now=now)
    tournament_advance(tournament_id=event.pk, now=now)

    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Servers down", mode="roll_forward", now=now)

    assert balance(alice, Currency.TMONEY) == START_CASH
    assert balance(bob, Currency.TMONEY) == START_CASH
    assert room(AccountKind.PRIZE_POOL, event, Currency.TMONEY) == 0
    call_command("wallet_audit")


# Refusals


def test_roll_forward_before_the_start_is_refused_and_nothing_changes(staff):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory())
    player = funded("alice")
    entry_register(tournament_id=event.pk, player=player, now=now)

    with pytest.raises(TournamentError) as refused:
        tournament_cancel(tournament_id=event.pk, actor=staff, reason="Oops", mode="roll_forward", now=now)

    assert refused.value.code == "roll_forward_before_start"
    assert "rollback" in refused.value.message
    event.refresh_from_db()
    assert event.status == Status.REGISTERING
    assert balance(player) == START_CASH - 1_100
    assert not AuditEntry.objects.filter(action="tournaments.tournament.cancelled").exists()


def test_cancelling_a_cancelled_event_is_refused_and_refunds_nothing_twice(staff):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory())
    player = funded("alice")
    entry_register(tournament_id=event.pk, player=player, now=now)
    tournament_cancel(tournament_id=event.pk, actor=staff, reason="First", now=now)

    with pytest.raises(TournamentError) as refused:
        tournament_cancel(tournament_id=event.pk, actor=staff, reason="Again", now=now)

    assert refused.value.code == "already_cancelled"
    assert refused.value.message == "This tournament has already been cancelled."
    assert balance(player) == START_CASH
    assert AuditEntry.objects.filter(action="tournaments.tournament.cancelled").count() == 1
    call_command("wallet_audit")


def test_a_finished_event_cannot_be_cancelled(staff):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), status=Status.FINISHED)

    with pytest.raises(TournamentError) as refused:
        tournament_cancel(tournament_id=event.pk, actor=staff, reason="Late", now=timezone.now())

    assert refused.value.code == "finished"


@pytest.mark.parametrize(
    ("reason", "mode", "code"), [("  ", "rollback", "reason_required"), ("Why", "x", "unknown_mode")]
)
def test_a_cancellation_needs_a_reason_and_a_known_mode(staff, reason, mode, code):
    event = TournamentFactory(blind_structure=BlindStructureFactory())

    with pytest.raises(TournamentError) as refused:
        tournament_cancel(tournament_id=event.pk, actor=staff, reason=reason, mode=mode, now=timezone.now())

    assert refused.value.code == code
    event.refresh_from_db()
    assert event.status == Status.REGISTERING


def test_roll_forward_with_nobody_left_is_refused(staff):
    now = timezone.now()
    event = started_event(now)
    player = funded("alice")
    entry_register(tournament_id=event.pk, player=player, now=now)
    set_chips(event, player, 0, EntryStatus.ELIMINATED)

    with pytest.raises(TournamentError) as refused:
        tournament_cancel(tournament_id=event.pk, actor=staff, reason="Odd", mode="roll_forward", now=now)

    assert refused.value.code == "nobody_left"
    assert room(AccountKind.PRIZE_POOL, event) == 1_000


# Postponement


def test_postponing_moves_the_start_and_keeps_every_registration(staff):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory(), registration_opens_at=now - timedelta(hours=1))
    player = funded("alice")
    entry_register(tournament_id=event.pk, player=player, now=now)
    new_start = event.scheduled_start + timedelta(hours=3)

    tournament_postpone(tournament_id=event.pk, actor=staff, new_start=new_start, reason="Sunday clash", now=now)

    event.refresh_from_db()
    assert event.scheduled_start == new_start
    # Registration was open: it stays open for the entries it holds.
    assert event.registration_opens_at == now - timedelta(hours=1)
    assert event.entries.get().status == EntryStatus.ACTIVE
    assert event.entries_count == 1
    assert balance(player) == START_CASH - 1_100
    audit = AuditEntry.objects.get(action="tournaments.tournament.postponed")
    assert (audit.actor, audit.reason, audit.data["to"]) == (staff, "Sunday clash", new_start.isoformat())
    assert tournament_advance(tournament_id=event.pk, now=now) == Status.REGISTERING


def test_postponing_before_registration_opens_moves_the_opening_too(staff):
    now = timezone.now()
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        status=Status.ANNOUNCED,
        scheduled_start=now + timedelta(days=2),
        registration_opens_at=now + timedelta(days=1),
    )

    tournament_postpone(tournament_id=event.pk, actor=staff, new_start=now + timedelta(days=3), reason="Moved", now=now)

    event.refresh_from_db()
    assert event.registration_opens_at == now + timedelta(days=2)


@pytest.mark.parametrize(
    ("shift", "code"),
    [(timedelta(hours=-1), "start_not_later"), (timedelta(hours=-3), "start_in_past")],
)
def test_postponing_to_an_earlier_or_past_time_is_refused(staff, shift, code):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory(), scheduled_start=now + timedelta(hours=2))

    with pytest.raises(TournamentError) as refused:
        tournament_postpone(
            tournament_id=event.pk, actor=staff, new_start=event.scheduled_start + shift, reason="x", now=now
        )

    assert refused.value.code == code


def test_postponing_after_the_start_is_refused(staff):
    now = timezone.now()
    event = started_event(now)

    with pytest.raises(TournamentError) as refused:
        tournament_postpone(
            tournament_id=event.pk, actor=staff, new_start=now + timedelta(hours=1), reason="Too late", now=now
        )

    assert refused.value.code == "started"


def test_postponing_a_satellite_past_its_target_is_refused(staff):
    now = timezone.now()
    target = TournamentFactory(blind_structure=BlindStructureFactory(), scheduled_start=now + timedelta(hours=5))
    satellite = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=now + timedelta(hours=1),
        satellite_target=target,
        prize_structure=PrizeStructure.SATELLITE,
    )

    with pytest.raises(TournamentError) as refused:
        tournament_postpone(
            tournament_id=satellite.pk, actor=staff, new_start=now + timedelta(hours=6), reason="x", now=now
        )

    assert refused.value.code == "after_target"


def test_a_cancelled_event_cannot_be_postponed(staff):
    now = timezone.now()
    event = TournamentFactory(blind_structure=BlindStructureFactory())
    tournament_cancel(tournament_id=event.pk, actor=staff, reason="Gone", now=now)

    with pytest.raises(TournamentError) as refused:
        tournament_postpone(
            tournament_id=event.pk, actor=staff, new_start=now + timedelta(days=1), reason="Back", now=now
        )

    assert refused.value.code == "already_cancelled"
