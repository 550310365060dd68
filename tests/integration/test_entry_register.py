from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, rebuy_event
from tournaments.models import EntryStatus
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_addon, entry_rebuy, entry_register, entry_unregister
from tournaments.services.refusals import TournamentError
from wallet.models import AccountKind, Currency, TicketStatus
from wallet.services import AccountSpec, account_get, deposit_create, wallet_account_spec
from wallet.tickets import ticket_issue


def balance(user, currency="EUR") -> int:
    return account_get(wallet_account_spec(user.pk, currency)).balance


def pool(tournament) -> int:
    return account_get(
        AccountSpec(AccountKind.PRIZE_POOL, tournament.currency, ref=f"tournament:{tournament.pk}")
    ).balance


@pytest.fixture
def event(db):
    return TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)


@pytest.fixture
def rich(player):
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="rich")
    return player


def test_register_with_cash_pays_buy_in_to_the_pool_and_fee_to_the_house(event, rich):
    entry = entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    event.refresh_from_db()
    assert entry.chips == event.starting_stack
    assert balance(rich) == 3900
    assert pool(event) == 1000
    assert event.entries_count == 1
    assert event.prize_contributions == 1000


def test_unregister_refunds_exactly_and_allows_registering_again(event, rich):
    now = timezone.now()
    entry_register(tournament_id=event.pk, player=rich, now=now)
    entry = entry_unregister(tournament_id=event.pk, player=rich, now=now)
    event.refresh_from_db()
    assert entry.status == EntryStatus.UNREGISTERED
    assert balance(rich) == 5000
    assert pool(event) == 0
    assert event.entries_count == 0
    entry_register(tournament_id=event.pk, player=rich, now=now)
    assert balance(rich) == 3900


def test_a_freeroll_entry_is_counted_out_once_and_a_second_unregistration_refused(player):
    freeroll = TournamentFactory(blind_structure=BlindStructureFactory(), entry_kind="freeroll", buy_in=0, fee=0)
    now = timezone.now()
    entry_register(tournament_id=freeroll.pk, player=player, now=now)
    entry = entry_unregister(tournament_id=freeroll.pk, player=player, now=now)
    freeroll.refresh_from_db()
    assert entry.status == EntryStatus.UNREGISTERED
    assert (freeroll.entries_count, freeroll.prize_contributions) == (0, 0)
    with pytest.raises(TournamentError) as refused:
        entry_unregister(tournament_id=freeroll.pk, player=player, now=now)
    assert refused.value.code == "not_registered"
    freeroll.refresh_from_db()
    assert freeroll.entries_count == 0


def test_a_second_registration_is_refused(event, rich):
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    with pytest.raises(TournamentError) as refused:
        entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    assert refused.value.code == "already_registered"
    assert balance(rich) == 3900


def test_without_enough_money_nothing_changes(event, player):
    deposit_create(user=player, currency="EUR", amount=1000, idempotency_key="poor")
    with pytest.raises(TournamentError) as refused:
        entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    assert refused.value.code == "insufficient_funds"
    event.refresh_from_db()
    assert (event.entries_count, balance(player), pool(event)) == (0, 1000, 0)
    assert not event.entries.exists()


def test_money_in_another_currency_does_not_count(event, player):
    deposit_create(user=player, currency="USD", amount=100_000, idempotency_key="dollars")
    with pytest.raises(TournamentError) as refused:
        entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    assert refused.value.code == "insufficient_funds"


def test_tmoney_pays_a_cash_event_and_comes_back_as_tmoney(event, player):
    deposit_create(user=player, currency=Currency.TMONEY, amount=1100, idempotency_key="tm")
    now = timezone.now()
    entry_register(tournament_id=event.pk, player=player, now=now, form="tmoney")
    assert balance(player, Currency.TMONEY) == 0
    assert pool(event) == 1000
    entry_unregister(tournament_id=event.pk, player=player, now=now)
    assert balance(player, Currency.TMONEY) == 1100
    assert balance(player) == 0
    assert pool(event) == 0


def test_a_ticket_is_reserved_returned_and_spent_at_the_start(event, player, other_player):
    now = timezone.now()
    deposit_create(user=other_player, currency="EUR", amount=1100, idempotency_key="other")
    entry_register(tournament_id=event.pk, player=other_player, now=now)  # the minimum is two
    ticket = ticket_issue(owner=player, value=1100, currency="EUR", expires_at=now + timedelta(days=9))
    entry_register(tournament_id=event.pk, player=player, now=now, ticket_id=ticket.pk)
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.RESERVED
    assert pool(event) == 2 * 1000
    entry_unregister(tournament_id=event.pk, player=player, now=now)
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.AVAILABLE
    entry_register(tournament_id=event.pk, player=player, now=now, ticket_id=ticket.pk)
    tournament_advance(tournament_id=event.pk, now=event.scheduled_start + timedelta(seconds=1))
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.CONSUMED


def test_unregistration_after_the_deadline_is_refused(event, rich):
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    late = event.scheduled_start - timedelta(minutes=event.unregistration_deadline_minutes - 1)
    with pytest.raises(TournamentError) as refused:
        entry_unregister(tournament_id=event.pk, player=rich, now=late)
    assert refused.value.code == "unregistration_closed"
    assert balance(rich) == 3900


def test_rebuy_and_addon_add_chips_and_money_to_the_pool(rich):
    start = timezone.now() - timedelta(minutes=5)
    event = rebuy_event(scheduled_start=start, rebuy_limit=1)
    now = timezone.now()
    entry_register(tournament_id=event.pk, player=rich, now=now)
    entry_rebuy(tournament_id=event.pk, player=rich, now=now)
    with pytest.raises(TournamentError) as refused:
        entry_rebuy(tournament_id=event.pk, player=rich, now=now)
    assert refused.value.code == "rebuy_limit_reached"
    entry_addon(tournament_id=event.pk, player=rich, now=now)
    entry = event.entries.get()
    assert entry.chips == 10_000 + 10_000 + 15_000
    assert balance(rich) == 5000 - 330 - 330 - 550
    assert pool(event) == 300 + 300 + 500


def test_wallet_audit_finds_the_books_balanced_after_all_of_it(event, rich, player):
    from django.core.management import call_command

    now = timezone.now()
    entry_register(tournament_id=event.pk, player=rich, now=now)
    entry_unregister(tournament_id=event.pk, player=rich, now=now)
    entry_register(tournament_id=event.pk, player=rich, now=now)
    call_command("wallet_audit")


def test_wallet_audit_fails_on_a_tampered_balance(event, rich):
    from django.core.management import CommandError, call_command

    from wallet.models import Account

    Account.objects.filter(pk=account_get(wallet_account_spec(rich.pk, "EUR")).pk).update(
        balance=1
    )  # behind the ledger's back
    with pytest.raises(CommandError, match="discrepancies"):
        call_command("wallet_audit")


def test_a_registered_player_is_told_so_even_when_the_event_is_full(rich, other_player):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), min_entrants=2, max_entrants=2)
    deposit_create(user=other_player, currency="EUR", amount=1100, idempotency_key="other")
    now = timezone.now()
    entry_register(tournament_id=event.pk, player=rich, now=now, idempotency_key="first")
    entry_register(tournament_id=event.pk, player=other_player, now=now)

    with pytest.raises(TournamentError) as refused:
        entry_register(tournament_id=event.pk, player=rich, now=now)
    retried = entry_register(tournament_id=event.pk, player=rich, now=now, idempotency_key="first")

    assert refused.value.code == "already_registered"
    assert retried == event.entries.get(player=rich)
    assert balance(rich) == 3900


def test_a_retry_after_unregistering_answers_the_first_entry_and_charges_nothing(rich, other_player):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), min_entrants=1, max_entrants=1)
    deposit_create(user=other_player, currency="EUR", amount=1100, idempotency_key="other")
    now = timezone.now()
    first = entry_register(tournament_id=event.pk, player=rich, now=now, idempotency_key="first")
    entry_unregister(tournament_id=event.pk, player=rich, now=now)

    while_open = entry_register(tournament_id=event.pk, player=rich, now=now, idempotency_key="first")
    entry_register(tournament_id=event.pk, player=other_player, now=now)
    once_full = entry_register(tournament_id=event.pk, player=rich, now=now, idempotency_key="first")

    assert while_open == once_full == first
    assert event.entries.get(pk=first.pk).status == EntryStatus.UNREGISTERED
    assert balance(rich) == 5000
    assert event.entries.filter(player=rich).count() == 1
