"""Registration under real concurrency on PostgreSQL: real threads, real connections,
committed transactions (the scarce resources are seats and each player's money).

Every thread closes its own database connection when it is done, so the flush after
each test never waits on one. The PostgreSQL server is shared (max_connections 100),
so at most CONNECTIONS threads hold a connection at once: a race of 200 players is
200 threads released together by a barrier, of which CONNECTIONS at a time are in
the database, contending for the tournament's row lock (production runs 16 request
threads).
"""

import random
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.models import Entry, EntryKind, EntryStatus, PaymentForm, Purchase, PurchaseKind, Tournament
from tournaments.services.cancellation import CancelMode, tournament_cancel
from tournaments.services.entries import entry_rebuy, entry_register, entry_unregister
from tournaments.services.refusals import TournamentError
from wallet.models import Account, AccountKind, Currency, Transfer, TransferReason
from wallet.services import AccountSpec, account_get, deposit_create, wallet_account_spec

pytestmark = pytest.mark.django_db(transaction=True)

CONNECTIONS = 32
WAIT = 60.0  # seconds a whole race may take before it counts as hung


@dataclass
class Outcome:
    value: object = None
    error: BaseException | None = None
    trace: str = ""

    @property
    def code(self) -> str | None:
        return self.error.code if isinstance(self.error, TournamentError) else None


def race(calls: list[Callable[[], object]]) -> list[Outcome]:
    """Run each call in its own thread, released together; what each returned or raised."""
    start = threading.Barrier(len(calls))
    seats = threading.BoundedSemaphore(min(CONNECTIONS, len(calls)))

    def run(call: Callable[[], object]) -> Outcome:
        try:
            start.wait(timeout=WAIT)
            with seats:
                try:
                    return Outcome(value=call())
                except Exception as error:
                    return Outcome(error=error, trace=traceback.format_exc())
        finally:
            connection.close()

    return _collect(run, calls, len(calls))


def _collect(run: Callable, calls: list, workers: int) -> list:
    executor = ThreadPoolExecutor(max_workers=workers)
    futures = [executor.submit(run, call) for call in calls]
    try:
        return [future.result(timeout=WAIT) for future in futures]
    except FutureTimeout:
        pytest.fail(f"threads still running after {WAIT} s: a lock wait that never ends")
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


def refusals(outcomes: list[Outcome], allowed: set[str]) -> Counter:
    """The refusal codes. Anything else raised (a deadlock, a serialization failure, an
    IntegrityError, another refusal) fails the test with its traceback: that is a bug
    in the services, not something for a test to retry."""
    unexpected = [o for o in outcomes if o.error is not None and o.code not in allowed]
    if unexpected:
        kinds = Counter(o.code or type(o.error).__name__ for o in unexpected)
        pytest.fail(f"unexpected errors {dict(kinds)}; the first:\n{unexpected[0].trace}", pytrace=False)
    return Counter(o.code for o in outcomes if o.error is not None)


def funded_players(count: int, *, prefix: str, eur: int, tmoney: int = 0) -> list:
    players = []
    for number in range(count):
        player = UserFactory(username=f"{prefix}{number}")
        deposit_create(user=player, currency=Currency.EUR, amount=eur, idempotency_key=f"eur:{player.pk}")
        if tmoney:
            deposit_create(user=player, currency=Currency.TMONEY, amount=tmoney, idempotency_key=f"tmy:{player.pk}")
        players.append(player)
    return players


def account(tournament, kind: str):
    currency = Currency.TMONEY if tournament.entry_kind == EntryKind.TMONEY else tournament.currency
    return account_get(AccountSpec(kind=kind, currency=currency, ref=f"tournament:{tournament.pk}"))


def total(currency: str, *, inside_the_room: bool = False) -> int:
    accounts = Account.objects.filter(currency=currency)
    if inside_the_room:
        accounts = accounts.exclude(kind=AccountKind.EXTERNAL)
    return accounts.aggregate(total=Sum("balance"))["total"] or 0


def test_two_hundred_players_race_for_the_last_twenty_seats():
    event = TournamentFactory(buy_in=1000, fee=100, max_entrants=25)
    now = timezone.now()
    for early in funded_players(5, prefix="early", eur=5000):
        entry_register(tournament_id=event.pk, player=early, now=now)
    racers = funded_players(200, prefix="racer", eur=5000)
    before = {"all": total("EUR"), "room": total("EUR", inside_the_room=True)}

    outcomes = race([lambda p=p: entry_register(tournament_id=event.pk, player=p, now=timezone.now()) for p in racers])

    assert refusals(outcomes, {"full"}) == {"full": 180}
    winners = [p for p, o in zip(racers, outcomes, strict=True) if o.error is None]
    assert len(winners) == 20
    event.refresh_from_db()
    active = Entry.objects.filter(tournament=event, status=EntryStatus.ACTIVE)
    assert event.entries_count == active.count() == 25
    assert set(active.filter(player__in=racers).values_list("player", flat=True)) == {p.pk for p in winners}
    assert Purchase.objects.filter(entry__tournament=event).count() == 25
    assert account(event, AccountKind.PRIZE_POOL).balance == event.prize_contributions == 25 * 1000
    assert account(event, AccountKind.FEES).balance == 25 * 100
    balances = dict(Account.objects.filter(owner__in=racers, currency="EUR").values_list("owner", "balance").order_by())
    assert Counter(balances.values()) == {5000 - 1100: 20, 5000: 180}
    assert {"all": total("EUR"), "room": total("EUR", inside_the_room=True)} == before
    call_command("wallet_audit")


@pytest.fixture
def event(db):
    return TournamentFactory(buy_in=1000, fee=100)


@pytest.fixture
def rich(player):
    deposit_create(user=player, currency="EUR", amount=50_000, idempotency_key="rich")
    return player


def test_a_double_clicked_register_enters_and_charges_once(event, rich):
    outcomes = race([lambda: entry_register(tournament_id=event.pk, player=rich, now=timezone.now())] * 8)

    assert refusals(outcomes, {"already_registered"}) == {"already_registered": 7}
    event.refresh_from_db()
    assert event.entries_count == Entry.objects.filter(tournament=event).count() == 1
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000 - 1100
    assert Transfer.objects.filter(reason=TransferReason.BUY_IN).count() == 1
    call_command("wallet_audit")


def test_a_double_clicked_register_with_one_key_returns_the_same_entry(event, rich):
    key = f"register:{uuid.uuid4()}"
    outcomes = race(
        [lambda: entry_register(tournament_id=event.pk, player=rich, now=timezone.now(), idempotency_key=key)] * 8
    )

    assert refusals(outcomes, set()) == {}
    entry = Entry.objects.get(tournament=event)
    assert {o.value.pk for o in outcomes} == {entry.pk}
    event.refresh_from_db()
    assert event.entries_count == 1
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000 - 1100
    assert Purchase.objects.count() == 1
    call_command("wallet_audit")


def test_a_double_clicked_unregister_refunds_once(event, rich):
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())

    outcomes = race([lambda: entry_unregister(tournament_id=event.pk, player=rich, now=timezone.now())] * 8)

    assert refusals(outcomes, {"not_registered"}) == {"not_registered": 7}
    event.refresh_from_db()
    assert (event.entries_count, event.prize_contributions) == (0, 0)
    assert Entry.objects.get(tournament=event).status == EntryStatus.UNREGISTERED
    assert Transfer.objects.filter(reason=TransferReason.REFUND).count() == 2  # the buy-in and the fee
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000
    assert account(event, AccountKind.PRIZE_POOL).balance == account(event, AccountKind.FEES).balance == 0
    call_command("wallet_audit")


@pytest.fixture
def rebuy_event(db):
    return TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=timezone.now() - timedelta(minutes=5),
        status="late_registration",
        buy_in=300,
        fee=30,
        rebuy_price=300,
        rebuy_fee=30,
        rebuy_chips=10_000,
        rebuy_levels=1,
        rebuy_limit=None,
    )


def test_a_double_clicked_rebuy_with_one_key_is_charged_once(rebuy_event, rich):
    entry_register(tournament_id=rebuy_event.pk, player=rich, now=timezone.now())
    key = f"rebuy:{uuid.uuid4()}"

    outcomes = race(
        [lambda: entry_rebuy(tournament_id=rebuy_event.pk, player=rich, now=timezone.now(), idempotency_key=key)] * 8
    )

    assert refusals(outcomes, set()) == {}
    purchase = Purchase.objects.get(kind=PurchaseKind.REBUY)
    assert {o.value.pk for o in outcomes} == {purchase.pk}
    entry = Entry.objects.get(tournament=rebuy_event)
    assert (entry.rebuys, entry.chips) == (1, rebuy_event.starting_stack + 10_000)
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000 - 330 - 330
    rebuy_event.refresh_from_db()
    assert account(rebuy_event, AccountKind.PRIZE_POOL).balance == rebuy_event.prize_contributions == 600
    call_command("wallet_audit")


def test_rebuys_without_a_key_are_separate_requests(rebuy_event, rich):
    entry_register(tournament_id=rebuy_event.pk, player=rich, now=timezone.now())

    outcomes = race([lambda: entry_rebuy(tournament_id=rebuy_event.pk, player=rich, now=timezone.now())] * 8)

    assert refusals(outcomes, set()) == {}
    assert len({o.value.pk for o in outcomes}) == 8
    entry = Entry.objects.get(tournament=rebuy_event)
    assert (entry.rebuys, entry.chips) == (8, rebuy_event.starting_stack + 8 * 10_000)
    assert Purchase.objects.filter(kind=PurchaseKind.REBUY).aggregate(chips=Sum("chips"))["chips"] == 8 * 10_000
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000 - 330 - 8 * 330
    rebuy_event.refresh_from_db()
    assert account(rebuy_event, AccountKind.PRIZE_POOL).balance == rebuy_event.prize_contributions == 300 + 8 * 300
    assert account(rebuy_event, AccountKind.FEES).balance == 30 + 8 * 30
    call_command("wallet_audit")


def test_a_long_run_of_interleaved_registrations_leaves_the_books_balanced():
    """8 threads, 30 players, 3 events for a fixed time: cash and T-Money paying a cash
    event, a knockout bounty, a T-Money event, a small field that fills, and players
    who can afford only one entry (their refused entries roll back)."""
    events = [
        TournamentFactory(buy_in=1000, fee=100, max_entrants=4),
        TournamentFactory(buy_in=500, fee=50, bounty_kind="knockout", bounty_amount=250),
        TournamentFactory(entry_kind=EntryKind.TMONEY, currency=Currency.TMONEY, buy_in=300, fee=30),
    ]
    players = funded_players(10, prefix="poor", eur=1100) + funded_players(20, prefix="rich", eur=10_000, tmoney=10_000)
    deposited = {currency: total(currency, inside_the_room=True) for currency in ("EUR", "TMY")}
    # About 8 s; on a machine too busy for 300 requests in that time, up to 20 s.
    began, threads, enough = time.monotonic(), 8, 300
    requests = [0] * threads  # per thread

    def more() -> bool:
        elapsed = time.monotonic() - began
        return elapsed < 8.0 or (sum(requests) < enough and elapsed < 20.0)

    def work(seed: int) -> list[Outcome]:
        rng = random.Random(seed)
        outcomes = []
        try:
            while more():
                requests[seed] += 1
                event, player = rng.choice(events), rng.choice(players)
                register = rng.random() < 0.55
                form = rng.choice([None, PaymentForm.TMONEY]) if event.entry_kind == EntryKind.CASH else None
                key = f"register:{uuid.uuid4()}" if rng.random() < 0.5 else None
                try:
                    if register:
                        entry = entry_register(
                            tournament_id=event.pk, player=player, now=timezone.now(), form=form, idempotency_key=key
                        )
                    else:
                        entry = entry_unregister(tournament_id=event.pk, player=player, now=timezone.now())
                    outcomes.append(Outcome(value=entry))
                except Exception as error:
                    outcomes.append(Outcome(error=error, trace=traceback.format_exc()))
        finally:
            connection.close()
        return outcomes

    outcomes = [o for batch in _collect(work, list(range(threads)), threads) for o in batch]

    codes = refusals(outcomes, {"already_registered", "not_registered", "full", "insufficient_funds"})
    done = Counter(type(o.value).__name__ for o in outcomes if o.error is None)
    assert done["Entry"] > 50, (done, codes)  # registrations and unregistrations both return the entry
    assert codes["full"] > 0
    assert codes["insufficient_funds"] > 0
    call_command("wallet_audit")
    for event in events:
        event.refresh_from_db()
        unrefunded = Purchase.objects.filter(entry__tournament=event, refunded_at=None)
        sums = unrefunded.aggregate(price=Sum("price"), fee=Sum("fee"), bounty=Sum("bounty"))
        assert event.entries_count == Entry.objects.filter(tournament=event, status=EntryStatus.ACTIVE).count()
        assert event.entries_count <= event.max_entrants
        assert unrefunded.count() == event.entries_count  # one unrefunded entry purchase per active entry
        assert not unrefunded.exclude(entry__status=EntryStatus.ACTIVE).exists()
        assert account(event, AccountKind.PRIZE_POOL).balance == event.prize_contributions == (sums["price"] or 0)
        assert account(event, AccountKind.FEES).balance == (sums["fee"] or 0)
        assert account(event, AccountKind.BOUNTIES).balance == (sums["bounty"] or 0)
    for player in players:
        held = Purchase.objects.filter(entry__player=player, refunded_at=None)
        for currency, paid_with in (("EUR", held.filter(form=PaymentForm.CASH)), ("TMY", held.exclude(form="cash"))):
            spent = sum(p.total for p in paid_with)
            funded = Transfer.objects.filter(destination__owner=player, reason=TransferReason.DEPOSIT)
            deposit = funded.filter(destination__currency=currency).aggregate(s=Sum("amount"))["s"] or 0
            assert account_get(wallet_account_spec(player.pk, currency)).balance == deposit - spent, (player, currency)
    assert {currency: total(currency, inside_the_room=True) for currency in ("EUR", "TMY")} == deposited


def _waiting_on_a_lock() -> bool:
    """Whether another connection waits for a lock; from inside a transaction too,
    whose view of the server's activity would otherwise stay as first read."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def register_while_the_lock_is_held(event, player, *, first=None, then=None) -> tuple[Outcome, dict[str, object]]:
    """A registration of `player` while another transaction holds `event`'s lock: that
    one takes the lock, calls `first` with the locked row, waits until the registration
    waits for a lock, calls `then` and commits. The registration's outcome, and what
    the holder saw: "waited", "committed", or the "error" that failed it."""
    locked = threading.Event()
    holder: dict[str, object] = {}

    def hold() -> None:
        try:
            with transaction.atomic():
                row = Tournament.objects.locked().get(pk=event.pk)
                if first is not None:
                    first(row)
                locked.set()
                deadline = time.monotonic() + WAIT
                while not (waited := _waiting_on_a_lock()) and time.monotonic() < deadline:
                    time.sleep(0.01)
                holder["waited"] = waited
                if then is not None:
                    then()
            holder["committed"] = True
        except Exception as error:
            holder["error"] = error
        finally:
            locked.set()
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert locked.wait(WAIT)
        (outcome,) = race([lambda: entry_register(tournament_id=event.pk, player=player, now=timezone.now())])
    finally:
        thread.join()
    return outcome, holder


def test_a_registration_that_waited_while_staff_raised_the_buy_in_is_refused_and_pays_nothing(event, rich):
    """A registration writes its entry and purchase at the terms it read, before the
    event's lock; if staff changed them meanwhile, it is refused, not charged the old
    price nor the new one without being asked."""

    def raise_the_buy_in(locked) -> None:
        locked.buy_in = 2000
        locked.save(update_fields=["buy_in"])

    outcome, staff = register_while_the_lock_is_held(event, rich, first=raise_the_buy_in)

    assert staff == {"waited": True, "committed": True}
    assert refusals([outcome], {"terms_changed"}) == {"terms_changed": 1}
    assert "register again" in outcome.error.message
    assert not Entry.objects.filter(tournament=event).exists()
    assert not Purchase.objects.exists()
    assert not Transfer.objects.filter(reason=TransferReason.BUY_IN).exists()
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000
    event.refresh_from_db()
    assert (event.entries_count, event.prize_contributions) == (0, 0)
    call_command("wallet_audit")

    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())  # at the new price
    assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000 - 2100


def test_registrations_racing_a_cancellation_are_each_refused_or_refunded_and_nobody_deadlocks(staff):
    """Registrations write their rows before the event's lock, which the cancellation
    holds while it refunds: neither waits for the other in a circle."""
    event = TournamentFactory(buy_in=1000, fee=100)
    players = funded_players(40, prefix="racer", eur=5000)
    before = total("EUR", inside_the_room=True)
    calls: list[Callable[[], object]] = [
        lambda p=p: entry_register(tournament_id=event.pk, player=p, now=timezone.now()) for p in players
    ]
    calls.insert(
        20,
        lambda: tournament_cancel(
            tournament_id=event.pk, actor=staff, reason="Server trouble", mode=CancelMode.ROLLBACK, now=timezone.now()
        ),
    )

    outcomes = race(calls)

    codes = refusals(outcomes, {"cancelled"})
    entered = Entry.objects.filter(tournament=event)
    assert entered.count() + codes["cancelled"] == 40
    assert set(entered.values_list("status", flat=True)) <= {EntryStatus.REFUNDED}
    event.refresh_from_db()
    assert (event.status, event.entries_count, event.prize_contributions) == ("cancelled", 0, 0)
    assert account(event, AccountKind.PRIZE_POOL).balance == account(event, AccountKind.FEES).balance == 0
    balances = Account.objects.filter(owner__in=players, currency="EUR").values_list("balance", flat=True)
    assert set(balances) == {5000}
    assert total("EUR", inside_the_room=True) == before
    call_command("wallet_audit")


def test_a_seat_awarded_while_the_player_registers_himself_ends_in_one_entry_and_no_error(event, rich):
    """A satellite's award enters its winner under the target's lock; the winner's own
    registration, written before that lock, waits for it, and the award waits for the
    registration's entry: PostgreSQL breaks that circle by failing one of them. When
    it fails the registration, the registration is tried again and finds him entered."""
    outcome, award = register_while_the_lock_is_held(
        event, rich, then=lambda: Entry.objects.create(tournament=event, player=rich, chips=event.starting_stack)
    )

    codes = refusals([outcome], {"already_registered"})
    assert len(Entry.objects.filter(tournament=event, player=rich, status=EntryStatus.ACTIVE)) == 1
    if codes:  # the registration lost: the award's entry stands, and nothing was paid
        assert award == {"waited": True, "committed": True}
        assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000
    else:  # the award lost (its own caller retries it): the registration stands, paid
        assert "error" in award
        assert account_get(wallet_account_spec(rich.pk, "EUR")).balance == 50_000 - 1100
    call_command("wallet_audit")
