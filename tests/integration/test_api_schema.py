"""The API fuzzed through its own OpenAPI schema (/api/schema/) with schemathesis and
every one of its checks, anonymously and with a player's token: no answer is a 5xx,
and every answer is one the schema documents (status, content type, body).

Bounded: a fixed number of examples per operation and generation mode, derandomized,
so a run is the same every time; the app is called in-process (WSGI) on the test
database, with a room that has something at every address: events before, during and
after play, a player with money and a token, and a deal they take part in."""

from collections import Counter
from datetime import timedelta

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks

from deals.services import chop_claim, chop_consent, chop_request, chop_stop_clock, proposal_create
from tests.factories import BlindStructureFactory, TournamentFactory
from tests.integration.test_deals import final_table
from wallet.services import deposit_create

pytestmark = pytest.mark.django_db(transaction=False)

EXAMPLES = 5  # per operation, generation mode and kind of id
TOKEN_KEY = "f" * 40


@pytest.fixture
def room(staff):
    """Ids the fuzzer is given besides its own: a deal with an open proposal whose
    players include the one with the token, and events in every state."""
    tournament, players = final_table(3, deals_allowed=True)
    now = timezone.now()
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now)
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=now)
    for player in players[1:]:
        chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=now)
    chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", now=now)
    player = players[1]
    deposit_create(user=player, currency="EUR", amount=50_000, idempotency_key="fuzz-funds")
    upcoming = TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)
    TournamentFactory(
        blind_structure=BlindStructureFactory(), status="finished", scheduled_start=now - timedelta(hours=2)
    )
    return {
        "player": player,
        "ids": [
            {"id": upcoming.pk},
            {"id": tournament.pk},
            {"id": negotiation.pk, "proposal_id": proposal.pk},
        ],
    }


@pytest.fixture
def wsgi_app():
    """The project's WSGI app, called in this test's transaction: as Django's test client
    does, the request signals leave the test's database connection open."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


# The API answers a refusal by the rules with a 400 (README: closed, full, wrong
# password...), which schemathesis's positive_data_acceptance counts as rejecting valid
# data. In its place: a request the schema calls valid is never refused as malformed.
MALFORMED = {"invalid", "invalid_filter", "parse_error"}


def schema_valid_request_is_understood(ctx, response, case) -> None:
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code != 400:
        return
    body = response.json()
    if set(body.get("fields", {})) == {"__all__"}:
        return  # fields valid alone, refused together (buy_in_min above buy_in_max): not in a schema's words
    assert body["code"] not in MALFORMED, f"A request the schema calls valid was refused as malformed: {response.text}"


def _checks() -> list:
    load_all_checks()
    return [check for check in CHECKS.get_all() if check.__name__ != "positive_data_acceptance"] + [
        schema_valid_request_is_understood
    ]


def _fuzz(operation, checks, headers: dict[str, str], path_parameters: dict | None, *, on_call, seen: Counter) -> None:
    # Negative data needs something to make invalid: with the room's ids given, a body or a
    # query; otherwise the ids themselves, or anything the operation takes.
    if path_parameters is None:
        negative = bool(len(operation.path_parameters) or len(operation.query) or len(operation.body))
    else:
        negative = bool(len(operation.query) or len(operation.body))
    modes = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if negative else (GenerationMode.POSITIVE,)
    for mode in modes:
        strategy = operation.as_strategy(mode, path_parameters=path_parameters)

        @given(case=strategy)
        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case) -> None:
            on_call()
            response = case.call(headers=headers)
            seen[(case.method, response.status_code)] += 1
            case.validate_response(response, checks=checks, headers=headers)

        try:
            run()
        except Unsatisfiable:
            # Nothing in the request can be made invalid (no body, no query, the ids given).
            assert mode is GenerationMode.NEGATIVE, operation.label


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_every_operation_answers_as_its_schema_says_and_never_5xx(room, wsgi_app, who):
    checks = _checks()
    schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app)
    player = room["player"]
    headers = {"Authorization": f"Token {TOKEN_KEY}"} if who == "player" else {}

    def token_back() -> None:
        # The fuzzer revokes the token too (DELETE /auth/token/): give it back.
        if who == "player":
            Token.objects.get_or_create(key=TOKEN_KEY, defaults={"user": player})

    seen: Counter = Counter()
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:
        names = {parameter.name for parameter in operation.path_parameters}
        _fuzz(operation, checks, headers, None, on_call=token_back, seen=seen)
        for ids in room["ids"]:
            if names and names <= set(ids):
                _fuzz(operation, checks, headers, {name: ids[name] for name in names}, on_call=token_back, seen=seen)
    # Not only refusals: the room's ids reached the API's work (a registration made, when signed in).
    assert seen[("GET", 200)]
    assert seen[("GET", 404)]
    assert seen[("POST", 201)] if who == "player" else seen[("POST", 401)]
