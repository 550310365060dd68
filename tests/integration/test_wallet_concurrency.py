"""The ledger under real concurrency on PostgreSQL: many requests at once for one
player's money never take it below zero, and one deposit (or one staff ticket form)
retried at once lands once."""

import threading
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import UserFactory
from wallet.audit import wallet_discrepancies
from wallet.models import Account, AccountKind, Ticket, Transfer, TransferReason
from wallet.services import (
    AccountSpec,
    InsufficientFunds,
    Leg,
    account_get,
    deposit_create,
    staff_adjust,
    transfer_create,
    transfers_create,
    wallet_account_spec,
)

pytestmark = pytest.mark.django_db(transaction=True)


def race(count: int, work) -> Counter:
    """Run work(i) in `count` threads released together; count the outcomes."""
    start = threading.Barrier(count)
    outcomes = Counter()
    lock = threading.Lock()

    def run(number: int) -> None:
        try:
            start.wait()
            work(number)
            outcome = "ok"
        except InsufficientFunds:
            outcome = "refused"
        except Exception as error:  # any other outcome fails the test below
            outcome = repr(error)
        finally:
            connection.close()
        with lock:
            outcomes[outcome] += 1

    threads = [threading.Thread(target=run, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def test_twenty_withdrawals_beyond_the_balance_never_take_it_below_zero():
    player, staff, other = UserFactory(username="alice"), UserFactory(username="sam", is_staff=True), UserFactory()
    deposit_create(user=player, currency="EUR", amount=1000, idempotency_key="funds")
    account, elsewhere = (
        account_get(wallet_account_spec(player.pk, "EUR")),
        account_get(wallet_account_spec(other.pk, "EUR")),
    )

    def withdraw(number: int) -> None:
        # Half are staff debits, half move money to another player: 20 x 150 = 3000 asked of 1000.
        if number % 2:
            staff_adjust(
                user=player, currency="EUR", amount=-150, reason="race", actor=staff, idempotency_key=f"w{number}"
            )
        else:
            transfer_create(
                source=account,
                destination=elsewhere,
                amount=150,
                reason=TransferReason.STAFF_ADJUSTMENT,
                idempotency_key=f"w{number}",
            )

    outcomes = race(20, withdraw)

    assert outcomes == {"ok": 6, "refused": 14}  # 6 x 150 = 900 <= 1000 < 7 x 150
    account.refresh_from_db()
    assert account.balance == 100
    assert Transfer.objects.filter(source=account).count() == 6
    assert wallet_discrepancies() == []


def test_ten_retries_of_one_deposit_land_once():
    player = UserFactory(username="alice")

    outcomes = race(
        10, lambda number: deposit_create(user=player, currency="EUR", amount=500, idempotency_key="same-deposit")
    )

    assert outcomes == {"ok": 10}
    assert Transfer.objects.filter(idempotency_key="same-deposit").count() == 1
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 500
    assert wallet_discrepancies() == []


def test_ten_simultaneous_submits_of_one_ticket_form_issue_one_ticket():
    player, staff = UserFactory(username="alice"), UserFactory(username="sam", is_staff=True)
    form = {
        "ticket-value": "11",
        "ticket-currency": "EUR",
        "ticket-expires_on": (timezone.localdate() + timedelta(days=2)).isoformat(),
        "ticket-tournament": "",
        "ticket-reason": "Satellite",
        "ticket-idempotency_key": str(uuid.uuid4()),
    }
    statuses = Counter()

    def submit(number: int) -> None:
        client = Client()
        client.force_login(staff)
        statuses[client.post(f"/support/players/{player.pk}/tickets/", form).status_code] += 1

    outcomes = race(10, submit)

    assert outcomes == {"ok": 10}
    assert statuses == {302: 10}
    assert Ticket.objects.filter(owner=player).count() == 1
    assert AuditEntry.objects.filter(action="wallet.ticket.issued").count() == 1


@pytest.mark.parametrize("inside_a_transaction", [False, True], ids=["autocommit", "in-transaction"])
def test_concurrent_retries_of_one_batch_move_the_money_once(inside_a_transaction):
    player = UserFactory(username="alice")
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="funds")
    payer = account_get(wallet_account_spec(player.pk, "EUR"))
    pool = account_get(AccountSpec(kind=AccountKind.PRIZE_POOL, currency="EUR", ref="tournament:1"))
    fees = account_get(AccountSpec(kind=AccountKind.FEES, currency="EUR", ref="tournament:1"))
    legs = [Leg(payer, pool, 1000, TransferReason.BUY_IN, "pool"), Leg(payer, fees, 100, TransferReason.FEE, "fee")]
    returned: list[tuple[int, ...]] = []

    def pay(number: int) -> None:
        if inside_a_transaction:
            with transaction.atomic():
                transfers = transfers_create(legs=legs, idempotency_key_prefix="same")
                # The savepoint let the transaction go on after losing the race.
                Account.objects.filter(pk=payer.pk).exists()
        else:
            transfers = transfers_create(legs=legs, idempotency_key_prefix="same")
        returned.append(tuple(t.pk for t in transfers))

    outcomes = race(10, pay)

    assert outcomes == {"ok": 10}
    assert len(set(returned)) == 1
    assert Transfer.objects.filter(idempotency_key__startswith="same:").count() == 2
    assert AuditEntry.objects.filter(subject_type="wallet.transfer", subject_id__in=map(str, returned[0])).count() == 2
    for account in (payer, pool, fees):
        account.refresh_from_db()
    assert [payer.balance, pool.balance, fees.balance] == [3900, 1000, 100]
    call_command("wallet_audit")
