import hashlib
import time
from typing import NamedTuple
from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.crypto import salted_hmac
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from lobby.fresh_cache import FreshCache
from lobby.rules_summary import applicable_rules, break_policy_text
from lobby.templatetags.poker import money
from tournaments.forms import LobbyFilterForm
from tournaments.models import BettingStructure, EntryKind, Game, Status, Tournament, tournament_tags
from tournaments.selectors import (
    tournament_deadlines,
    tournament_list_for_lobby,
    tournament_payouts,
    tournament_schedule,
)
from wallet.models import Currency

LOBBY_PAGE_SIZE = 50
# The lobby is the busiest page: its rendered parts are shared by every viewer with
# the same filters, language and time zone for at most this long after the rows
# were read.
LOBBY_CACHE_SECONDS = 1
COLUMNS = [
    ("start", gettext_lazy("Start")),
    ("name", gettext_lazy("Tournament")),
    (None, gettext_lazy("Game")),
    ("buy_in", gettext_lazy("Buy-in")),
    ("entrants", gettext_lazy("Entrants")),
    ("prize_pool", gettext_lazy("Prize pool")),
    ("status", gettext_lazy("Status")),
    (None, gettext_lazy("Tags")),
]
FILTER_PARAMS = ("q", "game", "limit", "currency", "status", "tag", "buy_in_min", "buy_in_max", "sort")
# Stands in for the CSRF token in a shared page; unguessable, so no input can put it
# into the page anywhere else.
CSRF_PLACEHOLDER = salted_hmac("lobby.views.CSRF_PLACEHOLDER", "lobby", algorithm="sha256").hexdigest()
LOBBY_CACHE = FreshCache(max_age=LOBBY_CACHE_SECONDS)


class LobbyParts(NamedTuple):
    """The rendered filter form and results, and when their rows were read."""

    read_at: float
    status: int
    filters_html: str
    results_html: str


class LobbyPage(NamedTuple):
    """A session-less visitor's whole page, with CSRF_PLACEHOLDER for the token."""

    read_at: float
    status: int
    html: str


def lobby(request):
    """The lobby: the page, or only its results when htmx asks for them.

    The filter form and results are shared by every viewer with the same language,
    time zone, filters and page; so is the whole page of a visitor without a session
    (its header is nobody's own), the CSRF token filled in per request. A signed-in
    header is rendered per request. Nothing shared is older than LOBBY_CACHE_SECONDS.
    """
    params = {key: request.GET[key] for key in FILTER_PARAMS if request.GET.get(key)}
    page_number = request.GET.get("page", "1")
    key = _cache_key(params, page_number)
    if request.htmx:
        parts = _lobby_parts(key, params, page_number)
        sort_field = render_to_string("lobby/lobby.html#sortfield", {"sort": params.get("sort"), "oob": True})
        return HttpResponse(parts.results_html + sort_field, status=parts.status)
    if settings.SESSION_COOKIE_NAME in request.COOKIES or "messages" in request.COOKIES:
        # Possibly signed in, or with messages waiting: this header may be someone's own.
        parts = _lobby_parts(key, params, page_number)
        return render(request, "lobby/lobby.html", _page_context(parts), status=parts.status)
    page_key = f"{key}:{hashlib.blake2b(request.get_full_path().encode(), digest_size=16).hexdigest()}"
    page = LOBBY_CACHE.get(page_key)
    if page is None:
        parts = _lobby_parts(key, params, page_number)
        context = {**_page_context(parts), "csrf_token": CSRF_PLACEHOLDER}
        page = LobbyPage(parts.read_at, parts.status, render_to_string("lobby/lobby.html", context, request))
        LOBBY_CACHE.set(page_key, page)
    response = HttpResponse(page.html.replace(CSRF_PLACEHOLDER, get_token(request)), status=page.status)
    patch_vary_headers(response, ("Cookie",))  # as rendering the header, which looks at the session, would
    return response


def _cache_key(params: dict, page_number: str) -> str:
    """Keyed by the raw input: a hit needs no form, a miss validates it and shares
    the answer, a 400 included."""
    viewer = (translation.get_language(), timezone.get_current_timezone_name(), sorted(params.items()), page_number)
    return "lobby:" + hashlib.blake2b(repr(viewer).encode(), digest_size=16).hexdigest()


def _lobby_parts(key: str, params: dict, page_number: str) -> LobbyParts:
    parts = LOBBY_CACHE.get(key)
    if parts is None:
        read_at = time.time()
        form = LobbyFilterForm(params)
        valid = form.is_valid()
        parts = LobbyParts(
            read_at=read_at,
            status=200 if valid else 400,
            filters_html=render_to_string(
                "lobby/lobby.html#filters", {"form": form, "choice_fields": _choice_fields(form)}
            ),
            results_html=render_to_string(
                "lobby/lobby.html#results", _results_context(form, params, page_number, valid)
            ),
        )
        LOBBY_CACHE.set(key, parts)
    return parts


def _page_context(parts: LobbyParts) -> dict:
    # Our own renders of the partials.
    return {"filters_html": mark_safe(parts.filters_html), "results_html": mark_safe(parts.results_html)}  # noqa: S308


def _choice_fields(form):
    return [form[name] for name in ("game", "limit", "currency", "status", "tag")]


def _results_context(form, params: dict, page_number: str, valid: bool) -> dict:
    if not valid:
        return {"errors": form.error_message()}
    page = Paginator(tournament_list_for_lobby(form), LOBBY_PAGE_SIZE).get_page(page_number)
    return {
        "page": page,
        "rows": [_lobby_row(row) for row in page.object_list],
        "columns": _columns(params),
        "previous_url": _url(params, page=page.previous_page_number()) if page.has_previous() else None,
        "next_url": _url(params, page=page.next_page_number()) if page.has_next() else None,
    }


def _url(params: dict, **changes) -> str:
    merged = {**params, **changes}
    if merged.get("page") == 1:
        del merged["page"]
    return "?" + urlencode(merged) if merged else "?"


def _columns(params: dict) -> list[dict]:
    current = params.get("sort", "start")
    columns = []
    for sort_key, label in COLUMNS:
        column = {"label": label, "url": None, "sort": False}
        if sort_key:
            active = current.lstrip("-") == sort_key
            descending = current.startswith("-")
            column.update(
                url=_url(params, sort=f"-{sort_key}" if active and not descending else sort_key),
                sort=active,
                aria="descending" if descending else "ascending",
                arrow=("▼" if descending else "▲") if active else "",
            )
        columns.append(column)
    return columns


GAME_LABELS = dict(Game.choices)
STATUS_LABELS = dict(Status.choices)
BETTING_SHORT = {BettingStructure.NO_LIMIT: "NL", BettingStructure.POT_LIMIT: "PL", BettingStructure.FIXED_LIMIT: "FL"}


def _lobby_row(row: dict) -> dict:
    pool_currency = Currency.TMONEY if row["entry_kind"] == EntryKind.TMONEY else row["currency"]
    return {
        **row,
        "pool_currency": pool_currency,
        "game_label": f"{BETTING_SHORT[row['betting']]} {GAME_LABELS[row['game']]}",
        "status_label": STATUS_LABELS[row["status"]],
        "buy_in_text": buy_in_text(
            entry_kind=row["entry_kind"],
            currency=pool_currency,
            buy_in=row["buy_in"],
            bounty=row["bounty_amount"],
            fee=row["fee"],
        ),
        "tags": tournament_tags(
            bounty_kind=row["bounty_kind"],
            satellite_target_id=row["satellite_target_id"],
            rebuy_chips=row["rebuy_chips"],
            speed=row["speed"],
            heads_up=row["heads_up"],
            deepstack=row["deepstack"],
        ),
    }


def buy_in_text(*, entry_kind: str, currency: str, buy_in: int, bounty: int, fee: int) -> str:
    """ "€10 + €10 + €2": buy-in, bounty (when there is one) and fee, as the room writes them."""
    if entry_kind == EntryKind.FREEROLL:
        return _("Freeroll")
    parts = [money(buy_in, currency)]
    if bounty:
        parts.append(money(bounty, currency))
    parts.append(money(fee, currency))
    text = " + ".join(parts)
    return _("Ticket (%(value)s)") % {"value": text} if entry_kind == EntryKind.TICKET_ONLY else text


def tournament_info(request, pk: int):
    """Tournament Info (rule 3): every parameter, the levels, breaks, deadlines and payouts."""
    tournament = get_object_or_404(Tournament.objects.select_related("blind_structure", "satellite_target"), pk=pk)
    now = timezone.now()
    context = {
        "tournament": tournament,
        "schedule": tournament_schedule(tournament),
        "deadlines": tournament_deadlines(tournament),
        "payouts": tournament_payouts(tournament, now=now),
        "pool_currency": Currency.TMONEY if tournament.entry_kind == EntryKind.TMONEY else tournament.currency,
        "satellites": tournament.satellites.order_by("scheduled_start").values("id", "name", "scheduled_start"),
        "now": now,
    }
    context["timeline"] = _timeline(context["schedule"])
    context["break_policy_text"] = break_policy_text(tournament)
    context["rules"] = applicable_rules(tournament)
    context["buy_in_text"] = buy_in_text(
        entry_kind=tournament.entry_kind,
        currency=context["pool_currency"],
        buy_in=tournament.buy_in,
        bounty=tournament.bounty_amount,
        fee=tournament.fee,
    )
    return render(request, "lobby/tournament_info.html", context)


def _timeline(schedule) -> list[dict]:
    """Levels and breaks in the order they happen."""
    items = [
        {"is_break": False, "number": lvl.number, "level": lvl.level, "starts_at": lvl.starts_at}
        for lvl in schedule.levels
    ]
    items += [
        {
            "is_break": True,
            "addon": brk.addon,
            "starts_at": brk.starts_at,
            "minutes": int((brk.ends_at - brk.starts_at).total_seconds() // 60),
        }
        for brk in schedule.breaks
    ]
    return sorted(items, key=lambda item: (item["starts_at"], not item["is_break"]))
