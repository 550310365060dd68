"""The player's wallet page at /wallet/: their own balances, tickets and history,
and nobody else's."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.services.entries import entry_register
from wallet.models import Currency, Transfer
from wallet.selectors import wallet_history, wallet_summary
from wallet.services import (
    account_get,
    deposit_create,
    staff_adjust,
    tmoney_issue,
    transfer_create,
    wallet_account_spec,
)
from wallet.tickets import ticket_issue

NBSP = "\u00a0"


def page(client, url="/wallet/", **headers) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.content
    return response.content.decode()


def deposits(user, count: int, *, amount: int = 100, prefix: str = "d") -> None:
    for number in range(count):
        deposit_create(user=user, currency="EUR", amount=amount, idempotency_key=f"{prefix}:{user.pk}:{number}")


def test_anonymous_visitor_is_sent_to_log_in(client, db):
    response = client.get("/wallet/")
    assert response.status_code == 302
    assert response["Location"] == f"{settings.LOGIN_URL}?next=/wallet/"


def test_balances_tickets_and_history_are_shown(client, player, staff):
    event = TournamentFactory(name="Sunday Warm-up", blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="in")
    deposit_create(user=player, currency="USD", amount=250, idempotency_key="usd")
    tmoney_issue(user=player, amount=700, reason="Welcome gift", actor=staff, idempotency_key="tm")
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    ticket_issue(owner=player, value=2200, currency="EUR", expires_at=timezone.now() + timedelta(days=3), actor=staff)
    ticket_issue(
        owner=player,
        value=1100,
        currency="EUR",
        expires_at=timezone.now() + timedelta(days=5),
        tournament_ref=event.pk,
        actor=staff,
    )
    client.force_login(player)

    html = page(client)

    assert "€39" in html  # 5000 - 1100
    assert "$2.50" in html
    assert "T$7" in html
    assert "Any tournament with a buy-in of €22" in html
    assert f'href="/tournaments/{event.pk}/">Sunday Warm-up</a>' in html
    assert "+€50" in html  # the deposit
    assert "\u2212€10" in html  # the buy-in, signed
    assert "\u2212€1" in html  # the fee
    assert "Welcome gift" in html  # a staff adjustment's memo
    assert "Staff adjustment" in html


def test_zero_balances_are_hidden_except_the_preferred_currency(client, player):
    deposit_create(user=player, currency="USD", amount=100, idempotency_key="usd")
    staff_adjust(user=player, currency="USD", amount=-100, reason="Correction", actor=None, idempotency_key="usd-back")
    deposit_create(user=player, currency="DKK", amount=100, idempotency_key="dkk")
    summary = wallet_summary(player)
    assert [(b.currency, b.amount) for b in summary.balances] == [("EUR", 0), ("DKK", 100)]


def test_expired_and_used_tickets_are_not_listed(player):
    now = timezone.now()
    ticket_issue(owner=player, value=100, currency="EUR", expires_at=now - timedelta(minutes=1))
    held = ticket_issue(owner=player, value=200, currency="EUR", expires_at=now + timedelta(days=1))
    used = ticket_issue(owner=player, value=300, currency="EUR", expires_at=now + timedelta(days=1))
    used.status = "consumed"
    used.save(update_fields=["status"])
    assert [t.pk for t in wallet_summary(player, now=now).tickets] == [held.pk]


def test_history_is_paginated_newest_first(client, player):
    deposits(player, 30)
    client.force_login(player)
    first = page(client)
    assert first.count("+€1<") == 25
    assert "Page 1 of 2" in first
    second = page(client, "/wallet/?page=2")
    assert second.count("+€1<") == 5
    newest_first = list(Transfer.objects.order_by("-created_at", "-pk").values_list("pk", flat=True))
    assert [row["pk"] for row in wallet_history(player)] == newest_first


def test_htmx_turns_only_the_history(client, player):
    deposits(player, 30)
    client.force_login(player)
    html = page(client, "/wallet/?page=2", HX_Request="true")
    assert "<html" not in html
    assert html.count("+€1<") == 5
    assert "Balances" not in html


@pytest.mark.parametrize("bad_page", ["0", "-1", "abc", "9999"])
def test_a_bad_page_number_is_not_an_error(client, player, bad_page):
    deposits(player, 3)
    client.force_login(player)
    assert page(client, f"/wallet/?page={bad_page}").count("+€1<") == 3


def test_another_players_money_never_appears(client, player, other_player):
    deposits(player, 2, amount=111)
    deposits(other_player, 2, amount=999)
    transfer_create(
        source=account_get(wallet_account_spec(other_player.pk, "EUR")),
        destination=account_get(wallet_account_spec(UserFactory().pk, "EUR")),
        amount=333,
        reason="staff_adjustment",
        idempotency_key="between-others",
        memo="secret of bob",
    )
    ticket_issue(owner=other_player, value=4242, currency="EUR", expires_at=timezone.now() + timedelta(days=1))
    client.force_login(player)
    html = page(client)
    assert "€2.22" in html
    assert "+€1.11" in html
    for foreign in ("€9.99", "€3.33", "secret of bob", "€42.42", "€16.65"):
        assert foreign not in html
    assert {row["signed_amount"] for row in wallet_history(player)} == {111}


def test_a_transfer_between_two_players_shows_in_and_out(player, other_player):
    deposit_create(user=player, currency="EUR", amount=500, idempotency_key="a")
    transfer_create(
        source=account_get(wallet_account_spec(player.pk, "EUR")),
        destination=account_get(wallet_account_spec(other_player.pk, "EUR")),
        amount=200,
        reason="staff_adjustment",
        idempotency_key="a-to-b",
    )
    assert [row["signed_amount"] for row in wallet_history(player)] == [-200, 500]
    assert [row["signed_amount"] for row in wallet_history(other_player)] == [200]


def test_danish_wallet_page(client, player):
    deposit_create(user=player, currency="EUR", amount=123_450, idempotency_key="da")
    client.force_login(player)
    html = page(client, "/da/wallet/")
    assert "Din tegnebog" in html
    assert f"1.234,50{NBSP}€" in html
    assert "Indbetaling" in html


def test_the_page_is_never_cached(client, player):
    client.force_login(player)
    response = client.get("/wallet/")
    assert "no-store" in response["Cache-Control"]
    assert "private" in response["Cache-Control"]


def queries_of(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


def test_queries_do_not_grow_with_the_history(client, player, staff):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=100, fee=10)
    deposit_create(user=player, currency="EUR", amount=10_000, idempotency_key="start")
    deposit_create(user=player, currency=Currency.TMONEY, amount=500, idempotency_key="tm")
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    ticket_issue(owner=player, value=110, currency="EUR", expires_at=timezone.now() + timedelta(days=1))
    ticket_issue(
        owner=player, value=110, currency="EUR", expires_at=timezone.now() + timedelta(days=1), tournament_ref=event.pk
    )
    client.force_login(player)
    few = queries_of(client, "/wallet/")

    deposits(player, 120)
    for number in range(40):
        staff_adjust(
            user=player, currency="EUR", amount=-1, reason=f"fix {number}", actor=staff, idempotency_key=f"f{number}"
        )
    many_first = queries_of(client, "/wallet/")
    many_later = queries_of(client, "/wallet/?page=4")

    assert few == many_first == many_later
    assert many_later <= 7  # session, user, balances, tickets, count, page, tournament names
