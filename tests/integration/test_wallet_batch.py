"""transfers_create: several legs move together or not at all, once per key, each
with its audit row, and the books stay balanced."""

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.models import Entry, PaymentForm, PurchaseKind
from tournaments.services.entries import entry_refund, entry_register, entry_unregister, purchase_create
from wallet.audit import wallet_discrepancies
from wallet.models import Account, AccountKind, Transfer, TransferReason
from wallet.services import (
    AccountSpec,
    InsufficientFunds,
    Leg,
    WalletError,
    account_get,
    accounts_get,
    deposit_create,
    house_account,
    transfers_create,
    wallet_account,
)


def balances(*accounts: Account) -> list[int]:
    """Their balances now, in the order given."""
    now = dict(Account.objects.filter(pk__in=[a.pk for a in accounts]).values_list("pk", "balance"))
    return [now[a.pk] for a in accounts]


def pool_and_fees(ref: str = "tournament:1") -> tuple[Account, Account]:
    return (
        account_get(kind=AccountKind.PRIZE_POOL, currency="EUR", ref=ref),
        account_get(kind=AccountKind.FEES, currency="EUR", ref=ref),
    )


def entry_legs(payer: Account, pool: Account, fees: Account, *, price: int = 1000, fee: int = 100) -> list[Leg]:
    return [
        Leg(payer, pool, price, TransferReason.BUY_IN, "pool"),
        Leg(payer, fees, fee, TransferReason.FEE, "fee"),
    ]


@pytest.fixture
def funded(player):
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="funds")
    return wallet_account(player, "EUR")


def test_every_leg_moves_in_one_batch(player, funded):
    pool, fees = pool_and_fees()

    transfers = transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="batch", actor=player)

    assert [(t.idempotency_key, t.amount, t.reason) for t in transfers] == [
        ("batch:pool", 1000, TransferReason.BUY_IN),
        ("batch:fee", 100, TransferReason.FEE),
    ]
    assert balances(funded, pool, fees) == [3900, 1000, 100]
    assert wallet_discrepancies() == []


def test_a_leg_short_of_funds_refuses_the_whole_batch_and_moves_nothing(player, funded):
    pool, fees = pool_and_fees()
    before = (Transfer.objects.count(), AuditEntry.objects.count())

    # Each leg alone is covered (4500 and 600 of 5000); together they are not.
    with pytest.raises(InsufficientFunds):
        transfers_create(
            legs=entry_legs(funded, pool, fees, price=4500, fee=600), idempotency_key_prefix="short", actor=player
        )

    assert balances(funded, pool, fees) == [5000, 0, 0]
    assert (Transfer.objects.count(), AuditEntry.objects.count()) == before
    assert wallet_discrepancies() == []


def test_one_poor_source_among_several_refuses_every_leg(player, other_player, funded):
    deposit_create(user=other_player, currency="EUR", amount=50, idempotency_key="little")
    poor = wallet_account(other_player, "EUR")
    pool, fees = pool_and_fees()

    with pytest.raises(InsufficientFunds):
        transfers_create(
            legs=[
                Leg(funded, pool, 1000, TransferReason.BUY_IN, "rich"),
                Leg(poor, fees, 100, TransferReason.FEE, "poor"),
            ],
            idempotency_key_prefix="two-payers",
        )

    assert balances(funded, poor, pool, fees) == [5000, 50, 0, 0]
    assert not Transfer.objects.filter(idempotency_key__startswith="two-payers").exists()


def test_the_house_may_pay_more_than_it_holds(player):
    house = house_account("EUR")
    pool, fees = pool_and_fees()

    transfers_create(legs=entry_legs(house, pool, fees), idempotency_key_prefix="ticket")

    assert balances(house, pool, fees) == [-1100, 1000, 100]
    assert wallet_discrepancies() == []


def test_a_refusal_leaves_the_callers_transaction_usable(player, funded):
    """With new keys there is no savepoint: the refusal must not doom the transaction
    that made them."""
    pool, fees = pool_and_fees()
    with transaction.atomic():
        with pytest.raises(InsufficientFunds):
            transfers_create(
                legs=entry_legs(funded, pool, fees, price=9000),
                idempotency_key_prefix="fresh",
                keys_are_new=True,
            )
        transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="fresh", keys_are_new=True)

    assert balances(funded, pool, fees) == [3900, 1000, 100]


def test_a_retry_returns_the_same_transfers_and_moves_nothing(player, funded):
    pool, fees = pool_and_fees()
    first = transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="retry", actor=player)
    audit_rows = AuditEntry.objects.count()

    again = transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="retry", actor=player)

    assert [t.pk for t in again] == [t.pk for t in first]
    assert balances(funded, pool, fees) == [3900, 1000, 100]
    assert AuditEntry.objects.count() == audit_rows


def test_a_key_used_for_another_payment_is_refused(player, funded):
    pool, fees = pool_and_fees()
    transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="used")

    with pytest.raises(WalletError, match="different payment"):
        transfers_create(legs=entry_legs(funded, pool, fees, fee=200), idempotency_key_prefix="used")
    with pytest.raises(WalletError, match="different payment"):  # only some of the keys were used
        transfers_create(
            legs=[*entry_legs(funded, pool, fees), Leg(funded, pool, 5, TransferReason.BOUNTY, "bounty")],
            idempotency_key_prefix="used",
        )

    assert balances(funded, pool, fees) == [3900, 1000, 100]


def test_two_legs_with_one_name_are_refused(funded):
    pool, _fees = pool_and_fees()
    legs = [Leg(funded, pool, 10, TransferReason.BUY_IN, "pool"), Leg(funded, pool, 20, TransferReason.BUY_IN, "pool")]

    with pytest.raises(WalletError):
        transfers_create(legs=legs, idempotency_key_prefix="twice")

    assert not Transfer.objects.filter(idempotency_key__startswith="twice").exists()


def test_each_transfer_has_its_audit_row(player, funded):
    pool, fees = pool_and_fees()

    transfers = transfers_create(
        legs=entry_legs(funded, pool, fees), idempotency_key_prefix="audited", actor=player, memo="why"
    )

    rows = AuditEntry.objects.filter(subject_type="wallet.transfer", subject_id__in=[str(t.pk) for t in transfers])
    assert sorted(rows.values_list("subject_id", "action", "actor", "reason", "data")) == sorted(
        (
            str(t.pk),
            f"wallet.transfer.{t.reason}",
            player.pk,
            "why",
            {"amount": t.amount, "currency": "EUR", "from": funded.pk, "to": t.destination_id},
        )
        for t in transfers
    )


def test_the_one_leg_transfer_keeps_its_key_whole(funded):
    pool, _fees = pool_and_fees()

    (transfer,) = transfers_create(
        legs=[Leg(funded, pool, 10, TransferReason.BUY_IN)], idempotency_key_prefix="whole-key"
    )

    assert transfer.idempotency_key == "whole-key"


def test_a_batch_costs_a_fixed_number_of_queries(player, funded, django_assert_num_queries):
    pool, fees = pool_and_fees()
    bounties = account_get(kind=AccountKind.BOUNTIES, currency="EUR", ref="tournament:1")
    legs = [*entry_legs(funded, pool, fees), Leg(funded, bounties, 50, TransferReason.BOUNTY, "bounty")]

    # The key look-up, a savepoint, one statement (the UPDATE that locks, the INSERTs of
    # the transfers and their audit rows), the release.
    with django_assert_num_queries(4):
        transfers_create(legs=legs, idempotency_key_prefix="counted", actor=player)
    # Keys the caller vouches for: that statement only.
    with django_assert_num_queries(1):
        transfers_create(legs=legs, idempotency_key_prefix="counted-new", actor=player, keys_are_new=True)


def test_the_one_statement_writes_what_the_update_and_the_inserts_write(player, funded):
    """On PostgreSQL the ledger writes in one statement (_ledger_write); the embedded
    SQLite in three (_balances_move and _journal). Both leave the same rows."""
    from wallet.services import _balances_move, _journal, _ledger_write

    pool, fees = pool_and_fees()
    written = {}
    for way in ("one", "three"):
        # Each way's own row has its own subject: the audit log keeps both.
        own = AuditEntry(action="tests.paid", actor=player, subject_type="tests.thing", subject_id=way, data={"x": 1})
        keys = [f"{way}:pool", f"{way}:fee"]
        legs = entry_legs(funded, pool, fees)
        with transaction.atomic():
            if way == "one":
                moved, transfers = _ledger_write(legs, keys=keys, actor=player, memo="m", audit=[own])
            else:
                moved = _balances_move(legs)
                transfers = _journal(legs, keys=keys, actor=player, memo="m", audit=[own])
        assert moved
        made = Transfer.objects.filter(idempotency_key__in=keys).order_by("pk")
        assert [t.pk for t in transfers] == [t.pk for t in made]
        rows = AuditEntry.objects.filter(
            subject_id__in=[str(t.pk) for t in made] + [way],
            action__in=["wallet.transfer.buy_in", "wallet.transfer.fee", "tests.paid"],
        ).order_by("pk")
        written[way] = (
            [(t.source_id, t.destination_id, t.amount, t.reason, t.memo, t.actor_id) for t in made],
            [(r.action, r.actor_id, r.subject_type, r.reason, r.data) for r in rows],
            [r.subject_id for r in rows[:2]] == [str(t.pk) for t in made],
        )
    assert written["one"] == written["three"]
    assert written["one"][2]
    assert balances(funded, pool, fees) == [5000 - 2200, 2000, 200]


def test_the_one_statement_moves_nothing_when_a_source_is_short(player, funded):
    from wallet.services import _ledger_write

    pool, fees = pool_and_fees()
    own = AuditEntry(action="tests.paid", actor=player, subject_type="tests.thing", subject_id="7")
    with transaction.atomic():
        moved, transfers = _ledger_write(
            entry_legs(funded, pool, fees, price=4950), keys=["a", "b"], actor=player, memo="", audit=[own]
        )
    assert (moved, transfers) == (False, [])
    assert balances(funded, pool, fees) == [5000, 0, 0]
    assert not Transfer.objects.filter(idempotency_key__in=["a", "b"]).exists()
    assert not AuditEntry.objects.filter(action="tests.paid").exists()


def test_accounts_are_read_with_one_query_and_missing_ones_made(player, funded, django_assert_num_queries):
    specs = [
        AccountSpec(AccountKind.PLAYER_CASH, "EUR", owner_id=player.pk),
        AccountSpec(AccountKind.PRIZE_POOL, "EUR", ref="tournament:7"),
    ]
    made = accounts_get(specs)

    assert made[specs[0]] == funded
    assert made[specs[1]].balance == 0
    with django_assert_num_queries(1):
        assert accounts_get(specs) == made


def test_registration_pays_and_unregistration_refunds_each_in_one_batch(player, funded):
    event = TournamentFactory(buy_in=1000, fee=100, bounty_kind="knockout", bounty_amount=200)
    now = timezone.now()

    entry_register(tournament_id=event.pk, player=player, now=now)
    entry_unregister(tournament_id=event.pk, player=player, now=now)

    keys = set(Transfer.objects.exclude(reason=TransferReason.DEPOSIT).values_list("idempotency_key", flat=True))
    purchase = event.entries.get().purchases.get()
    assert keys == {
        f"purchase:{purchase.pk}:{leg}"
        for leg in ("pool", "fee", "bounty", "refund:pool", "refund:fee", "refund:bounty")
    }
    assert wallet_account(player, "EUR").balance == 5000
    call_command("wallet_audit")


def test_an_entry_with_rebuys_is_refunded_in_one_batch(player, funded, django_assert_num_queries):
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=timezone.now() + timedelta(hours=1),
        buy_in=300,
        fee=30,
        rebuy_price=300,
        rebuy_fee=30,
        rebuy_chips=10_000,
        rebuy_levels=1,
    )
    now = timezone.now()
    entry = entry_register(tournament_id=event.pk, player=player, now=now)
    purchases = [entry.purchases.get()]
    for number in range(2):  # bought before the start, as the refund is made
        purchases.append(
            purchase_create(
                tournament=event,
                entry=entry,
                kind=PurchaseKind.REBUY,
                form=PaymentForm.CASH,
                amounts=(300, 30, 0),
                chips=10_000,
                ticket_id=None,
                idempotency_key=f"rebuy-{number}",
                now=now,
            )
        )
    event.refresh_from_db()
    entry = Entry.objects.select_related("player").get(pk=entry.pk)  # as a cancellation loads it

    # The purchases, the accounts, one statement that locks and moves them and writes the
    # transfers and their audit rows, the refunded mark.
    with django_assert_num_queries(4):
        refunded = entry_refund(tournament=event, entry=entry, now=now)

    assert refunded == 900
    keys = Transfer.objects.filter(reason=TransferReason.REFUND).values_list("idempotency_key", flat=True)
    assert sorted(keys) == sorted(f"purchase:{p.pk}:refund:{leg}" for p in purchases for leg in ("pool", "fee"))
    assert wallet_account(player, "EUR").balance == 5000
    assert wallet_discrepancies() == []


def test_registration_and_unregistration_stay_within_their_query_budget(player, funded, django_assert_max_num_queries):
    """Each query runs under the tournament's lock, which every other player of the
    event waits for: the count is the throughput (bench/registration.py)."""
    event = TournamentFactory(buy_in=1000, fee=100)
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())  # opens the event's accounts
    entry_unregister(tournament_id=event.pk, player=player, now=timezone.now())

    # The event's terms and the accounts read ahead in one query; then, under the lock: the
    # tournament with the entry and its purchase, the ledger's one statement, and the
    # savepoint and its release.
    with django_assert_max_num_queries(5):
        entry_register(tournament_id=event.pk, player=player, now=timezone.now(), idempotency_key="budget")
    # The purchases and the accounts read ahead in one; then, under the lock: the tournament
    # (its count too) with the entry's end and its purchases' refunded mark, the ledger's
    # one, the savepoint and its release.
    with django_assert_max_num_queries(5):
        entry_unregister(tournament_id=event.pk, player=player, now=timezone.now())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("inside_a_transaction", [False, True], ids=["autocommit", "in-transaction"])
def test_concurrent_retries_of_one_batch_move_the_money_once(inside_a_transaction):
    player = UserFactory(username="alice")
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="funds")
    payer = wallet_account(player, "EUR")
    pool, fees = pool_and_fees()
    threads, start, lock = 10, threading.Barrier(10), threading.Lock()
    outcomes: Counter = Counter()
    returned: list[tuple[int, ...]] = []

    def pay() -> None:
        try:
            start.wait()
            if inside_a_transaction:
                with transaction.atomic():
                    transfers = transfers_create(legs=entry_legs(payer, pool, fees), idempotency_key_prefix="same")
                    # The savepoint let the transaction go on after losing the race.
                    Account.objects.filter(pk=payer.pk).exists()
            else:
                transfers = transfers_create(legs=entry_legs(payer, pool, fees), idempotency_key_prefix="same")
            with lock:
                returned.append(tuple(t.pk for t in transfers))
            outcome = "ok"
        except Exception as error:  # any other outcome fails the test below
            outcome = repr(error)
        finally:
            connection.close()
        with lock:
            outcomes[outcome] += 1

    workers = [threading.Thread(target=pay) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)

    assert not any(worker.is_alive() for worker in workers)
    assert outcomes == {"ok": threads}
    assert len(set(returned)) == 1
    assert Transfer.objects.filter(idempotency_key__startswith="same:").count() == 2
    assert AuditEntry.objects.filter(subject_type="wallet.transfer", subject_id__in=map(str, returned[0])).count() == 2
    assert balances(payer, pool, fees) == [3900, 1000, 100]
    call_command("wallet_audit")
