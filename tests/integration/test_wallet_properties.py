"""Random sequences of wallet operations on PostgreSQL: the books always balance.

A hypothesis state machine deposits, moves money between players, adjusts (some
adjustments refused), issues T-Money and tickets, registers and unregisters with
cash, T-Money or a ticket, and reserves and releases tickets. It keeps its own
model of every player's balances and tickets; after every step the database must
agree with the model, `wallet_discrepancies()` must be empty and no player balance
negative. Every operation is also retried at random with the same idempotency key:
a retry changes nothing.

Each example runs in a savepoint rolled back at its end; the players and the
tournament are made once per test.
"""

import os
from collections import Counter
from datetime import timedelta
from itertools import count

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.models import Entry, EntryStatus
from tournaments.services.entries import entry_register, entry_unregister
from tournaments.services.refusals import TournamentError
from wallet.audit import wallet_discrepancies
from wallet.models import Account, AccountKind, Currency, Ticket, TicketStatus, Transfer, TransferReason
from wallet.services import (
    InsufficientFunds,
    WalletError,
    account_get,
    deposit_create,
    staff_adjust,
    tmoney_issue,
    transfer_create,
    wallet_account_spec,
)
from wallet.tickets import ticket_issue, ticket_release, ticket_reserve

CURRENCIES = ["EUR", "USD", Currency.TMONEY]
BUY_IN, FEE = 1000, 100
PRICE = BUY_IN + FEE
PLAYERS = 3
amounts = st.integers(min_value=1, max_value=3000)
players = st.integers(min_value=0, max_value=PLAYERS - 1)
currencies = st.sampled_from(CURRENCIES)
retries = st.booleans()
FORMS = ["cash", "tmoney", "ticket"]


def snapshot() -> tuple:
    """Everything a retry must leave as it was."""
    return (
        Transfer.objects.count(),
        tuple(Account.objects.order_by("pk").values_list("pk", "balance")),
        tuple(Ticket.objects.order_by("pk").values_list("pk", "status")),
        tuple(Entry.objects.order_by("pk").values_list("pk", "status")),
    )


class WalletMachine(RuleBasedStateMachine):
    def __init__(self, world):
        super().__init__()
        self.players, self.staff, self.event = world
        self.savepoint = transaction.atomic()
        self.savepoint.__enter__()
        self.keys = count()
        self.balance = Counter()  # (player index, currency) -> minor units
        self.paid_with: dict[int, tuple] = {}  # registered player index -> (form, ticket id or None)
        self.tickets: dict[int, dict] = {}  # id -> owner, fits, status, direct (reserved outside an entry)

    def teardown(self):
        transaction.set_rollback(True)
        self.savepoint.__exit__(None, None, None)

    def key(self) -> str:
        return f"prop:{next(self.keys)}"

    def retry(self, operation, expect=None) -> None:
        """Run `operation` again, as a retried request would: nothing changes. A retry
        of a refused operation is refused again with the same error."""
        before = snapshot()
        if expect is None:
            operation()
        else:
            with pytest.raises(expect):
                operation()
        assert snapshot() == before

    def attempt(self, operation, *, refused: type[Exception] | None, retry: bool) -> None:
        if refused is None:
            operation()
        else:
            with pytest.raises(refused):
                operation()
        if retry:
            self.retry(operation, refused)

    @initialize(
        funds=st.lists(st.integers(min_value=PRICE, max_value=4 * PRICE), min_size=PLAYERS * 3, max_size=PLAYERS * 3)
    )
    def fund_the_players(self, funds):
        """Start everyone with enough for an entry or a few, so that most steps do something."""
        pairs = [(who, currency) for who in range(PLAYERS) for currency in CURRENCIES]
        for (who, currency), amount in zip(pairs, funds, strict=True):
            deposit_create(user=self.players[who], currency=currency, amount=amount, idempotency_key=self.key())
            self.balance[who, currency] += amount

    # Money in and between

    @rule(who=players, currency=currencies, amount=amounts, retry=retries)
    def deposit(self, who, currency, amount, retry):
        key = self.key()
        user = self.players[who]
        self.attempt(
            lambda: deposit_create(user=user, currency=currency, amount=amount, idempotency_key=key),
            refused=None,
            retry=retry,
        )
        self.balance[who, currency] += amount

    @rule(source=players, destination=players, currency=currencies, amount=amounts, retry=retries)
    def transfer_between_players(self, source, destination, currency, amount, retry):
        key = self.key()

        def move():
            return transfer_create(
                source=account_get(wallet_account_spec(self.players[source].pk, currency)),
                destination=account_get(wallet_account_spec(self.players[destination].pk, currency)),
                amount=amount,
                reason=TransferReason.STAFF_ADJUSTMENT,
                idempotency_key=key,
                memo="between players",
            )

        if source == destination:
            refused = WalletError
        elif self.balance[source, currency] < amount:
            refused = InsufficientFunds
        else:
            refused = None
        self.attempt(move, refused=refused, retry=retry)
        if refused is None:
            self.balance[source, currency] -= amount
            self.balance[destination, currency] += amount

    @rule(who=players, currency=currencies, amount=amounts, take=st.booleans(), retry=retries)
    def staff_adjustment(self, who, currency, amount, take, retry):
        key = self.key()
        signed = -amount if take else amount
        refused = InsufficientFunds if take and self.balance[who, currency] < amount else None
        self.attempt(
            lambda: staff_adjust(
                user=self.players[who],
                currency=currency,
                amount=signed,
                reason="property test",
                actor=self.staff,
                idempotency_key=key,
            ),
            refused=refused,
            retry=retry,
        )
        if refused is None:
            self.balance[who, currency] += signed

    @rule(who=players, amount=amounts, retry=retries)
    def issue_tmoney(self, who, amount, retry):
        key = self.key()
        self.attempt(
            lambda: tmoney_issue(
                user=self.players[who], amount=amount, reason="promotion", actor=self.staff, idempotency_key=key
            ),
            refused=None,
            retry=retry,
        )
        self.balance[who, Currency.TMONEY] += amount

    @rule(who=players, currency=currencies, amount=amounts, other_amount=amounts)
    def reuse_a_key_for_another_payment(self, who, currency, amount, other_amount):
        key = self.key()
        deposit_create(user=self.players[who], currency=currency, amount=amount, idempotency_key=key)
        self.balance[who, currency] += amount
        if other_amount != amount:
            self.retry(
                lambda: deposit_create(
                    user=self.players[who], currency=currency, amount=other_amount, idempotency_key=key
                ),
                WalletError,
            )

    # Tickets

    @rule(who=players, for_event=st.booleans(), fits=st.booleans())
    def issue_ticket(self, who, for_event, fits):
        ticket = ticket_issue(
            owner=self.players[who],
            value=PRICE if fits or for_event else PRICE // 2,
            currency="EUR",
            expires_at=timezone.now() + timedelta(days=1),
            tournament_ref=self.event.pk if for_event else None,
            actor=self.staff,
            reason="property test",
        )
        self.tickets[ticket.pk] = {"owner": who, "fits": fits or for_event, "status": "available", "direct": False}

    @precondition(lambda self: self.tickets)
    @rule(data=st.data(), retry=retries)
    def reserve_ticket(self, data, retry):
        ticket_id = data.draw(st.sampled_from(sorted(self.tickets)))
        ticket = self.tickets[ticket_id]
        who = data.draw(st.just(ticket["owner"]) | players)  # mostly the owner; sometimes someone else

        def reserve():
            with transaction.atomic():
                ticket_reserve(
                    ticket_id=ticket_id,
                    owner=self.players[who],
                    tournament_id=self.event.pk,
                    value=PRICE,
                    currency="EUR",
                    now=timezone.now(),
                )

        usable = ticket["owner"] == who and ticket["status"] == "available" and ticket["fits"]
        self.attempt(reserve, refused=None if usable else WalletError, retry=False)
        if retry:  # a reservation has no key: once made, a second is refused and changes nothing
            self.retry(reserve, WalletError)
        if usable:
            ticket.update(status="reserved", direct=True)

    @precondition(lambda self: any(t["direct"] for t in self.tickets.values()))
    @rule(data=st.data(), retry=retries)
    def release_ticket(self, data, retry):
        ticket_id = data.draw(st.sampled_from(sorted(pk for pk, t in self.tickets.items() if t["direct"])))
        self.attempt(lambda: ticket_release(ticket_id=ticket_id), refused=None, retry=retry)
        self.tickets[ticket_id].update(status="available", direct=False)

    # Registration

    def usable_ticket(self, who: int) -> int | None:
        usable = (
            pk for pk, t in self.tickets.items() if t["owner"] == who and t["status"] == "available" and t["fits"]
        )
        return min(usable, default=None)

    def can_pay(self, who: int, form: str) -> bool:
        if form == "ticket":
            return self.usable_ticket(who) is not None
        return self.balance[who, "EUR" if form == "cash" else Currency.TMONEY] >= PRICE

    @precondition(lambda self: len(self.paid_with) < PLAYERS)
    @rule(data=st.data(), retry=retries)
    def register(self, data, retry):
        # Mostly a player who can enter, in a form they can pay; sometimes anyone, any form.
        able = [
            (who, form)
            for who in range(PLAYERS)
            for form in FORMS
            if who not in self.paid_with and self.can_pay(who, form)
        ]
        anyone = st.tuples(players, st.sampled_from(FORMS))
        who, form = data.draw(st.sampled_from(able) | anyone if able else anyone)
        key = self.key()
        ticket_id = self.usable_ticket(who)
        refused = TournamentError if who in self.paid_with or not self.can_pay(who, form) else None
        self.attempt(
            lambda: entry_register(
                tournament_id=self.event.pk,
                player=self.players[who],
                now=timezone.now(),
                form=form,
                ticket_id=ticket_id if form == "ticket" else None,
                idempotency_key=key,
            ),
            refused=refused,
            retry=retry,
        )
        if refused is not None:
            return
        if form == "cash":
            self.balance[who, "EUR"] -= PRICE
        elif form == "tmoney":
            self.balance[who, Currency.TMONEY] -= PRICE
        else:
            self.tickets[ticket_id]["status"] = "reserved"
        self.paid_with[who] = (form, ticket_id)

    @precondition(lambda self: self.paid_with)
    @rule(data=st.data(), retry=retries)
    def unregister(self, data, retry):
        who = data.draw(st.sampled_from(sorted(self.paid_with)) | players)  # sometimes one who is not registered
        refused = None if who in self.paid_with else TournamentError
        self.attempt(
            lambda: entry_unregister(tournament_id=self.event.pk, player=self.players[who], now=timezone.now()),
            refused=refused,
            retry=False,
        )
        if retry:  # the entry is gone: a retry is refused and changes nothing
            self.retry(
                lambda: entry_unregister(tournament_id=self.event.pk, player=self.players[who], now=timezone.now()),
                TournamentError,
            )
        if refused is not None:
            return
        form, ticket_id = self.paid_with.pop(who)
        if form == "cash":
            self.balance[who, "EUR"] += PRICE
        elif form == "tmoney":
            self.balance[who, Currency.TMONEY] += PRICE
        else:
            self.tickets[ticket_id]["status"] = "available"

    # After every step

    @invariant()
    def the_books_balance(self):
        assert wallet_discrepancies() == []

    @invariant()
    def balances_are_as_modelled_and_never_negative(self):
        actual = {
            (account.owner_id, account.currency): account.balance
            for account in Account.objects.filter(kind__in=[AccountKind.PLAYER_CASH, AccountKind.PLAYER_TMONEY])
        }
        assert all(balance >= 0 for balance in actual.values())
        for index, user in enumerate(self.players):
            for currency in CURRENCIES:
                assert actual.get((user.pk, currency), 0) == self.balance[index, currency]

    @invariant()
    def tickets_and_entries_are_as_modelled(self):
        statuses = dict(Ticket.objects.values_list("pk", "status"))
        assert statuses == {pk: TicketStatus(t["status"]) for pk, t in self.tickets.items()}
        entered = set(
            Entry.objects.filter(tournament=self.event, status=EntryStatus.ACTIVE).values_list("player_id", flat=True)
        )
        assert entered == {self.players[index].pk for index in self.paid_with}


@pytest.fixture
def world(db):
    """Made once per test, outside the examples' savepoints."""
    players = [UserFactory(username=f"prop{number}") for number in range(PLAYERS)]
    staff = UserFactory(username="prop-staff", is_staff=True)
    event = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=BUY_IN, fee=FEE, currency="EUR")
    return players, staff, event


def test_random_wallet_operations_keep_the_books_balanced(world):
    run_state_machine_as_test(
        lambda: WalletMachine(world),
        settings=settings(
            # About ten seconds on the test database; WALLET_PROPERTY_EXAMPLES=500
            # for a deeper run.
            max_examples=int(os.environ.get("WALLET_PROPERTY_EXAMPLES", "15")),
            stateful_step_count=20,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
