"""Deposit limits (issue 30; BEK 1274/2019 section 21): a deposit over a daily, weekly
or monthly limit is refused with the limit and when it resets, and moves nothing; a
lower limit applies at once, a higher one or none only after 24 hours (pending,
cancellable); every change is audited; two deposits at once cannot both slip under a
limit (PostgreSQL); the player sets his limits on his page, staff see a deposit
refused on theirs."""

import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from responsible.exclusions import exclusion_start
from responsible.models import DepositLimit
from responsible.reality import reality_check_set
from responsible.services import deposit_limit_cancel, deposit_limit_set
from tests.factories import UserFactory
from tests.integration.test_registration_concurrency import race
from wallet.models import Transfer, TransferReason
from wallet.services import WalletError, account_get, deposit_create, wallet_account_spec


def deposit(player, amount: int, currency: str = "EUR"):
    return deposit_create(user=player, currency=currency, amount=amount, idempotency_key=f"test:{uuid.uuid4()}")


def balance(player) -> int:
    return account_get(wallet_account_spec(player.pk, "EUR")).balance


@pytest.mark.django_db
def test_a_deposit_over_the_daily_limit_is_refused_with_the_limit_and_its_reset_and_moves_nothing():
    player = UserFactory(username="limited")
    deposit_limit_set(player=player, period="day", amount=10_000, now=timezone.now())
    deposit(player, 6_000)

    with pytest.raises(WalletError) as refused:
        deposit(player, 5_000)

    message = str(refused.value)
    assert "over your daily deposit limit of €100" in message
    assert "(€60 deposited so far)" in message
    assert "the limit resets" in message
    assert balance(player) == 6_000
    assert Transfer.objects.filter(reason=TransferReason.DEPOSIT).count() == 1
    deposit(player, 4_000)  # up to the limit exactly
    assert balance(player) == 10_000
    with pytest.raises(WalletError, match="deposit in EUR"):
        deposit(player, 100, currency="DKK")  # the limits are kept in his wallet's money


@pytest.mark.django_db
def test_a_lower_limit_applies_at_once_and_a_higher_one_only_after_24_hours_unless_cancelled():
    player = UserFactory(username="cooling")
    now = timezone.now()
    deposit_limit_set(player=player, period="week", amount=20_000, now=now)
    raised = deposit_limit_set(player=player, period="week", amount=50_000, now=now)
    assert (raised.amount, raised.pending_amount) == (20_000, 50_000)
    assert raised.pending_from == now + timedelta(hours=24)
    with pytest.raises(WalletError):
        deposit(player, 30_000)  # the raise is not in force yet

    deposit_limit_cancel(player=player, period="week", now=now)
    kept = DepositLimit.objects.get(player=player, period="week")
    assert (kept.amount, kept.pending_amount, kept.pending_from) == (20_000, None, None)

    deposit_limit_set(player=player, period="week", amount=None, now=now)  # removal: pending too
    DepositLimit.objects.filter(player=player).update(pending_from=timezone.now() - timedelta(seconds=1))
    deposit(player, 30_000)  # its 24 hours are over: no limit
    assert DepositLimit.objects.get(player=player, period="week").amount is None

    lowered = deposit_limit_set(player=player, period="month", amount=1_000, now=now)
    assert (lowered.amount, lowered.pending_from) == (1_000, None)
    with pytest.raises(WalletError, match="monthly deposit limit"):
        deposit(player, 1)  # 30,000 deposited this month already
    changes = AuditEntry.objects.filter(action__startswith="responsible.deposit_limit.")
    assert changes.count() == 5  # four changes, one cancellation
    assert all(change.actor_id == player.pk for change in changes)


@pytest.mark.django_db(transaction=True)
def test_two_deposits_at_once_cannot_both_slip_under_a_limit():
    player = UserFactory(username="racer")
    deposit_limit_set(player=player, period="day", amount=10_000, now=timezone.now())

    outcomes = race([lambda: deposit(player, 6_000) for _ in range(6)])

    assert sum(outcome.error is None for outcome in outcomes) == 1
    assert all(isinstance(o.error, WalletError) for o in outcomes if o.error is not None)
    assert balance(player) == 6_000
    call_command("wallet_audit")


@pytest.mark.django_db
def test_the_player_sets_and_cancels_his_limits_on_his_page_and_bad_input_is_refused():
    player = UserFactory(username="carla", preferred_currency="EUR")
    client = Client()
    assert client.get("/responsible-gaming/limits/").status_code == 302  # log in first
    client.force_login(player)

    page = client.post("/responsible-gaming/limits/", {"period": "day", "amount": "50"}, follow=True).text
    assert "Your limit applies now." in page
    assert "€50" in page.split('id="limit-day"')[1].split("</tr>")[0]
    page = client.post("/responsible-gaming/limits/", {"period": "day", "amount": "80"}, follow=True).text
    row = page.split('id="limit-day"')[1].split("</tr>")[0]
    assert "€50" in row
    assert "€80 from" in row  # pending
    page = client.post("/responsible-gaming/limits/", {"period": "day", "cancel": "1"}, follow=True).text
    assert "€80 from" not in page.split('id="limit-day"')[1].split("</tr>")[0]

    for amount in ("abc", "-5", "0", "1e3", "12.345"):
        refused = client.post("/responsible-gaming/limits/", {"period": "day", "amount": amount})
        assert refused.status_code == 400, amount
        assert 'class="form-error"' in refused.text
    assert client.post("/responsible-gaming/limits/", {"period": "year", "amount": "5"}).status_code == 400
    assert DepositLimit.objects.get(player=player).amount == 5_000  # nothing changed by the refusals


@pytest.mark.django_db
def test_staff_see_a_deposit_over_the_players_limit_refused_on_the_console():
    player = UserFactory(username="dmitri")
    deposit_limit_set(player=player, period="day", amount=1_000, now=timezone.now())
    staff = UserFactory(username="sam", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)

    data = {"deposit-currency": "EUR", "deposit-amount": "20", "deposit-idempotency_key": str(uuid.uuid4())}
    response = client.post(f"/support/players/{player.pk}/deposit/", data)

    assert response.status_code == 400
    assert "over your daily deposit limit" in response.text
    assert balance(player) == 0


@pytest.mark.django_db
def test_staff_see_the_players_limits_and_their_changes_read_only_and_a_player_may_not():
    player = UserFactory(username="erik")
    deposit_limit_set(player=player, period="month", amount=30_000, now=timezone.now())
    deposit_limit_set(player=player, period="month", amount=None, now=timezone.now())  # pending removal
    reality_check_set(player=player, minutes=30)
    exclusion_start(player=player, kind="break", now=timezone.now())
    staff = UserFactory(username="sue", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)

    page = client.get(f"/support/players/{player.pk}/").text

    row = page.split('id="staff-limit-month"')[1].split("</tr>")[0]
    assert "€300" in row
    assert "No limit from" in row
    changes = page.split('class="limit-changes"')[1].split("</ul>")[0]
    assert changes.count("<li>") == 4
    assert "24-hour break until" in changes
    assert "Reality check: every 30 minutes" in changes
    assert "Monthly limit: removal asked" in changes
    assert "Monthly limit: €300 asked" in changes
    assert "Read-only: only the player changes his limits" in page
    nosy = Client()
    nosy.force_login(UserFactory(username="nosy"))
    assert nosy.get(f"/support/players/{player.pk}/").status_code in (302, 403)


@pytest.mark.django_db
def test_the_api_reads_sets_and_cancels_his_limits_and_refuses_bad_input():
    player = UserFactory(username="hanne")
    client = Client()
    assert client.get("/api/v1/wallet/limits/").status_code == 401
    client.force_login(player)

    limits = client.put("/api/v1/wallet/limits/", {"period": "week", "amount": 20_000}, content_type="application/json")
    assert limits.status_code == 200
    week = next(limit for limit in limits.json() if limit["period"] == "week")
    assert (week["amount"], week["pending_amount"]) == (20_000, None)
    raised = client.put("/api/v1/wallet/limits/", {"period": "week", "amount": None}, content_type="application/json")
    week = next(limit for limit in raised.json() if limit["period"] == "week")
    assert week["amount"] == 20_000
    assert week["pending_from"] is not None  # the removal waits 24 hours
    cancelled = client.post("/api/v1/wallet/limits/cancel/", {"period": "week"}, content_type="application/json")
    assert next(limit for limit in cancelled.json() if limit["period"] == "week")["pending_from"] is None

    for body in ({"period": "year", "amount": 5}, {"period": "day", "amount": 0}, {"period": "day"}, {}):
        refused = client.put("/api/v1/wallet/limits/", body, content_type="application/json")
        assert refused.status_code == 400, body
        assert refused.json()["code"] == "invalid"
    assert DepositLimit.objects.get(player=player).amount == 20_000
