"""Every answer under /api/ is JSON `{"code", "message"}` a person can read: unknown
addresses whatever the method, methods not allowed, missing credentials, bodies the
API cannot take, and Django's own errors."""

import json

import pytest
from django.test import Client, RequestFactory
from django.urls import get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from deals.services import chop_claim, chop_consent, chop_request, chop_stop_clock, proposal_create
from tests.integration.test_api_registration import (
    TOKEN,
    WALLET,
    books,
    deposit,
    refused,
    registration,
    session_client,
    token_client,
)
from tests.integration.test_deals import final_table
from tournaments.models import Entry

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete", "options"])
@pytest.mark.parametrize("path", ["/api/v1/nowhere/", "/api/v1/deals/1/proposals/", "/api/nothing", "/api/"])
def test_an_unknown_api_address_is_a_json_404_whatever_the_method(method, path):
    # A browser-like client: Django's CSRF check applies as it does in production.
    client = Client(enforce_csrf_checks=True)

    body = {} if method == "get" else {"data": "[]", "content_type": "application/json"}

    response = getattr(client, method)(path, **body)

    message = refused(response, 404, "not_found")
    assert message == "There is no such API address."


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["", "0", "x"])
def test_a_page_that_is_not_a_page_number_is_a_json_404(page):
    response = Client().get("/api/v1/tournaments/", {"page": page})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_method_the_address_does_not_take_is_a_json_405():
    response = APIClient().put("/api/v1/tournaments/", {}, format="json")

    assert refused(response, 405, "method_not_allowed") == 'Method "PUT" not allowed.'


def test_no_credentials_is_a_json_401_saying_how_to_log_in():
    response = APIClient().get(WALLET)

    assert "send your API token" in refused(response, 401, "not_authenticated")


def test_a_session_without_its_csrf_token_is_a_json_403(player):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(player)

    response = client.post(TOKEN, {}, format="json")

    assert "CSRF" in refused(response, 403, "permission_denied")


def test_a_crash_under_the_api_is_answered_in_json_and_elsewhere_as_a_page():
    handler = get_resolver().resolve_error_handler(500)  # what Django calls on a crash

    api = handler(RequestFactory().get("/api/v1/wallet/"))
    page = handler(RequestFactory().get("/"))

    assert api.status_code == 500
    assert json.loads(api.content) == {
        "code": "server_error",
        "message": "Something went wrong on our side; it has been logged. Try again later.",
    }
    assert page.status_code == 500
    assert page["Content-Type"].startswith("text/html")


# Bodies that are not a JSON object

NOT_OBJECTS = ["[]", '"x"', "3", "null", "[{}]", "true"]


def _negotiation_with_proposal(staff):
    tournament, players = final_table(3, deals_allowed=True)
    now = timezone.now()
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now)
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=now)
    chop_consent(negotiation_id=negotiation.pk, player=players[1], wants=True, now=now)
    chop_consent(negotiation_id=negotiation.pk, player=players[2], wants=True, now=now)
    chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", now=now)
    return negotiation, proposal, players


@pytest.mark.parametrize("body", NOT_OBJECTS)
def test_a_deal_body_that_is_not_an_object_is_a_json_400(staff, body):
    negotiation, proposal, players = _negotiation_with_proposal(staff)
    client = token_client(players[1])

    for path in (
        f"/api/v1/deals/{negotiation.pk}/consent/",
        f"/api/v1/deals/{negotiation.pk}/proposals/{proposal.pk}/answer/",
    ):
        response = client.post(path, body, content_type="application/json")

        assert "Send a JSON object" in refused(response, 400, "invalid")


@pytest.mark.parametrize("body", NOT_OBJECTS)
def test_a_registration_or_token_body_that_is_not_an_object_is_a_json_400(player, body):
    from tests.factories import BlindStructureFactory, TournamentFactory

    event = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)
    deposit(player, 5000)
    before = books()

    for response in (
        token_client(player).post(registration(event), body, content_type="application/json"),
        session_client(player).post(registration(event), body, content_type="application/json"),
        APIClient().post(TOKEN, body, content_type="application/json"),
    ):
        assert "Send a JSON object" in refused(response, 400, "invalid")
    assert books() == before


# Fields named in every refusal of a body


def test_a_deal_answer_without_accept_names_the_field(staff):
    negotiation, proposal, players = _negotiation_with_proposal(staff)

    response = token_client(players[1]).post(
        f"/api/v1/deals/{negotiation.pk}/proposals/{proposal.pk}/answer/", {}, format="json"
    )

    assert refused(response, 400, "invalid") == "accept: This field is required."
    assert response.json()["fields"] == {"accept": ["This field is required."]}


def test_a_deal_consent_without_wants_names_the_field(staff):
    tournament, players = final_table(3, deals_allowed=True)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=timezone.now())

    response = token_client(players[1]).post(f"/api/v1/deals/{negotiation.pk}/consent/", {"wants": None}, format="json")

    assert refused(response, 400, "invalid") == "wants: This field may not be null."


def test_a_null_form_of_payment_is_refused_naming_the_field_not_taken_as_cash(player):
    from tests.factories import BlindStructureFactory, TournamentFactory

    event = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)
    deposit(player, 5000)
    before = books()

    response = token_client(player).post(registration(event), {"form": None}, format="json")

    assert refused(response, 400, "invalid") == "form: This field may not be null."
    assert not Entry.objects.exists()
    assert books() == before


def test_a_deal_that_does_not_exist_is_a_json_404(player):
    response = token_client(player).post("/api/v1/deals/424242/consent/", {"wants": True}, format="json")

    assert refused(response, 404, "not_found") == "There is no such negotiation."


def test_a_form_body_is_refused_as_json(player):
    response = token_client(player).post(TOKEN, {"username": "alice"}, format="multipart")

    assert refused(response, 415, "unsupported_media_type").startswith('Unsupported media type "multipart/form-data')
