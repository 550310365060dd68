"""transfers_create: several legs move together or not at all, once per key, each
with its audit row, and the books stay balanced."""

from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import AuditRecord
from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.models import Entry, PaymentForm, PurchaseKind
from tournaments.rules.pricing import EntryPrice
from tournaments.services.entries import entry_register, entry_unregister
from tournaments.services.purchases import purchase_record, purchase_settle, purchases_refund
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
    house_account_spec,
    transfers_create,
    transfers_journal,
    transfers_settle,
    wallet_account_spec,
)


def balances(*accounts: Account) -> list[int]:
    """Their balances now, in the order given."""
    now = dict(Account.objects.filter(pk__in=[a.pk for a in accounts]).values_list("pk", "balance"))
    return [now[a.pk] for a in accounts]


def pool_and_fees(ref: str = "tournament:1") -> tuple[Account, Account]:
    return (
        account_get(AccountSpec(kind=AccountKind.PRIZE_POOL, currency="EUR", ref=ref)),
        account_get(AccountSpec(kind=AccountKind.FEES, currency="EUR", ref=ref)),
    )


def entry_legs(payer: Account, pool: Account, fees: Account, *, price: int = 1000, fee: int = 100) -> list[Leg]:
    return [
        Leg(payer, pool, price, TransferReason.BUY_IN, "pool"),
        Leg(payer, fees, fee, TransferReason.FEE, "fee"),
    ]


@pytest.fixture
def funded(player):
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="funds")
    return account_get(wallet_account_spec(player.pk, "EUR"))


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
    poor = account_get(wallet_account_spec(other_player.pk, "EUR"))
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


def test_legs_that_cancel_out_leave_the_balances_and_record_both_transfers(player, funded):
    pool, _fees = pool_and_fees()
    legs = [Leg(funded, pool, 700, TransferReason.BUY_IN, "in"), Leg(pool, funded, 700, TransferReason.REFUND, "out")]

    # The pool holds nothing: only what leaves counts, and it pays back what it took in.
    with pytest.raises(InsufficientFunds):
        transfers_create(legs=legs, idempotency_key_prefix="round")
    deposit_create(user=player, currency="EUR", amount=700, idempotency_key="more")
    transfers_create(legs=[Leg(funded, pool, 700, TransferReason.BUY_IN)], idempotency_key_prefix="seed")
    transfers = transfers_create(legs=legs, idempotency_key_prefix="round")

    assert [t.idempotency_key for t in transfers] == ["round:in", "round:out"]
    assert balances(funded, pool) == [5000, 700]
    assert wallet_discrepancies() == []


def test_the_house_may_pay_more_than_it_holds(player):
    house = account_get(house_account_spec("EUR"))
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


def test_a_batch_locks_its_accounts_and_writes_each_kind_of_row_in_one_statement(
    player, funded, django_assert_num_queries
):
    pool, fees = pool_and_fees()
    bounties = account_get(AccountSpec(kind=AccountKind.BOUNTIES, currency="EUR", ref="tournament:1"))
    legs = [*entry_legs(funded, pool, fees), Leg(funded, bounties, 50, TransferReason.BOUNTY, "bounty")]

    # The key look-up, a savepoint, the accounts locked in one SELECT, their balances in
    # one UPDATE, the transfers' INSERT and their audit rows', the release.
    with django_assert_num_queries(7):
        transfers_create(legs=legs, idempotency_key_prefix="counted", actor=player)
    # Keys the caller vouches for: no look-up and no savepoint.
    with django_assert_num_queries(4):
        transfers_create(legs=legs, idempotency_key_prefix="counted-new", actor=player, keys_are_new=True)
    assert balances(funded, pool, fees, bounties) == [5000 - 2 * 1150, 2000, 200, 100]


def test_each_transfer_has_exactly_one_audit_row(player, funded):
    pool, fees = pool_and_fees()

    transfers = transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="once", actor=player)

    ids = [str(t.pk) for t in transfers]
    rows = AuditEntry.objects.filter(subject_type="wallet.transfer", subject_id__in=ids)
    assert Counter(rows.values_list("subject_id", flat=True)) == dict.fromkeys(ids, 1)


def test_the_callers_audit_rows_are_written_with_the_transfers_and_not_on_a_refusal(player, funded):
    pool, fees = pool_and_fees()
    paid = AuditRecord(action="tests.paid", subject=pool, actor=player, data={"x": 1})

    with pytest.raises(InsufficientFunds):
        transfers_create(legs=entry_legs(funded, pool, fees, price=4950), idempotency_key_prefix="short", audit=[paid])
    assert not AuditEntry.objects.filter(action="tests.paid").exists()

    transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="paid", audit=[paid])
    transfers_create(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="paid", audit=[paid])  # a retry
    transfers_create(legs=[], idempotency_key_prefix="free", audit=[paid])

    rows = AuditEntry.objects.filter(action="tests.paid")
    assert (
        list(rows.values_list("actor", "subject_type", "subject_id", "data"))
        == [(player.pk, "wallet.account", str(pool.pk), {"x": 1})] * 2
    )


def test_journaled_transfers_move_their_money_when_settled(player, funded):
    pool, fees = pool_and_fees()

    with transaction.atomic():
        journaled = transfers_journal(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="early", actor=player)
        assert balances(funded, pool, fees) == [5000, 0, 0]  # written, not moved yet
        transfers = transfers_settle(journaled)

    assert [t.idempotency_key for t in transfers] == ["early:pool", "early:fee"]
    assert balances(funded, pool, fees) == [3900, 1000, 100]
    assert wallet_discrepancies() == []


def test_journaled_transfers_short_of_funds_cannot_commit_without_their_money(player, funded):
    pool, fees = pool_and_fees()
    legs = entry_legs(funded, pool, fees, price=5000)

    with transaction.atomic():
        journaled = transfers_journal(legs=legs, idempotency_key_prefix="short", actor=player)
        with pytest.raises(InsufficientFunds):
            transfers_settle(journaled)
        assert transaction.get_rollback()  # the block rolls back, its rows with it

    assert not Transfer.objects.filter(idempotency_key__startswith="short").exists()
    assert balances(funded, pool, fees) == [5000, 0, 0]
    assert wallet_discrepancies() == []


@pytest.mark.django_db(transaction=True)
def test_transfers_are_journaled_only_in_a_transaction(funded):
    pool, fees = pool_and_fees()

    with pytest.raises(WalletError, match="one transaction"):
        transfers_journal(legs=entry_legs(funded, pool, fees), idempotency_key_prefix="alone")

    assert not Transfer.objects.filter(idempotency_key__startswith="alone").exists()


def test_the_database_refuses_a_negative_player_balance_behind_the_ledgers_back(funded):
    """The constraint is the backstop under the ledger's own check."""
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=funded.pk).update(balance=F("balance") - 5001)

    assert balances(funded) == [5000]


def test_the_house_account_may_go_negative_in_the_database_too(player):
    house = account_get(house_account_spec("EUR"))

    Account.objects.filter(pk=house.pk).update(balance=-1)

    assert balances(house) == [-1]


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
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 5000
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
            purchase_settle(
                purchase_record(
                    tournament=event,
                    entry=entry,
                    kind=PurchaseKind.REBUY,
                    form=PaymentForm.CASH,
                    price=EntryPrice(300, 30, 0),
                    chips=10_000,
                    idempotency_key=f"rebuy-{number}",
                    now=now,
                    actor=player,
                )
            )
        )
    event.refresh_from_db()
    entry = Entry.objects.select_related("player").get(pk=entry.pk)  # as a cancellation loads it

    # The purchases, the accounts, the ledger's four (the accounts' lock, their balances,
    # the transfers, their audit rows), the refunded mark.
    with django_assert_num_queries(7):
        refunded = purchases_refund(tournament=event, entry=entry, now=now, actor=player)

    assert sum(purchase.price for purchase in refunded) == 900
    keys = Transfer.objects.filter(reason=TransferReason.REFUND).values_list("idempotency_key", flat=True)
    assert sorted(keys) == sorted(f"purchase:{p.pk}:refund:{leg}" for p in purchases for leg in ("pool", "fee"))
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 5000
    assert wallet_discrepancies() == []


def _inside_the_service(captured) -> tuple[list[str], list[str]]:
    """The statements before the service's own transaction (a savepoint inside the
    test's) and those inside it, where the tournament's row lock is held."""
    sqls = [query["sql"] for query in captured]
    begin = next(i for i, sql in enumerate(sqls) if sql.startswith("SAVEPOINT"))
    end = max(i for i, sql in enumerate(sqls) if sql.startswith("RELEASE SAVEPOINT"))
    return sqls[:begin], [sql for sql in sqls[begin + 1 : end] if "SAVEPOINT" not in sql]


def test_registration_and_unregistration_keep_their_reads_before_the_lock(player, funded):
    """Every statement under the tournament's lock makes every other player of the
    event wait (bench/registration.py): the reads come before it, and a registration's
    new rows too; under it only the lock, the ledger's moves and the counts (an
    unregistration's: also the entry, its purchases and the audit)."""
    event = TournamentFactory(buy_in=1000, fee=100)
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())  # opens the event's accounts
    entry_unregister(tournament_id=event.pk, player=player, now=timezone.now())

    with CaptureQueriesContext(connection) as registering:
        entry_register(tournament_id=event.pk, player=player, now=timezone.now(), idempotency_key="budget")
    with CaptureQueriesContext(connection) as unregistering:
        entry_unregister(tournament_id=event.pk, player=player, now=timezone.now())

    # The player's break or exclusion (responsible gaming), the event's terms, the
    # accounts; a retry's earlier purchase is looked for only once it is refused.
    before, under = _inside_the_service(registering)
    assert len(before) == 3
    assert "responsible_exclusion" in before[0]
    assert 'FROM "tournaments_tournament"' in before[1]
    assert "FOR " not in before[1]
    # In its transaction, before the lock: the entry, its purchase, the transfers and
    # their audit rows with the entry's. From the lock on, which every other
    # registration of the event waits for: the lock, the accounts' lock, their
    # balances, the counts.
    locking = next(i for i, sql in enumerate(under) if sql.startswith("SELECT") and '"tournaments_tournament"' in sql)
    written, held = under[:locking], under[locking:]
    tables = ("tournaments_entry", "tournaments_purchase", "wallet_transfer", "audit_auditentry")
    assert len(written) == len(tables)
    for sql, table in zip(written, tables, strict=True):
        assert sql.startswith(f'INSERT INTO "{table}"')
    assert len(held) == 4
    assert held[1].startswith('SELECT "wallet_account"')
    assert held[2].startswith('UPDATE "wallet_account"')
    assert held[3].startswith('UPDATE "tournaments_tournament"')
    before, under = _inside_the_service(unregistering)
    assert len(before) == 1  # the accounts
    # The lock, the entry with its purchases, its end, the ledger's four (the entry's
    # audit row with the transfers'), the refunded mark, the counts.
    assert len(under) == 9
