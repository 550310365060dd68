"""The player's API: registration, unregistration, rebuys, the add-on and the wallet,
by token or by session; every refusal a 4xx `{"code", "message"}` that changes nothing,
and nobody reaches another player's entry or money."""

import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone
from django.utils.crypto import get_random_string
from drf_spectacular.validation import validate_schema
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.api import NOT_LOGGED_IN
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.models import Entry, Purchase
from tournaments.services.entries import entry_register
from tournaments.services.refusals import REFUSALS
from wallet.models import Account, AccountKind, Currency, Ticket, TicketStatus, Transfer
from wallet.services import AccountSpec, account_get, deposit_create, wallet_account_spec
from wallet.tickets import ticket_issue

pytestmark = pytest.mark.django_db


def registration(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.pk}/registration/"


def rebuys(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.pk}/rebuys/"


def addons(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.pk}/addons/"


def payment_options(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.pk}/payment-options/"


WALLET = "/api/v1/wallet/"
TOKEN = "/api/v1/auth/token/"


def token_client(user) -> APIClient:
    client = APIClient()
    token, _created = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def session_client(user) -> APIClient:
    """Logged in by session, with the CSRF cookie and header a browser page would send."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    csrf = get_random_string(32)
    client.cookies[settings.CSRF_COOKIE_NAME] = csrf
    client.credentials(HTTP_X_CSRFTOKEN=csrf)
    return client


@pytest.fixture(params=["token", "session"])
def as_player(request):
    """A client for a user, authenticated one way, then the other."""
    return token_client if request.param == "token" else session_client


def deposit(user, amount: int, currency: str = "EUR") -> None:
    deposit_create(user=user, currency=currency, amount=amount, idempotency_key=get_random_string(20))


def balance(user, currency: str = "EUR") -> int:
    return account_get(wallet_account_spec(user.pk, currency)).balance


def pool(tournament) -> int:
    ref = f"tournament:{tournament.pk}"
    return account_get(AccountSpec(kind=AccountKind.PRIZE_POOL, currency=tournament.currency, ref=ref)).balance


def books() -> dict:
    """Everything a refusal must leave as it was: every balance, entry, purchase,
    transfer and ticket, and each tournament's counters."""
    from tournaments.models import Tournament

    return {
        "balances": sorted(Account.objects.values_list("kind", "currency", "owner", "ref", "balance")),
        "entries": sorted(Entry.objects.values_list("pk", "status", "chips", "rebuys", "addon_taken")),
        "purchases": sorted(Purchase.objects.values_list("pk", "refunded_at")),
        "transfers": Transfer.objects.count(),
        "tickets": sorted(Ticket.objects.values_list("pk", "status")),
        "tournaments": sorted(Tournament.objects.values_list("pk", "entries_count", "prize_contributions")),
    }


def refused(response, status: int, code: str) -> str:
    """The refusal's message, after checking it is JSON `{"code", "message"}` with `status`."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str)
    assert body["message"], body
    return body["message"]


@pytest.fixture
def event(db):
    return TournamentFactory(name="Daily 11", blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)


@pytest.fixture
def rich(player):
    deposit(player, 5000)
    return player


def rebuy_event(**overrides):
    """Started five minutes ago, in late registration, with rebuys during the first
    `rebuy_levels` 20-minute levels and an add-on in the last of them."""
    fields = {
        "blind_structure": BlindStructureFactory(),
        "scheduled_start": timezone.now() - timedelta(minutes=5),
        "status": "late_registration",
        "buy_in": 300,
        "fee": 30,
        "rebuy_price": 300,
        "rebuy_fee": 30,
        "rebuy_chips": 10_000,
        "rebuy_levels": 1,
        "rebuy_limit": 1,
        "addon_price": 500,
        "addon_fee": 50,
        "addon_chips": 15_000,
        **overrides,
    }
    return TournamentFactory(**fields)


# Registration


def test_register_pays_the_entry_and_answers_201_with_it(as_player, event, rich):
    response = as_player(rich).post(registration(event), {}, format="json")

    assert response.status_code == 201, response.content
    entry = Entry.objects.get()
    body = response.json()
    assert body == {
        "id": entry.pk,
        "tournament": event.pk,
        "status": "active",
        "chips": event.starting_stack,
        "late": False,
        "rebuys": 0,
        "addon_taken": False,
        "created_at": body["created_at"],
        "ended_at": None,
        "purchases": [
            {
                "id": entry.purchases.get().pk,
                "kind": "entry",
                "form": "cash",
                "currency": "EUR",
                "price": 1000,
                "fee": 100,
                "bounty": 0,
                "chips": event.starting_stack,
                "ticket": None,
                "created_at": body["purchases"][0]["created_at"],
                "refunded_at": None,
            }
        ],
    }
    assert body["created_at"].endswith("Z")
    event.refresh_from_db()
    assert (balance(rich), pool(event), event.entries_count) == (3900, 1000, 1)


def test_register_with_no_body_at_all_pays_the_events_own_kind(event, rich):
    response = token_client(rich).post(registration(event))

    assert response.status_code == 201, response.content
    assert response.json()["purchases"][0]["form"] == "cash"
    assert balance(rich) == 3900


def test_register_with_t_money_takes_t_money(as_player, event, player):
    deposit(player, 1100, Currency.TMONEY)

    response = as_player(player).post(registration(event), {"form": "tmoney"}, format="json")

    assert response.status_code == 201, response.content
    [purchase] = response.json()["purchases"]
    assert (purchase["form"], purchase["currency"], purchase["price"]) == ("tmoney", "EUR", 1000)
    assert balance(player, Currency.TMONEY) == 0
    assert pool(event) == 1000


def test_register_with_a_ticket_reserves_it_and_unregistering_gives_it_back(as_player, event, player):
    ticket = ticket_issue(owner=player, value=1100, currency="EUR", expires_at=timezone.now() + timedelta(days=9))
    client = as_player(player)

    response = client.post(registration(event), {"form": "ticket", "ticket": ticket.pk}, format="json")

    assert response.status_code == 201, response.content
    [purchase] = response.json()["purchases"]
    assert (purchase["form"], purchase["ticket"]) == ("ticket", ticket.pk)
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.RESERVED
    assert client.delete(registration(event)).status_code == 200
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.AVAILABLE


def test_get_shows_the_players_own_registration(as_player, event, rich):
    client = as_player(rich)
    created = client.post(registration(event), {}, format="json").json()

    response = client.get(registration(event))

    assert response.status_code == 200
    assert response.json() == created


def test_get_without_a_registration_is_a_404_not_registered(as_player, event, player):
    message = refused(as_player(player).get(registration(event)), 404, "not_registered")

    assert message == str(REFUSALS["not_registered"])


def test_unregister_refunds_exactly_what_was_paid(as_player, event, player):
    deposit(player, 5000)
    deposit(player, 700, Currency.TMONEY)
    before = books()
    client = as_player(player)
    client.post(registration(event), {}, format="json")
    assert balance(player) == 3900

    response = client.delete(registration(event))

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "unregistered"
    assert body["ended_at"] is not None
    assert [purchase["refunded_at"] is not None for purchase in body["purchases"]] == [True]
    event.refresh_from_db()
    assert (balance(player), balance(player, Currency.TMONEY), pool(event)) == (5000, 700, 0)
    assert (event.entries_count, event.prize_contributions) == (0, 0)
    # Every balance as it was; the event's own accounts, opened by the entry, are empty again.
    was = {account[:4]: account[4] for account in before["balances"]}
    for *account, amount in books()["balances"]:
        assert amount == was.get(tuple(account), 0), account
    refused(client.get(registration(event)), 404, "not_registered")


def test_payment_options_list_each_way_to_pay_and_whether_it_is_affordable(as_player, event, player):
    deposit(player, 500)
    deposit(player, 1100, Currency.TMONEY)
    ticket = ticket_issue(owner=player, value=1100, currency="EUR", expires_at=timezone.now() + timedelta(days=9))

    response = as_player(player).get(payment_options(event))

    assert response.status_code == 200, response.content
    assert response.json() == [
        {"form": "cash", "currency": "EUR", "amount": 1100, "affordable": False, "ticket": None},
        {"form": "tmoney", "currency": "TMY", "amount": 1100, "affordable": True, "ticket": None},
        {"form": "ticket", "currency": "EUR", "amount": 1100, "affordable": True, "ticket": ticket.pk},
    ]


# Rebuys and the add-on


def test_rebuy_and_addon_answer_201_with_the_purchase_and_the_chips(as_player, rich):
    event = rebuy_event()
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    client = as_player(rich)

    rebuy = client.post(rebuys(event))
    addon = client.post(addons(event))

    assert rebuy.status_code == 201, rebuy.content
    body = rebuy.json()
    assert body["entry"] == {
        "id": Entry.objects.get().pk,
        "status": "active",
        "chips": 10_000 + 10_000,
        "rebuys": 1,
        "addon_taken": False,
    }
    purchase = body["purchase"]
    assert (purchase["kind"], purchase["form"], purchase["price"], purchase["fee"], purchase["chips"]) == (
        "rebuy",
        "cash",
        300,
        30,
        10_000,
    )
    assert addon.status_code == 201, addon.content
    assert addon.json()["entry"]["chips"] == 10_000 + 10_000 + 15_000
    assert addon.json()["entry"]["addon_taken"] is True
    assert addon.json()["purchase"]["kind"] == "addon"
    assert balance(rich) == 5000 - 330 - 330 - 550
    assert pool(event) == 300 + 300 + 500


# The wallet


def test_wallet_shows_the_players_balances_and_tickets(as_player, player):
    deposit(player, 5000)
    deposit(player, 300, Currency.TMONEY)
    expires = timezone.now() + timedelta(days=9)
    ticket = ticket_issue(owner=player, value=1100, currency="EUR", expires_at=expires)

    response = as_player(player).get(WALLET)

    assert response.status_code == 200, response.content
    assert response.json() == {
        "balances": [
            {"currency": "EUR", "kind": "cash", "balance": 5000},
            {"currency": "TMY", "kind": "tmoney", "balance": 300},
        ],
        "tickets": [
            {
                "id": ticket.pk,
                "status": "available",
                "value": 1100,
                "currency": "EUR",
                "tournament": None,
                "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            }
        ],
    }


# Idempotency-Key


def test_a_registration_retried_with_its_key_is_charged_once(event, rich):
    client = token_client(rich)
    headers = {"Idempotency-Key": "0b7a6c2e-5d4f-4e8b-9a1c-3f2e1d0c9b8a"}

    first = client.post(registration(event), {}, format="json", headers=headers)
    retry = client.post(registration(event), {}, format="json", headers=headers)

    assert (first.status_code, retry.status_code) == (201, 200)
    assert retry.json() == first.json()
    event.refresh_from_db()
    assert (balance(rich), Purchase.objects.count(), event.entries_count) == (3900, 1, 1)


def test_a_rebuy_retried_with_its_key_is_charged_once_and_a_new_key_buys_again(rich):
    event = rebuy_event(rebuy_limit=None)
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    client = token_client(rich)

    first = client.post(rebuys(event), headers={"Idempotency-Key": "rebuy-1"})
    retry = client.post(rebuys(event), headers={"Idempotency-Key": "rebuy-1"})
    assert (first.status_code, retry.status_code) == (201, 200)
    assert retry.json()["purchase"] == first.json()["purchase"]
    assert balance(rich) == 5000 - 330 - 330

    second = client.post(rebuys(event), headers={"Idempotency-Key": "rebuy-2"})
    assert second.status_code == 201
    assert second.json()["entry"]["rebuys"] == 2
    assert balance(rich) == 5000 - 330 - 330 - 330


def test_a_key_is_the_players_own_for_one_event_and_one_operation(rich, other_player):
    deposit(other_player, 5000)
    event = rebuy_event(rebuy_limit=None)
    later = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)
    same = {"Idempotency-Key": "same-key"}

    # The same key by another player, for another event, and for a rebuy then an add-on:
    # each is a request of its own, none answered with another's entry or purchase.
    assert token_client(rich).post(registration(event), headers=same).status_code == 201
    assert token_client(other_player).post(registration(event), headers=same).status_code == 201
    assert token_client(rich).post(registration(later), headers=same).status_code == 201
    assert token_client(rich).post(rebuys(event), headers=same).status_code == 201
    addon = token_client(rich).post(addons(event), headers=same)

    assert addon.status_code == 201, addon.content
    assert addon.json()["purchase"]["kind"] == "addon"
    assert Entry.objects.filter(player=rich).count() == 2
    assert Entry.objects.filter(player=other_player).count() == 1
    assert balance(rich) == 5000 - 330 - 1100 - 330 - 550


@pytest.mark.parametrize("key", ["", "has space", "x" * 65, "ümlaut"])
def test_an_unusable_idempotency_key_is_a_400_naming_the_header(event, rich, key):
    before = books()

    response = token_client(rich).post(registration(event), headers={"Idempotency-Key": key})

    refused(response, 400, "invalid")
    assert list(response.json()["fields"]) == ["Idempotency-Key"]
    assert books() == before


# Refusals: a 4xx with the rules' message, and nothing changed


def assert_refused_and_unchanged(call, status: int, code: str) -> None:
    before = books()
    message = refused(call(), status, code)
    assert message == str(REFUSALS[code])
    assert books() == before


def test_without_enough_money_registration_is_a_402(event, player):
    deposit(player, 1099)

    assert_refused_and_unchanged(lambda: token_client(player).post(registration(event)), 402, "insufficient_funds")
    assert balance(player) == 1099


def test_money_only_in_another_currency_does_not_pay(event, player):
    deposit(player, 100_000, "USD")

    assert_refused_and_unchanged(lambda: token_client(player).post(registration(event)), 402, "insufficient_funds")


def test_a_second_registration_is_a_409(event, rich):
    client = token_client(rich)
    client.post(registration(event))

    assert_refused_and_unchanged(lambda: client.post(registration(event)), 409, "already_registered")
    assert balance(rich) == 3900


def test_a_full_event_refuses_registration(rich):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), max_entrants=2, entries_count=2)

    assert_refused_and_unchanged(lambda: token_client(rich).post(registration(event)), 400, "full")


def test_registration_before_it_opens_is_refused(rich):
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(), registration_opens_at=timezone.now() + timedelta(hours=1)
    )

    assert_refused_and_unchanged(lambda: token_client(rich).post(registration(event)), 400, "not_open_yet")


def test_registration_after_late_registration_is_refused(rich):
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=timezone.now() - timedelta(hours=1), status="running"
    )

    assert_refused_and_unchanged(lambda: token_client(rich).post(registration(event)), 400, "closed")


def test_a_cancelled_event_refuses_registration(rich):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), status="cancelled")

    assert_refused_and_unchanged(lambda: token_client(rich).post(registration(event)), 400, "cancelled")


def test_a_ticket_only_event_needs_a_ticket(rich):
    event = TournamentFactory(blind_structure=BlindStructureFactory(), entry_kind="ticket_only")

    assert_refused_and_unchanged(lambda: token_client(rich).post(registration(event)), 400, "ticket_required")


def test_unregistering_after_the_deadline_is_refused(rich):
    # Unregistration closes 5 minutes before the start; registration is still open.
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=timezone.now() + timedelta(minutes=3)
    )
    client = token_client(rich)
    assert client.post(registration(event)).status_code == 201

    assert_refused_and_unchanged(lambda: client.delete(registration(event)), 400, "unregistration_closed")
    assert balance(rich) == 3900


def test_unregistering_without_a_registration_is_a_404(event, rich):
    assert_refused_and_unchanged(lambda: token_client(rich).delete(registration(event)), 404, "not_registered")


def test_a_rebuy_past_the_limit_is_refused(rich):
    event = rebuy_event()
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    client = token_client(rich)
    assert client.post(rebuys(event)).status_code == 201

    assert_refused_and_unchanged(lambda: client.post(rebuys(event)), 400, "rebuy_limit_reached")


def test_a_rebuy_without_the_money_is_a_402(player):
    deposit(player, 330)
    event = rebuy_event()
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())

    assert_refused_and_unchanged(lambda: token_client(player).post(rebuys(event)), 402, "insufficient_funds")


def test_the_addon_before_its_window_is_refused(rich):
    # Rebuys for two levels: the add-on opens with the second, 20 minutes in.
    event = rebuy_event(rebuy_levels=2)
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())

    assert_refused_and_unchanged(lambda: token_client(rich).post(addons(event)), 400, "addon_not_open")


def test_a_second_addon_is_a_409(rich):
    event = rebuy_event()
    entry_register(tournament_id=event.pk, player=rich, now=timezone.now())
    client = token_client(rich)
    assert client.post(addons(event)).status_code == 201

    assert_refused_and_unchanged(lambda: client.post(addons(event)), 409, "addon_taken")


def test_a_rebuy_without_a_registration_is_a_404(rich):
    event = rebuy_event()

    assert_refused_and_unchanged(lambda: token_client(rich).post(rebuys(event)), 404, "not_registered")


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"form": "bitcoin"}, "form", '"bitcoin" is not a valid choice.'),
        ({"form": "seat"}, "form", '"seat" is not a valid choice.'),
        ({"ticket": "abc"}, "ticket", "A valid integer is required."),
        ({"ticket": 0}, "ticket", "greater than or equal to 1"),
    ],
)
def test_a_body_the_api_cannot_take_is_a_400_by_field(event, rich, body, field, words):
    before = books()

    response = token_client(rich).post(registration(event), body, format="json")

    refused(response, 400, "invalid")
    fields = response.json()["fields"]
    assert list(fields) == [field]
    assert words in " ".join(fields[field])
    assert words in response.json()["message"]
    assert books() == before


def test_a_body_that_is_not_an_object_is_a_400(event, rich):
    response = token_client(rich).post(registration(event), [], format="json")

    refused(response, 400, "invalid")
    assert not Entry.objects.exists()


@pytest.mark.parametrize(
    ("accept", "query", "answered"),
    [
        (None, "", "application/json"),
        ("*/*", "", "application/json"),
        ("application/json; indent=2", "", "application/json"),
        ("text/html", "", "text/html; charset=utf-8"),  # DRF's browsable API
        ("text/html,*/*;q=0.8", "", "text/html; charset=utf-8"),
        ("*/*", "?format=api", "text/html; charset=utf-8"),
        ("*/*", "?format=json", "application/json"),
    ],
)
def test_the_answer_is_rendered_as_the_client_accepts(event, rich, accept, query, answered):
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    response = token_client(rich).post(registration(event) + query, {}, format="json", **headers)

    assert response.status_code == 201, response.content
    assert response["Content-Type"] == answered


def test_a_body_that_is_not_json_is_a_400(event, rich):
    response = token_client(rich).post(registration(event), "{form:", content_type="application/json")

    assert refused(response, 400, "parse_error").startswith("JSON parse error")
    assert not Entry.objects.exists()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/tournaments/424242/registration/"),
        ("post", "/api/v1/tournaments/424242/registration/"),
        ("delete", "/api/v1/tournaments/424242/registration/"),
        ("get", "/api/v1/tournaments/424242/payment-options/"),
        ("post", "/api/v1/tournaments/424242/rebuys/"),
        ("post", "/api/v1/tournaments/424242/addons/"),
    ],
)
def test_an_unknown_tournament_is_a_404(rich, method, path):
    response = getattr(token_client(rich), method)(path)

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No Tournament matches the given query."}


# Authentication


def every_player_endpoint(tournament) -> list[tuple[str, str]]:
    return [
        ("get", registration(tournament)),
        ("post", registration(tournament)),
        ("delete", registration(tournament)),
        ("get", payment_options(tournament)),
        ("post", rebuys(tournament)),
        ("post", addons(tournament)),
        ("get", WALLET),
        ("delete", TOKEN),
    ]


def test_without_logging_in_every_player_endpoint_is_a_401(event, rich):
    client = APIClient()
    before = books()

    for method, path in every_player_endpoint(event):
        response = getattr(client, method)(path)
        assert response.status_code == 401, (method, path)
        assert response["WWW-Authenticate"] == "Token"
        assert response.json() == {"code": "not_authenticated", "message": NOT_LOGGED_IN}
    assert books() == before


def test_a_wrong_token_is_a_401(event, rich):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")

    for method, path in every_player_endpoint(event):
        response = getattr(client, method)(path)
        assert response.status_code == 401, (method, path)
        assert response.json() == {"code": "authentication_failed", "message": "Invalid token."}


def test_the_token_of_a_deactivated_player_is_a_401(event, rich):
    client = token_client(rich)
    rich.is_active = False
    rich.save(update_fields=["is_active"])
    before = books()

    for method, path in every_player_endpoint(event):
        response = getattr(client, method)(path)
        assert response.status_code == 401, (method, path)
        assert response.json() == {"code": "authentication_failed", "message": "User inactive or deleted."}
    assert books() == before


def test_a_session_post_without_the_csrf_token_is_a_403(event, rich):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(rich)
    before = books()

    for method, path in every_player_endpoint(event):
        if method == "get":
            continue
        response = getattr(client, method)(path)
        assert response.status_code == 403, (method, path)
        body = response.json()
        assert body["code"] == "permission_denied"
        assert body["message"].startswith("CSRF Failed")
    assert books() == before
    # Reading needs no CSRF token.
    assert client.get(WALLET).status_code == 200


def test_a_player_gets_a_token_with_username_and_password_and_revokes_it(rich):
    client = APIClient()

    response = client.post(TOKEN, {"username": "alice", "password": "correct horse battery"}, format="json")

    assert response.status_code == 200, response.content
    key = response.json()["token"]
    assert key == Token.objects.get(user=rich).key
    again = client.post(TOKEN, {"username": "alice", "password": "correct horse battery"}, format="json")
    assert again.json() == {"token": key}
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get(WALLET).status_code == 200

    assert client.delete(TOKEN).status_code == 204

    assert not Token.objects.exists()
    refused(client.get(WALLET), 401, "authentication_failed")


def test_a_wrong_password_gets_no_token(rich):
    response = APIClient().post(TOKEN, {"username": "alice", "password": "wrong"}, format="json")

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_credentials",
        "message": "Unable to log in with that username and password.",
    }
    assert not Token.objects.exists()


def test_a_token_request_without_a_password_is_a_400_by_field(rich):
    response = APIClient().post(TOKEN, {"username": "alice"}, format="json")

    refused(response, 400, "invalid")
    assert list(response.json()["fields"]) == ["password"]


def test_token_requests_share_the_web_logins_limit(rich):
    client = APIClient()
    statuses = [
        client.post(TOKEN, {"username": "alice", "password": "wrong"}, format="json").status_code
        for _attempt in range(9)
    ]
    assert statuses == [400] * 9
    # The tenth failure, on the web login, locks the API too.
    assert APIClient().post("/accounts/login/", {"username": "alice", "password": "wrong"}).status_code == 429

    response = client.post(TOKEN, {"username": "alice", "password": "correct horse battery"}, format="json")

    assert refused(response, 429, "throttled").startswith("Too many failed log-ins. Please wait 5 minutes")
    assert response["Retry-After"] == "300"
    assert not Token.objects.exists()


def test_the_token_endpoint_answers_json_when_it_locks_out(rich):
    client = APIClient()
    for _attempt in range(9):
        client.post(TOKEN, {"username": "alice", "password": "wrong"}, format="json")

    response = client.post(TOKEN, {"username": "\uff41\uff4c\uff49\uff43\uff45", "password": "wrong"}, format="json")

    refused(response, 429, "throttled")


# Privacy: a player reaches only their own entry and wallet


def test_another_player_can_neither_see_nor_undo_a_registration(as_player, event, rich, other_player):
    token_client(rich).post(registration(event))
    before = books()
    stranger = as_player(other_player)

    refused(stranger.get(registration(event)), 404, "not_registered")
    refused(stranger.delete(registration(event)), 404, "not_registered")
    refused(stranger.post(rebuys(event)), 404, "not_registered")

    assert books() == before
    assert Entry.objects.get().player == rich


def test_another_player_sees_only_their_own_wallet(as_player, rich, other_player):
    ticket_issue(owner=rich, value=1100, currency="EUR", expires_at=timezone.now() + timedelta(days=9))

    response = as_player(other_player).get(WALLET)

    assert response.json() == {"balances": [{"currency": "EUR", "kind": "cash", "balance": 0}], "tickets": []}


def test_another_players_ticket_cannot_pay(event, rich, other_player):
    ticket = ticket_issue(owner=rich, value=1100, currency="EUR", expires_at=timezone.now() + timedelta(days=9))

    assert_refused = refused(
        token_client(other_player).post(registration(event), {"ticket": ticket.pk}, format="json"), 400, "no_ticket"
    )

    assert assert_refused == "That ticket is not yours."
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.AVAILABLE
    assert not Entry.objects.exists()


def test_tokens_are_each_players_own(event, rich):
    bob = UserFactory(username="bob2")
    deposit(bob, 2000)
    token_client(rich).post(registration(event))

    bob_view = token_client(bob).get(WALLET).json()
    alice_view = token_client(rich).get(WALLET).json()

    assert bob_view["balances"] == [{"currency": "EUR", "kind": "cash", "balance": 2000}]
    assert alice_view["balances"] == [{"currency": "EUR", "kind": "cash", "balance": 3900}]


# The schema


def test_schema_is_valid_and_lists_the_players_operations(client):
    response = client.get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = json.loads(response.content)
    validate_schema(schema)
    paths = schema["paths"]
    assert set(paths["/api/v1/tournaments/{id}/registration/"]) == {"get", "post", "delete"}
    assert set(paths["/api/v1/tournaments/{id}/rebuys/"]) == {"post"}
    assert set(paths["/api/v1/tournaments/{id}/addons/"]) == {"post"}
    assert set(paths["/api/v1/tournaments/{id}/payment-options/"]) == {"get"}
    assert set(paths["/api/v1/wallet/"]) == {"get"}
    assert set(paths["/api/v1/auth/token/"]) == {"post", "delete"}
    register = paths["/api/v1/tournaments/{id}/registration/"]["post"]
    assert {"200", "201", "400", "401", "402", "403", "404", "409"} == set(register["responses"])
    assert "Idempotency-Key" in {parameter["name"] for parameter in register["parameters"]}
    assert {"tokenAuth", "cookieAuth"} == {name for scheme in register["security"] for name in scheme}


def test_schema_generates_without_a_warning(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
