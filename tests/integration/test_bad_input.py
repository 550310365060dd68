"""No 500s, ever (issue 25): a NUL, a lone surrogate, a 10,000-character value, a
negative and a huge number and a wrong type, in every field of every form, page and
API operation, sent as a signed-in user with the rights the field's view needs.
Each answer is a refusal a person can read (a 4xx, or the form shown again with its
error), and nothing in the database changes.

The fields are read from the code where it names them: a Django form's fields, the
API's schema (its query, header and body fields), every address with a number in it.
Views that read the request themselves are listed by hand (RAW). A view with input
that is in none of these lists fails test_every_view_with_input_is_probed."""

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from django.apps import apps
from django.contrib import messages
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.converters import IntConverter
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from accounts.forms import SignUpForm
from deals.services import proposal_create
from responsible.exclusions import exclusion_start
from responsible.forms import DepositLimitForm, ExclusionForm, RealityCheckForm
from support.forms import (
    AdjustForm,
    ChatLogForm,
    DepositForm,
    FlagDecisionForm,
    LiftForm,
    MuteForm,
    PlayerSearchForm,
    PrizeDecisionForm,
    SeatTransferForm,
    TicketForm,
    TMoneyForm,
    WithholdForm,
)
from tests.factories import UserFactory, rebuy_event, registered, under_way
from tests.integration.test_deals import agreed_to_negotiate, final_table
from tests.integration.test_deals import now as deal_now
from tests.tables import in_play, started
from tournaments.filters import LobbyFilter
from tournaments.models import Entry, Hand, IntegrityFlag, IntegritySignal, SignalKind
from tournaments.selectors.replays import entry_of
from tournaments.services.integrity import prize_withhold
from wallet.services import deposit_create

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"  # tests.factories.UserFactory's
HUGE = "99999999999999999999999"
SURROGATE = "\ud800"
# What each bad value is, as a form or query string carries it: the surrogate as the
# bytes a UTF-8 encoder would write for it (Django's test client refuses to encode it).
BAD_TEXT = {
    "nul": "a\x00b",
    "surrogate": SURROGATE,
    "long": "x" * 10_000,
    "negative": "-1000",
    "huge": HUGE,
    "words": "ten",  # text where a number or a choice is due
}
# In a JSON body: the same as strings, and numbers, an array and an object.
BAD_JSON = {
    **BAD_TEXT,
    "negative number": -1000,
    "huge number": int(HUGE),
    "list": [1, 2],
    "object": {"a": 1},
}
# Apps whose rows must not change (Django's sessions and django-axes' log-in attempts may).
PROJECT_APPS = ("accounts", "audit", "wallet", "tournaments", "deals", "support")


@dataclass
class World:
    """What a view's input needs to reach its service: users and the ids in its address."""

    users: dict[str, object] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)


def _people(world: World) -> World:
    world.users.setdefault("player", UserFactory(username="alice", screen_name="Alice"))
    world.users.setdefault("other", UserFactory(username="bob", screen_name="Bob"))
    world.users["staff"] = UserFactory(username="sam", screen_name="Sam", is_staff=True)
    world.users["admin"] = UserFactory(username="ada", screen_name="Ada", is_staff=True, is_superuser=True)
    world.users["visitor"] = None
    deposit_create(user=world.users["player"], currency="EUR", amount=10_000, idempotency_key="bad-input:fund")
    return world


def world_open() -> World:
    """A tournament open for registration that the player may enter, and her money."""
    world = _people(World())
    world.ids["tournament"] = rebuy_event(scheduled_start=timezone.now() + timedelta(hours=1), status="registering").pk
    return world


def world_registered() -> World:
    world = _people(World())
    tournament = rebuy_event(scheduled_start=timezone.now() + timedelta(hours=1), status="registering")
    registered(tournament, world.users["player"])
    world.ids["tournament"] = tournament.pk
    return world


def world_rebuy() -> World:
    """An event in its rebuy period, the player in it."""
    world = _people(World())
    tournament = rebuy_event()
    registered(tournament, world.users["player"])
    world.ids["tournament"] = tournament.pk
    return world


def world_table() -> World:
    """A hand in play; the player is the one to act."""
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    world = World(users={"player": Entry.objects.get(pk=entry_of(row, row.to_act)).player})
    world = _people(world)
    world.ids |= {"tournament": tournament.pk, "table": row.table.number, "hand": row.pk, "at": len(row.actions)}
    return world


def world_under_way() -> World:
    """A tournament in play with the player and Bob seated: a seat staff may move."""
    world = _people(World())
    carol = UserFactory(username="carol", screen_name="Carol")
    tournament = under_way(world.users["player"], world.users["other"], carol)
    world.users["carol"] = UserFactory(username="dave", screen_name="Dave")
    world.ids["tournament"] = tournament.pk
    return world


def world_deal() -> World:
    """A deal negotiation under way at a final table, a proposal on the table."""
    world = World()
    world.users["staff"] = UserFactory(username="sam", screen_name="Sam", is_staff=True)
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, world.users["staff"])
    proposal = proposal_create(negotiation_id=negotiation.pk, author=world.users["staff"], kind="icm", now=deal_now())
    world.users |= {"player": players[0], "other": players[1]}
    world.users["admin"] = UserFactory(username="ada", screen_name="Ada", is_staff=True, is_superuser=True)
    world.users["visitor"] = None
    world.ids |= {"tournament": tournament.pk, "negotiation": negotiation.pk, "proposal": proposal.pk}
    world.ids["entry"] = Entry.objects.filter(tournament=tournament).order_by("pk").first().pk
    return world


def world_flag() -> World:
    """An open integrity flag (rule 20) and a prize withheld under it."""
    tournament, (taker, giver, _third) = started([1000] * 3)
    world = _people(World(users={"player": taker.player, "other": giver.player}))
    flag = IntegrityFlag.objects.create(
        kind=SignalKind.CHIP_TRANSFER,
        tournament=tournament,
        player=taker.player,
        other=giver.player,
        created_at=timezone.now(),
    )
    hand = Hand.objects.filter(tournament=tournament).first()
    IntegritySignal.objects.create(
        kind=SignalKind.CHIP_TRANSFER, hand=hand, player=taker.player, other=giver.player, detail="knockout", flag=flag
    )
    prize_withhold(
        flag_id=flag.pk, player_id=giver.player_id, actor=world.users["staff"], reason="r", now=timezone.now()
    )
    world.ids |= {"flag": flag.pk, "taker": taker.player_id, "withheld": giver.pk, "tournament": tournament.pk}
    return world


def world_people() -> World:
    return _people(World())


def world_excluded() -> World:
    """Bob on a 24-hour break: a lock staff may lift."""
    world = _people(World())
    exclusion = exclusion_start(player=world.users["other"], kind="break", now=timezone.now())
    world.ids["exclusion"] = exclusion.pk
    return world


WORLDS: dict[str, Callable[[], World]] = {
    "people": world_people,
    "open": world_open,
    "registered": world_registered,
    "rebuy": world_rebuy,
    "table": world_table,
    "under_way": world_under_way,
    "deal": world_deal,
    "flag": world_flag,
    "excluded": world_excluded,
}


@dataclass(frozen=True)
class Probe:
    """One view's input: where it goes, as whom, and valid values for every field
    (each field is then sent bad, the others valid). `plain_text`: fields where a
    number is just text (a reason, a search), so "-1000" and the huge number are
    valid input there; `json`: a JSON body (an API operation)."""

    name: str
    method: str
    url: Callable[[World], str]
    fields: Callable[[World], dict]
    world: str = "people"
    who: str = "player"
    plain_text: frozenset[str] = frozenset()
    json: bool = False
    in_headers: bool = False  # the fields are request headers (an API operation's)
    any_length: frozenset[str] = frozenset()  # plain text of any length too (where to go next)
    ignores_bad: bool = False  # Django's own view: a bad value is ignored, nothing changes


def form_fields(form_class, valid: dict, *, prefix: str = "") -> Callable[[World], dict]:
    """Every field of the Django form `form_class` (a new one is probed too), with the
    valid values `valid` gives (a value or a function of the world), "" for the rest."""

    def fields(world: World) -> dict:
        data = {}
        for name in form_class.base_fields:
            value = valid.get(name, "")
            data[f"{prefix}-{name}" if prefix else name] = value(world) if callable(value) else value
        return data

    return fields


def _url(name: str, *keys: str) -> Callable[[World], str]:
    return lambda world: reverse(name, args=[world.ids[key] for key in keys])


def _money_form(name: str, form_class, valid: dict) -> Probe:
    return Probe(
        f"support {name}",
        "post",
        lambda world: reverse(f"support:{name}", args=[world.users["player"].pk]),
        form_fields(form_class, {"idempotency_key": "3f1c8e02-8d5b-4a43-9a0b-5d7f9d7f1a10", **valid}, prefix=name),
        who="staff",
        plain_text=frozenset({f"{name}-reason"}),
    )


TOMORROW = (timezone.localdate() + timedelta(days=1)).isoformat()

# Django forms, read field by field from their classes.
FORMS = [
    Probe(
        "lobby filters",
        "get",
        lambda world: reverse("lobby:lobby"),
        lambda world: {**form_fields(LobbyFilter().get_form_class(), {})(world), "page": "1"},
        plain_text=frozenset({"q"}),
    ),
    Probe(
        "deposit limit",
        "post",
        lambda world: reverse("responsible:limits"),
        form_fields(DepositLimitForm, {"period": "day", "amount": "50"}),
        world="people",
    ),
    Probe(
        "exclusion",
        "post",
        lambda world: reverse("responsible:limits"),
        lambda world: {
            **form_fields(ExclusionForm, {"kind": "temporary", "days": "30", "sure": "on"})(world),
            "exclude": "1",
        },
        world="people",
    ),
    Probe(
        "reality check",
        "post",
        lambda world: reverse("responsible:limits"),
        lambda world: {**form_fields(RealityCheckForm, {"every": "30"})(world), "reality": "1"},
        world="people",
    ),
    Probe(
        "leader board",
        "get",
        lambda world: reverse("lobby:leader_board", args=["tournament", "month"]),
        lambda world: {"date": "2026-12-06", "page": "1"},
    ),
    Probe(
        "sign-up",
        "post",
        lambda world: reverse("accounts:signup"),
        lambda world: {
            **form_fields(
                SignUpForm,
                {
                    "username": "newcomer",
                    "screen_name": "Newcomer",
                    "email": "newcomer@example.com",
                    "password": "a long enough passphrase",
                    "password_confirm": "a long enough passphrase",
                    "country": "DK",
                    "national_id": "0101901234",
                    "preferred_currency": "EUR",
                    "language": "en",
                },
            )(world),
            "next": "/",
        },
        who="visitor",
        plain_text=frozenset({"username", "screen_name"}),
        any_length=frozenset({"next"}),
    ),
    Probe(
        "log-in",
        "post",
        lambda world: reverse("accounts:login"),
        lambda world: {
            **form_fields(AuthenticationForm, {"username": "alice", "password": PASSWORD})(world),
            "next": "/",
        },
        who="visitor",
        any_length=frozenset({"next"}),
    ),
    Probe(
        "password change",
        "post",
        lambda world: reverse("accounts:password_change"),
        form_fields(
            PasswordChangeForm,
            {
                "old_password": PASSWORD,
                "new_password1": "another long passphrase",
                "new_password2": "another long passphrase",
            },
        ),
    ),
    Probe(
        "language",
        "post",
        lambda world: reverse("set_language"),
        lambda world: {"language": "da", "next": "/"},
        ignores_bad=True,
    ),
    Probe(
        "support player search",
        "get",
        lambda world: reverse("support:players"),
        form_fields(PlayerSearchForm, {"q": "alice"}),
        who="staff",
        plain_text=frozenset({"q"}),
    ),
    _money_form("deposit", DepositForm, {"currency": "EUR", "amount": "12.50"}),
    _money_form("adjust", AdjustForm, {"currency": "EUR", "amount": "-1.00", "reason": "Correction"}),
    _money_form("tmoney", TMoneyForm, {"amount": "5", "reason": "Welcome"}),
    _money_form(
        "ticket",
        TicketForm,
        {"value": "11", "currency": "EUR", "expires_on": TOMORROW, "tournament": "", "reason": "Prize"},
    ),
    Probe(
        "support mute",
        "post",
        lambda world: reverse("support:mute", args=[world.users["player"].pk]),
        form_fields(MuteForm, {"minutes": "60", "reason": "Abuse"}),
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    Probe(
        "support lift",
        "post",
        lambda world: reverse("support:lift", args=[world.users["other"].pk, world.ids["exclusion"]]),
        form_fields(LiftForm, {"reason": "Set by mistake: the player asked for a limit"}),
        world="excluded",
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    Probe(
        "support chat log",
        "get",
        lambda world: reverse("support:chat_log"),
        form_fields(ChatLogForm, {"tournament": lambda world: world.ids["tournament"], "table": "1"}),
        world="table",
        who="staff",
    ),
    Probe(
        "support seat transfer",
        "post",
        lambda world: reverse("support:seat_transfer"),
        form_fields(
            SeatTransferForm,
            {
                "tournament": lambda world: world.ids["tournament"],
                "source": "alice",
                "target": "dave",
                "reason": "The player's hospital stay",
            },
        ),
        world="under_way",
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    Probe(
        "integrity decision",
        "post",
        _url("support:integrity_decide", "flag"),
        form_fields(FlagDecisionForm, {"decision": "cleared", "reason": "Reviewed"}),
        world="flag",
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    Probe(
        "integrity withholding",
        "post",
        _url("support:integrity_withhold", "flag"),
        form_fields(WithholdForm, {"player": lambda world: world.ids["taker"], "reason": "Under review"}),
        world="flag",
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    *(
        Probe(
            f"integrity {action}",
            "post",
            _url(f"support:integrity_{action}", "withheld"),
            form_fields(PrizeDecisionForm, {"reason": "Reviewed"}),
            world="flag",
            who="staff",
            plain_text=frozenset({"reason"}),
        )
        for action in ("pay", "confiscate")
    ),
]

# Views that read the request themselves: their fields by hand.
RAW = [
    Probe(
        "table action",
        "post",
        _url("lobby:table_act", "tournament", "table"),
        lambda world: {"hand": world.ids["hand"], "at": world.ids["at"], "kind": "cbr", "amount": "100"},
        world="table",
    ),
    Probe(
        "table sit-out",
        "post",
        _url("lobby:table_sit", "tournament", "table"),
        lambda w: {"sitting_out": "1"},
        world="table",
    ),
    Probe(
        "table chat",
        "post",
        _url("lobby:table_chat", "tournament", "table"),
        lambda world: {"text": "good luck"},
        world="table",
        plain_text=frozenset({"text"}),
    ),
    Probe(
        "players search",
        "get",
        _url("lobby:players", "tournament"),
        lambda world: {"q": "ali", "page": "1"},
        world="open",
        plain_text=frozenset({"q"}),
    ),
    Probe("own mark", "get", _url("lobby:own_mark", "tournament"), lambda world: {"on": "info"}, world="open"),
    Probe(
        "hand download", "get", _url("lobby:hand", "tournament", "hand"), lambda world: {"format": "phh"}, world="table"
    ),
    Probe("wallet page", "get", lambda world: reverse("lobby:wallet"), lambda world: {"page": "1"}),
    Probe("hand history", "get", lambda world: reverse("lobby:my_hands"), lambda world: {"page": "1"}),
    Probe(
        "register",
        "post",
        _url("lobby:register", "tournament"),
        lambda world: {"form": "cash", "ticket": "", "key": "3f1c8e028d5b4a439a0b5d7f9d7f1a10"},
        world="open",
        plain_text=frozenset({"key"}),  # any printable ASCII is a key
    ),
    Probe(
        "unregister",
        "post",
        _url("lobby:unregister", "tournament"),
        lambda world: {"confirm": "yes"},
        world="registered",
    ),
    *(
        Probe(
            name,
            "post",
            _url(f"lobby:{name}", "tournament"),
            lambda world: {"key": "9a0b5d7f9d7f1a10"},
            world="rebuy",
            plain_text=frozenset({"key"}),
        )
        for name in ("rebuy", "addon")
    ),
    Probe(
        "support tickets", "get", lambda world: reverse("support:tickets"), lambda world: {"part": "queue"}, who="staff"
    ),
    Probe("deal consent", "post", _url("deals:consent", "negotiation"), lambda world: {"wants": "yes"}, world="deal"),
    Probe(
        "deal end",
        "post",
        _url("deals:end", "negotiation"),
        lambda world: {"reason": "No agreement"},
        world="deal",
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    Probe(
        "deal proposal",
        "post",
        _url("deals:propose", "negotiation"),
        lambda world: {"kind": "custom", "play_for": "", f"amount-{world.ids['entry']}": "10"},
        world="deal",
    ),
    Probe(
        "deal proposal by staff",
        "post",
        _url("deals:propose", "negotiation"),
        lambda world: {"kind": "icm", "play_for": "1.00"},
        world="deal",
        who="staff",
    ),
    Probe(
        "deal withdrawal",
        "post",
        _url("deals:withdraw", "negotiation", "proposal"),
        lambda world: {"reason": "A mistake"},
        world="deal",
        who="staff",
        plain_text=frozenset({"reason"}),
    ),
    Probe(
        "deal answer",
        "post",
        _url("deals:answer", "negotiation", "proposal"),
        lambda w: {"answer": "accept"},
        world="deal",
    ),
]


# The API, from its schema: each operation's query, header and body fields.
# The world each operation's ids come from, and a valid body.
API_WORLDS = {
    "/api/v1/auth/token/": ("people", "visitor", {"username": "alice", "password": PASSWORD}),
    "/api/v1/tournaments/": ("people", "visitor", {}),
    "/api/v1/tournaments/{id}/registration/": ("open", "player", {"form": "cash"}),
    "/api/v1/tournaments/{id}/rebuys/": ("rebuy", "player", {}),
    "/api/v1/tournaments/{id}/addons/": ("rebuy", "player", {}),
    "/api/v1/deals/{id}/consent/": ("deal", "player", {"wants": True}),
    "/api/v1/deals/{id}/proposals/{proposal_id}/answer/": ("deal", "player", {"accept": True}),
    "/api/v1/leader-boards/{kind}/": ("people", "visitor", {}),
    "/api/v1/me/points/": ("people", "player", {}),
    "/api/v1/wallet/limits/": ("people", "player", {"period": "day", "amount": 5000}),
    "/api/v1/wallet/limits/cancel/": ("people", "player", {"period": "day"}),
}
# Which of the world's ids each address's numbers are.
API_IDS = {
    "/api/v1/tournaments/": {"id": "tournament"},
    "/api/v1/deals/": {"id": "negotiation", "proposal_id": "proposal"},
}


def _api_url(path: str) -> Callable[[World], str]:
    def url(world: World) -> str:
        address = path.replace("{kind}", "tournament")  # a Leader Board's
        for prefix, ids in API_IDS.items():
            if path.startswith(prefix):
                for name, key in ids.items():
                    if "{" + name + "}" in address:
                        address = address.replace("{" + name + "}", str(world.ids[key]))
        return address

    return url


def _schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _api_probes() -> list[Probe]:
    schema = _schema()
    probes = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            parameters = [p for p in operation.get("parameters", []) if p["in"] in ("query", "header")]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if not parameters and not body:
                continue
            world, who, valid = API_WORLDS[path]
            query = [p["name"] for p in parameters if p["in"] == "query"]
            headers = [p["name"] for p in parameters if p["in"] == "header"]
            fields = list(_body_fields(schema, body)) if body else []

            url = _api_url(path)
            if query:
                probes.append(Probe(f"api {method} {path} query", "get", url, lambda w, q=query: dict.fromkeys(q, "")))
            if headers:
                probes.append(
                    Probe(
                        f"api {method} {path} headers",
                        method,
                        url,
                        lambda w, h=headers: dict.fromkeys(h, "key-1"),
                        world=world,
                        who=who,
                        in_headers=True,
                        plain_text=frozenset(headers),
                    )
                )
            if fields:
                probes.append(
                    Probe(
                        f"api {method} {path} body",
                        method,
                        url,
                        lambda w, f=fields, v=valid: {name: v.get(name, "") for name in f},
                        world=world,
                        who=who,
                        json=True,
                        plain_text=frozenset({"username", "password"}),
                    )
                )
    return probes


def _body_fields(schema: dict, body: dict) -> dict:
    name = body["$ref"].rsplit("/", 1)[-1]
    return schema["components"]["schemas"][name]["properties"]


# Every address with a number in it, the number huge (the database's integers are
# 64 bits): GET and POST, as an administrator, who may open every page.
def _numbered_routes() -> list[tuple[str, list[str]]]:
    found = []

    def walk(patterns, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace == "admin":
                    continue
                walk(pattern.url_patterns, f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace)
            elif isinstance(pattern, URLPattern) and pattern.name:
                numbers = [key for key, conv in pattern.pattern.converters.items() if isinstance(conv, IntConverter)]
                if numbers:
                    found.append((namespace + pattern.name, numbers))

    walk(get_resolver().url_patterns, "")
    return sorted({(name, tuple(keys)) for name, keys in found})


ROUTES = [
    Probe(
        f"{method} {name} with huge numbers",
        method,
        lambda world, name=name, keys=keys: reverse(name, kwargs=dict.fromkeys(keys, int(HUGE))),
        lambda world: {},
        who="admin",
    )
    for name, keys in _numbered_routes()
    for method in ("get", "post")
]


def _cases():
    # The API's schema is read when the tests are collected: Django is set up by then.
    for probe in [*FORMS, *RAW, *_api_probes()]:
        for index, name in enumerate(probe.fields(_Names())):
            yield pytest.param(probe, index, id=f"{probe.name}: {name}")
    for probe in ROUTES:
        yield pytest.param(probe, None, id=probe.name)


class _Names(World):
    """A world whose every id is 1: enough to name a probe's fields and its view."""

    def __init__(self):
        super().__init__()
        self.ids = defaultdict(lambda: 1)
        self.users = defaultdict(lambda: SimpleNamespace(pk=1))


def _database_state() -> dict[str, str]:
    """Every row of the project's models, a digest for each model."""
    state = {}
    for label in PROJECT_APPS:
        for model in apps.get_app_config(label).get_models():
            rows = list(model.objects.order_by("pk").values_list())
            state[model._meta.label] = hashlib.blake2b(repr(rows).encode()).hexdigest()
    return state


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return [label for label, digest in after.items() if before.get(label) != digest]


def _form_body(fields: dict, name: str | None, bad) -> str:
    parts = []
    for key, value in fields.items():
        if key == name and bad is SURROGATE:
            parts.append(f"{quote(key)}=%ED%A0%80")
            continue
        values = bad if key == name else value
        for each in values if isinstance(values, list) else [values]:
            parts.append(f"{quote(key)}={quote(str(each))}")
    return "&".join(parts)


def _send(client: Client, probe: Probe, url: str, fields: dict, *, name: str | None, bad):
    if probe.in_headers:
        value = bad if isinstance(bad, str) else json.dumps(bad)
        if value == SURROGATE:
            value = "\xed\xa0\x80"  # the bytes of a UTF-8 encoder, as WSGI hands them to Django
        return client.generic(probe.method.upper(), url, b"", content_type="application/json", headers={name: value})
    if probe.json:
        body = {**fields, name: bad} if name else fields
        return client.generic(probe.method.upper(), url, json.dumps(body), content_type="application/json")
    encoded = _form_body(fields, name, bad)
    if probe.method == "get":
        return client.get(f"{url}?{encoded}" if encoded else url)
    return client.generic("POST", url, encoded, content_type="application/x-www-form-urlencoded")


def _shows_refusal(response) -> bool:
    if 400 <= response.status_code < 500:
        return True
    queued = [message for message in messages.get_messages(response.wsgi_request) if message.level == messages.ERROR]
    text = response.content.decode(errors="replace")
    return bool(queued) or "errorlist" in text or 'role="alert"' in text


@pytest.mark.parametrize(("probe", "index"), list(_cases()))
def test_bad_input_is_refused_and_changes_nothing(probe: Probe, index: int | None):
    world = WORLDS[probe.world]()
    client = Client(raise_request_exception=False)
    who = world.users.get(probe.who)
    if who is not None:
        client.force_login(who)
    url, fields = probe.url(world), probe.fields(world)
    name = None if index is None else list(fields)[index]
    bad_values = BAD_JSON if probe.json else BAD_TEXT
    if name is None:  # the address is what is bad
        bad_values = {"huge id": None}
    failures = []
    for kind, bad in bad_values.items():
        before = _database_state()
        response = _send(client, probe, url, fields, name=name, bad=bad)
        valid_here = (name in probe.plain_text and kind in ("negative", "huge", "words")) or (
            name in probe.any_length and kind in ("negative", "huge", "words", "long")
        )
        if response.status_code >= 500:
            failures.append(f"{kind}: {response.status_code}")
        elif valid_here:
            continue
        elif probe.method != "get" and not probe.ignores_bad and not _shows_refusal(response):
            failures.append(f"{kind}: {response.status_code} without a refusal")
        elif changed := _changed(before, _database_state()):
            failures.append(f"{kind}: {response.status_code}, and these changed: {', '.join(changed)}")
    assert not failures, failures


# The project's views that take nothing but the numbers in their address (probed by ROUTES).
NO_INPUT = {
    "lobby:tournament",
    "lobby:tournament_clock",
    "lobby:table",
    "lobby:table_own",
    "lobby:table_history",
    "lobby:own_history",
    "lobby:my_tournaments",
    "lobby:my_tables",
    "lobby:my_results",
    "lobby:player_results",
    "lobby:registration_row",
    "lobby:registration_card",
    "responsible:reality_check",
    "accounts:logout",
    "accounts:password_change_done",
    "support:home",
    "support:player",
    "support:integrity",
    "deals:card",
    "deals:request",
    "deals:negotiation",
    "deals:negotiation_card",
    "deals:claim",
    "deals:stop_clock",
}


def test_every_view_with_input_is_probed():
    """Each page of the project (the API is read from its schema, the admin is
    Django's) is probed field by field, or takes no input but its address: a new
    view fails here until it is in FORMS, RAW or NO_INPUT."""
    names = _Names()
    probed = {resolve(probe.url(names).split("?")[0]).view_name for probe in [*FORMS, *RAW]}
    pages = set()

    def walk(patterns, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace != "admin":
                    walk(pattern.url_patterns, f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace)
            elif pattern.name and namespace:
                pages.add(namespace + pattern.name)

    walk(get_resolver().url_patterns, "")
    assert pages - probed - NO_INPUT == set()
    assert NO_INPUT & probed == set()
