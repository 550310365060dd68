"""The staff console's money tools: staff only, every action through the wallet's
services and audited, a double submit moves money once, bad input is a form error."""

import re
import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory
from wallet.audit import wallet_discrepancies
from wallet.models import Currency, Ticket, TicketStatus, Transfer, TransferReason
from wallet.selectors import wallet_balance
from wallet.services import deposit_create
from wallet.tasks import tickets_expire_task
from wallet.tickets import ticket_issue


def url(player, action: str = "") -> str:
    return f"/support/players/{player.pk}/{action + '/' if action else ''}"


def post(client, player, action: str, prefix: str, key: str | None = None, **fields):
    data = {f"{prefix}-{name}": value for name, value in fields.items()}
    data[f"{prefix}-idempotency_key"] = key or str(uuid.uuid4())
    return client.post(url(player, action), data)


def deposit(client, player, key=None, **fields):
    return post(client, player, "deposit", "deposit", key, **{"currency": "EUR", "amount": "12.50", **fields})


def adjust(client, player, key=None, **fields):
    return post(client, player, "adjust", "adjust", key, **{"currency": "EUR", "reason": "Goodwill", **fields})


def tmoney(client, player, key=None, **fields):
    return post(client, player, "tmoney", "tmoney", key, **{"amount": "5", "reason": "Compensation", **fields})


def ticket(client, player, key=None, **fields):
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    defaults = {"value": "11", "currency": "EUR", "expires_on": tomorrow, "tournament": "", "reason": "Satellite"}
    return post(client, player, "tickets", "ticket", key, **{**defaults, **fields})


@pytest.fixture
def console(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def funded(player):
    deposit_create(user=player, currency="EUR", amount=1000, idempotency_key="funded")
    return player


def moved() -> int:
    return Transfer.objects.count()


# Who may use it


@pytest.mark.parametrize(
    ("method", "action"),
    [("get", ""), ("post", "deposit"), ("post", "adjust"), ("post", "tmoney"), ("post", "tickets")],
)
def test_anonymous_visitors_are_sent_to_log_in(client, player, method, action):
    response = getattr(client, method)(url(player, action))
    assert response.status_code == 302
    assert response["Location"].startswith(f"{settings.LOGIN_URL}?next=")
    assert moved() == 0


def test_anonymous_search_is_sent_to_log_in(client, db):
    response = client.get("/support/players/?q=alice")
    assert response.status_code == 302


@pytest.mark.parametrize("action", ["deposit", "adjust", "tmoney", "tickets"])
def test_a_player_may_not_move_money(client, player, other_player, action):
    client.force_login(player)
    response = post(client, other_player, action, action, amount="100", value="100", currency="EUR", reason="me")
    assert response.status_code == 403
    response = post(client, player, action, action, amount="100", value="100", currency="EUR", reason="me")
    assert response.status_code == 403
    assert moved() == 0
    assert not Ticket.objects.exists()
    assert not AuditEntry.objects.exists()


def test_a_player_may_not_see_the_console(client, player, other_player):
    client.force_login(player)
    assert client.get("/support/players/?q=bob").status_code == 403
    assert client.get(url(other_player)).status_code == 403


def test_an_unknown_player_is_404(console, db):
    assert console.get("/support/players/999999/").status_code == 404
    assert post(console, SimpleNamespace(pk=999999), "deposit", "deposit", amount="1").status_code == 404


# Finding and seeing a player


@pytest.mark.parametrize("query", ["alice", "ALI", "Alice", "alice@example"])
def test_staff_find_a_player_by_username_screen_name_or_email(console, player, other_player, query):
    html = console.get(f"/support/players/?q={query}").content.decode()
    assert url(player) in html
    assert url(other_player) not in html


def test_the_player_page_shows_balances_tickets_and_fresh_keys(console, funded):
    ticket_issue(owner=funded, value=2200, currency="EUR", expires_at=timezone.now() + timedelta(days=2))
    response = console.get(url(funded))
    html = response.content.decode()
    assert response.status_code == 200
    assert "€10" in html
    assert "€22" in html
    keys = re.findall(r'name="(\w+)-idempotency_key" value="([0-9a-f-]{36})"', html)
    assert [prefix for prefix, _ in keys] == ["deposit", "adjust", "tmoney", "ticket"]
    assert len({key for _, key in keys}) == 4
    again = re.findall(r'idempotency_key" value="([0-9a-f-]{36})"', console.get(url(funded)).content.decode())
    assert not set(again) & {key for _, key in keys}


# Each action


def test_staff_deposit(console, staff, player):
    response = deposit(console, player, amount="12.50", currency="USD")
    assert response.status_code == 302
    assert response["Location"] == url(player)
    assert wallet_balance(player, "USD") == 1250
    transfer = Transfer.objects.get()
    assert (transfer.reason, transfer.actor) == (TransferReason.DEPOSIT, staff)
    entry = AuditEntry.objects.get(action="wallet.transfer.deposit")
    assert entry.actor == staff
    assert "Deposited $12.50." in console.get(response["Location"]).content.decode()


def test_staff_adjust_both_ways_with_a_reason(console, staff, funded):
    assert adjust(console, funded, amount="2.5", reason="Goodwill").status_code == 302
    assert adjust(console, funded, amount="-4", reason="Chargeback").status_code == 302
    assert wallet_balance(funded, "EUR") == 1000 + 250 - 400
    entries = AuditEntry.objects.filter(action="wallet.transfer.staff_adjustment").order_by("pk")
    assert [(e.actor, e.reason) for e in entries] == [(staff, "Goodwill"), (staff, "Chargeback")]


def test_staff_issue_tmoney(console, staff, player):
    assert tmoney(console, player, amount="7.25", reason="Promotion").status_code == 302
    assert wallet_balance(player, Currency.TMONEY) == 725
    transfer = Transfer.objects.get()
    assert (transfer.reason, transfer.memo, transfer.actor) == (TransferReason.STAFF_ADJUSTMENT, "Promotion", staff)
    assert transfer.source.kind == "house"
    assert AuditEntry.objects.get(action="wallet.transfer.staff_adjustment").reason == "Promotion"


def test_staff_issue_a_ticket_for_a_tournament(console, staff, player):
    event = TournamentFactory(blind_structure=BlindStructureFactory())
    last_day = timezone.localdate() + timedelta(days=3)
    response = ticket(console, player, value="11", expires_on=last_day.isoformat(), tournament=str(event.pk))
    assert response.status_code == 302
    issued = Ticket.objects.get()
    assert (issued.owner, issued.value, issued.currency, issued.tournament_ref) == (player, 1100, "EUR", event.pk)
    assert (issued.status, issued.issued_by, issued.reason) == (TicketStatus.AVAILABLE, staff, "Satellite")
    assert timezone.localtime(issued.expires_at).date() == last_day + timedelta(days=1)
    assert AuditEntry.objects.get(action="wallet.ticket.issued").actor == staff
    assert moved() == 0  # a ticket is paid for when it is used


def test_a_ticket_for_any_event_of_its_value(console, player):
    assert ticket(console, player, tournament="").status_code == 302
    assert Ticket.objects.get().tournament_ref is None


# Retries


@pytest.mark.parametrize("action", [deposit, adjust, tmoney])
def test_a_double_submit_moves_money_once(console, funded, action):
    key = str(uuid.uuid4())
    before = moved()
    first = action(console, funded, key, amount="3")
    second = action(console, funded, key, amount="3")
    assert (first.status_code, second.status_code) == (302, 302)
    assert moved() == before + 1
    assert not wallet_discrepancies()


def test_a_double_submit_issues_one_ticket(console, player):
    key = str(uuid.uuid4())
    assert ticket(console, player, key).status_code == 302
    assert ticket(console, player, key).status_code == 302
    assert Ticket.objects.count() == 1
    assert AuditEntry.objects.filter(action="wallet.ticket.issued").count() == 1


def test_a_key_reused_for_another_amount_is_refused(console, funded):
    key = str(uuid.uuid4())
    assert deposit(console, funded, key, amount="3").status_code == 302
    response = deposit(console, funded, key, amount="4")
    assert response.status_code == 400
    assert "already used for a different payment" in response.content.decode()
    assert wallet_balance(funded, "EUR") == 1300


def test_a_key_reused_for_another_ticket_is_refused(console, player):
    key = str(uuid.uuid4())
    assert ticket(console, player, key, value="11").status_code == 302
    response = ticket(console, player, key, value="12")
    assert response.status_code == 400
    assert Ticket.objects.count() == 1


# Refusals


def test_an_adjustment_below_zero_is_a_form_error_and_moves_nothing(console, funded):
    before = moved()
    response = adjust(console, funded, amount="-10.01")
    html = response.content.decode()
    assert response.status_code == 400
    assert "below zero" in html
    assert "€10" in html  # the balance it would have gone below
    assert wallet_balance(funded, "EUR") == 1000
    assert moved() == before
    assert not AuditEntry.objects.filter(action="wallet.transfer.staff_adjustment").exists()


def test_taking_exactly_the_balance_is_allowed(console, funded):
    assert adjust(console, funded, amount="-10").status_code == 302
    assert wallet_balance(funded, "EUR") == 0


@pytest.mark.parametrize(
    ("action", "fields", "field"),
    [
        (deposit, {"amount": "-5"}, "amount"),
        (deposit, {"amount": "0"}, "amount"),
        (deposit, {"amount": "ten"}, "amount"),
        (deposit, {"amount": "1.234"}, "amount"),
        (deposit, {"amount": "NaN"}, "amount"),
        (deposit, {"amount": "1e400"}, "amount"),
        (deposit, {"amount": "99999999999999"}, "amount"),
        (deposit, {"amount": ""}, "amount"),
        (deposit, {"currency": "XXX"}, "currency"),
        (deposit, {"currency": "TMY"}, "currency"),  # T-Money is issued, not deposited
        (adjust, {"amount": "0"}, "amount"),
        (adjust, {"amount": "-abc"}, "amount"),
        (adjust, {"amount": "5", "reason": "   "}, "reason"),
        (adjust, {"amount": "5", "reason": "x" * 201}, "reason"),
        (adjust, {"amount": "5", "currency": "GBP"}, "currency"),
        (tmoney, {"amount": "-5"}, "amount"),
        (tmoney, {"amount": "5", "reason": ""}, "reason"),
        (ticket, {"expires_on": "2001-01-01"}, "expires_on"),
        (ticket, {"expires_on": "9999-12-31"}, "expires_on"),
        (ticket, {"expires_on": "tomorrow"}, "expires_on"),
        (ticket, {"value": "0"}, "value"),
        (ticket, {"currency": "ZZZ"}, "currency"),
        (ticket, {"tournament": "987654321"}, "tournament"),
        (ticket, {"tournament": "99999999999999999999999"}, "tournament"),
        (ticket, {"tournament": "one"}, "tournament"),
    ],
)
def test_bad_input_is_a_form_error_never_a_500(console, funded, action, fields, field):
    before = (moved(), Ticket.objects.count(), AuditEntry.objects.count())
    response = action(console, funded, **fields)
    assert response.status_code == 400
    bound = next(form for form in response.context["forms"].values() if form.is_bound)
    assert field in bound.errors
    assert 'class="errorlist' in response.content.decode()
    assert (moved(), Ticket.objects.count(), AuditEntry.objects.count()) == before


EXPONENT_REFUSED = "Write the amount in digits, such as 1250 or 12.50: no letters, no exponent such as 1e3."


@pytest.mark.parametrize(
    ("action", "fields"),
    [
        (deposit, {"amount": "1e3"}),
        (deposit, {"amount": "1E3"}),
        (deposit, {"amount": "2.5e2"}),
        (adjust, {"amount": "-1e1"}),
        (tmoney, {"amount": "5e0"}),
        (ticket, {"value": "1.1e1"}),
    ],
)
def test_an_amount_with_an_exponent_is_refused_saying_how_to_write_it(console, funded, action, fields):
    before = (moved(), wallet_balance(funded, "EUR"), Ticket.objects.count())

    response = action(console, funded, **fields)

    assert response.status_code == 400
    assert EXPONENT_REFUSED in response.content.decode()
    assert (moved(), wallet_balance(funded, "EUR"), Ticket.objects.count()) == before


@pytest.mark.parametrize(("typed", "paid"), [("1000", 100_000), ("+7", 700), (".5", 50)])
def test_amounts_written_with_digits_grouping_and_a_sign_are_taken(console, player, typed, paid):
    assert deposit(console, player, amount=typed).status_code == 302
    assert wallet_balance(player, "EUR") == paid


def test_the_exponent_refusal_is_danish_on_the_danish_console(console, funded):
    data = {"deposit-currency": "EUR", "deposit-amount": "1e3", "deposit-idempotency_key": str(uuid.uuid4())}
    response = console.post(f"/da{url(funded, 'deposit')}", data)
    assert response.status_code == 400
    assert "Skriv beløbet med cifre, fx 1250 eller 12,50: ingen bogstaver, ingen eksponent som 1e3." in (
        response.content.decode()
    )


@pytest.mark.parametrize("key", ["", "not-a-uuid"])
def test_a_missing_or_broken_key_is_a_form_error(console, funded, key):
    data = {"deposit-currency": "EUR", "deposit-amount": "1", "deposit-idempotency_key": key}
    response = console.post(url(funded, "deposit"), data)
    assert response.status_code == 400
    assert "out of date" in response.content.decode()
    assert moved() == 1


def test_a_form_shown_again_gets_a_new_key(console, funded):
    key = str(uuid.uuid4())
    html = adjust(console, funded, key, amount="-50").content.decode()
    shown = re.search(r'name="adjust-idempotency_key" value="([0-9a-f-]{36})"', html).group(1)
    assert shown != key
    assert 'value="-50"' in html  # what the staff member typed is kept


def test_the_console_is_in_danish_too(console, funded):
    html = console.get(f"/da{url(funded)}").content.decode()
    assert "Udsted en billet" in html
    assert ">Indbetal</button>" in html


def test_the_get_only_and_post_only_addresses(console, funded):
    assert console.get(url(funded, "deposit")).status_code == 405
    assert console.post(url(funded)).status_code == 405


# The periodic expiry


def test_the_beat_expires_tickets_every_minute(player):
    entry = settings.CELERY_BEAT_SCHEDULE["wallet-tickets-expire"]
    assert (entry["task"], entry["schedule"]) == ("wallet.tasks.tickets_expire_task", 60.0)
    now = timezone.now()
    due = ticket_issue(owner=player, value=100, currency="EUR", expires_at=now - timedelta(seconds=1))
    later = ticket_issue(owner=player, value=100, currency="EUR", expires_at=now + timedelta(hours=1))
    assert tickets_expire_task.apply().get() == 1
    assert tickets_expire_task.apply().get() == 0  # a repeat changes nothing
    due.refresh_from_db()
    later.refresh_from_db()
    assert (due.status, later.status) == (TicketStatus.EXPIRED, TicketStatus.AVAILABLE)


def test_a_ticket_request_retried_issues_one_ticket(db, player):
    from wallet.models import Ticket
    from wallet.services import WalletError
    from wallet.tickets import ticket_issue

    expires = timezone.now() + timedelta(days=7)
    first = ticket_issue(owner=player, value=1_100, currency="EUR", expires_at=expires, idempotency_key="req-1")
    again = ticket_issue(owner=player, value=1_100, currency="EUR", expires_at=expires, idempotency_key="req-1")
    assert again == first
    assert Ticket.objects.filter(owner=player).count() == 1
    with pytest.raises(WalletError, match="already used for a different ticket"):
        ticket_issue(owner=player, value=2_200, currency="EUR", expires_at=expires, idempotency_key="req-1")
