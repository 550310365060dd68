import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import get_template, render_to_string
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import cache_page
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.vary import vary_on_cookie, vary_on_headers

from lobby.charts import bar_chart, line_chart, time_chart
from lobby.player_views import players_context
from lobby.rules_summary import applicable_rules, break_policy_text
from tournaments.filters import ABSENT_BOUNTY_PLAYERS, POOL, LobbyFilter
from tournaments.models import BettingStructure, BountyKind, EntryKind, Game, Status, Tournament, tournament_tags
from tournaments.rules import pricing
from tournaments.rules.registration import registration_refusal
from tournaments.selectors.bounties import ENTRIES_CLOSED, bounty_players
from tournaments.selectors.charts import (
    FieldPoint,
    LeaderStacks,
    chip_leaders_over_time,
    field_over_time,
    final_table,
)
from tournaments.selectors.lobby import LOBBY_FIELDS, player_marks, playing_at, tournament_list_for_lobby
from tournaments.selectors.payouts import tournament_payouts
from tournaments.selectors.schedules import registration_window, tournament_deadlines, tournament_schedule
from tournaments.selectors.standings import (
    TableLine,
    chip_leaders,
    tables_list,
    tournament_clock,
    tournament_standings,
)
from wallet.money import format_money as money

LOBBY_PAGE_SIZE = 50
# What the lobby shares is kept this long: a visitor's page whole (Django's per-view
# cache, in this process), and for signed-in players and htmx the filter form and
# the results (the shared cache): a change shows within about a second, while a busy
# lobby reads the database once a second per filter rather than once per viewer.
# Live rows keep an open page current after that.
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
FILTER_PARAMS = tuple(LobbyFilter.base_filters)  # the lobby's tab ("kind") among them


@dataclass(frozen=True)
class ListedRow:
    """A lobby row as every viewer sees it but for the viewer's own mark in its status
    cell: the row's HTML before the mark and after it, and a non-entrant's mark."""

    id: int
    status: str
    registration_path: str  # "" when the event takes no entry now
    start: str
    mark: str
    end: str


@dataclass(frozen=True)
class LobbyParts:
    """The lobby's rendered filter form and results for one input, shared by every
    viewer: the results as their top (the errors, or the count and the table's head),
    their rows and their bottom (the table's end and the pages)."""

    status: int  # 400 for filters that do not validate
    filters_html: str
    top: str
    rows: tuple[ListedRow, ...]
    bottom: str

    def results_html(self, marks: Mapping[int, str] | None = None) -> str:
        """The results with the viewer's own marks (by event id) on the rows they are in."""
        marks = marks or {}
        rows = "".join(row.start + marks.get(row.id, row.mark) + row.end for row in self.rows)
        return self.top + rows + self.bottom


@vary_on_headers("Cookie", "HX-Request")
def lobby(request):
    """The lobby: the page, or only its results when htmx asks for them.

    A visitor's page carries nobody's header or token: it is kept whole and shared
    (Django's per-view cache). A signed-in player's page is rendered for him around
    the shared filter form and results (lobby_parts), with his own marks on the rows
    of the events he is in, from one query.
    """
    params = {key: request.GET[key] for key in FILTER_PARAMS if request.GET.get(key)}
    page_number = request.GET.get("page", "1")
    if request.htmx:
        parts = lobby_parts(params, page_number)
        sort_field = render_to_string("lobby/lobby.html#sortfield", {"sort": params.get("sort"), "oob": True})
        return HttpResponse(parts.results_html(own_marks(request, parts)) + sort_field, status=parts.status)
    if settings.SESSION_COOKIE_NAME in request.COOKIES:
        parts = lobby_parts(params, page_number)  # possibly signed in
        return _lobby_page(request, parts, own_marks(request, parts))
    return _visitor_lobby_page(request, params, page_number)


@cache_page(LOBBY_CACHE_SECONDS, cache="local")
@csrf_protect  # sets the CSRF cookie if the page used a token: the cache then keeps it not
@vary_on_cookie  # a cookie the page may show (messages) keeps it apart
def _visitor_lobby_page(request, params: dict[str, str], page_number: str):
    """Kept in this process: a shared cache would cost each request a round trip for
    what this process renders once a second. Rendered from the rows as they are (and
    shared from there), not from parts kept earlier, so it is never older than
    LOBBY_CACHE_SECONDS."""
    return _lobby_page(request, lobby_parts(params, page_number, fresh=True), {})


def _lobby_page(request, parts: LobbyParts, marks: Mapping[int, str]):
    # Our own renders of the partials.
    context = {
        "filters_html": mark_safe(parts.filters_html),  # noqa: S308
        "results_html": mark_safe(parts.results_html(marks)),  # noqa: S308
    }
    return render(request, "lobby/lobby.html", context, status=parts.status)


def own_marks(request, parts: LobbyParts) -> dict[int, str]:
    """A signed-in player's own marks on the listed events he is in ("Registered",
    and "Go to my table" while he plays), by event id."""
    if not parts.rows or not request.user.is_authenticated:
        return {}
    listed = {row.id: row for row in parts.rows}
    return {
        tournament_id: _own_mark_html(
            tournament_id,
            listed[tournament_id].status,
            listed[tournament_id].registration_path,
            registered=True,
            table=playing_at(listed[tournament_id].status, seated_at),
        )
        for tournament_id, seated_at in player_marks(request.user.pk, listed).items()
    }


def _own_mark_html(
    tournament_id: int, status: str, registration_path: str, *, registered: bool, table: int | None = None
) -> str:
    """A lobby row's own mark: "Register…" (when registration would take an entry:
    `registration_path`) for a player not in the event, else "Registered". Its key,
    which the shared row's mark carries too, says the event's status and whether it
    takes entries, so that the page fetches the mark again when a live row update
    brings another (the event started: the player's table; it filled up: no "Register…")."""
    context = {
        "id": tournament_id,
        "path": reverse("lobby:own_mark", args=[tournament_id]),
        "key": own_mark_key(status, registration_path),
        "registered": registered,
        "registration_path": registration_path,
        "info_path": reverse("lobby:tournament", args=[tournament_id]),
        "table": table,
    }
    return get_template("lobby/lobby.html#mark").render(context)


def own_mark_key(status: str, registration_path: str) -> str:
    return f"{status}.open" if registration_path else status


def own_mark(request, pk: int):
    """The viewer's own mark on an event, for them alone: a lobby row's, or with
    `?on=info` Tournament Info's "Go to my table". Fetched again when their entry
    changes (lobby.live) or a shared update brings a mark with another key (portal.js),
    as a shared update never carries it."""
    marks = player_marks(request.user.pk, [pk]) if request.user.is_authenticated else {}
    if request.GET.get("on") == "info":
        tournament = get_object_or_404(Tournament, pk=pk)
        table = playing_at(tournament.status, marks.get(pk))
        return HttpResponse(_info_mark_html(tournament, tables_list(tournament), table=table))
    row = _lobby_row(pk)
    if row is None:
        raise Http404
    table = playing_at(row["status"], marks.get(pk))
    return HttpResponse(
        _own_mark_html(pk, row["status"], row["registration_path"], registered=pk in marks, table=table)
    )


def _info_mark_html(tournament: Tournament, tables: list[TableLine], *, table: int | None) -> str:
    context = {"tournament": tournament, "own_key": _seating_key(tournament, tables), "own_table": table}
    return render_to_string("lobby/tournament_info.html#own_table", context)


def _seating_key(tournament: Tournament, tables: list[TableLine]) -> str:
    """Who sits where, in short: Tournament Info's "Go to my table" is fetched again
    when a live update of its tables brings another (a player moved, a table broke)."""
    seating = repr((tournament.status, [(line.number, line.entries) for line in tables]))
    return hashlib.blake2b(seating.encode(), digest_size=8).hexdigest()


def lobby_parts(params: dict[str, str], page_number: str, *, fresh: bool = False) -> LobbyParts:
    """The rendered parts for this input in the active language and time zone,
    shared by every viewer for LOBBY_CACHE_SECONDS. Keyed by the raw input: a hit
    needs no form; a miss validates it and shares the answer, a 400 included.
    `fresh`: rendered now whatever is kept, and shared from now on."""
    viewer = (translation.get_language(), timezone.get_current_timezone_name(), sorted(params.items()), page_number)
    key = "lobby:" + hashlib.blake2b(repr(viewer).encode(), digest_size=16).hexdigest()
    if fresh:
        parts = _render_parts(params, page_number)
        cache.set(key, parts, LOBBY_CACHE_SECONDS)
        return parts
    # A miss stores and returns the rendered parts: never None.
    return cast(
        LobbyParts, cache.get_or_set(key, functools.partial(_render_parts, params, page_number), LOBBY_CACHE_SECONDS)
    )


def _render_parts(params: dict[str, str], page_number: str) -> LobbyParts:
    filters = LobbyFilter(params, queryset=Tournament.objects.all())
    valid = filters.is_valid()
    form = filters.form
    results = _results_context(filters, params, page_number, valid)
    return LobbyParts(
        status=200 if valid else 400,
        filters_html=render_to_string(
            "lobby/lobby.html#filters", {"form": form, "choice_fields": _choice_fields(form)}
        ),
        top=render_to_string("lobby/lobby.html#results_top", results),
        rows=tuple(_listed_row(row) for row in results.get("rows", ())),
        bottom=render_to_string("lobby/lobby.html#results_bottom", results),
    )


def _listed_row(row: dict) -> ListedRow:
    start, mark, end = (get_template(f"lobby/lobby.html#{part}") for part in ("row_start", "row_mark", "row_end"))
    return ListedRow(
        id=row["id"],
        status=row["status"],
        registration_path=row["registration_path"],
        start=start.render({"row": row}),
        mark=mark.render({"row": row}),
        end=end.render({"row": row}),
    )


def _choice_fields(form):
    return [form[name] for name in ("game", "limit", "currency", "status", "tag")]


def _results_context(filters: LobbyFilter, params: dict, page_number: str, valid: bool) -> dict:
    if not valid:
        return {"errors": filters.error_message()}
    page = Paginator(tournament_list_for_lobby(filters), LOBBY_PAGE_SIZE).get_page(page_number)
    write_row = LobbyRowWriter()
    return {
        "page": page,
        "rows": [write_row(row) for row in page.object_list],
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
        column: dict[str, object] = {"label": label, "url": None, "sort": False}
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


BETTING_SHORT = {BettingStructure.NO_LIMIT: "NL", BettingStructure.POT_LIMIT: "PL", BettingStructure.FIXED_LIMIT: "FL"}


class LobbyRowWriter:
    """Writes the lobby's rows as text, for the results template to place as they
    are, with the functions its tags and filters would use. One render's rows share a
    language and time zone, so each label, amount, start time and tag (they repeat
    from row to row) is written once."""

    def __init__(self):
        self.now = timezone.now()
        # Translators: a date format for the date filter: D weekday, j day, M month (b: lower case), Y year, H:i time.
        self.start_format = _("D j M, H:i")
        self.game_labels = {game: str(label) for game, label in Game.choices}
        self.status_labels = {status: str(label) for status, label in Status.choices}
        self.deal_label = str(_("Deal in progress"))
        self.zone = timezone.get_current_timezone()
        self.money = functools.cache(money)
        self.buy_in_text = functools.cache(functools.partial(buy_in_text, write_money=self.money))
        self.start_text = functools.cache(self._start_text)  # events often start together
        self.tag_html = functools.cache(self._tag_html)
        # Integers are only ever grouped ("1,000"); where 1000 is written "1000" here,
        # str() writes every integer as the template would.
        self.integer = str if formats.localize(1000) == "1000" else formats.localize

    def _registration_refusal(self, row: dict) -> str | None:
        return registration_refusal(
            now=self.now,
            status=row["status"],
            window=registration_window(row),
            entries=row["entries_count"],
            capacity=row["max_entrants"],
        )

    def _start_text(self, start) -> str:
        return formats.date_format(start, self.start_format)

    @staticmethod
    def _tag_html(tag: str) -> str:
        return get_template("lobby/lobby.html#tag").render({"tag": tag})

    def __call__(self, row: dict) -> dict:
        pool_currency = pricing.pool_currency(entry_kind=row["entry_kind"], currency=row["currency"])
        registration_path = (
            "" if self._registration_refusal(row) else reverse("lobby:registration_row", args=[row["id"]])
        )
        start = row["scheduled_start"].astimezone(self.zone)  # timezone.localtime(), as the date filter does
        tags = tournament_tags(
            bounty_kind=row["bounty_kind"],
            satellite_target_id=row["satellite_target_id"],
            rebuy_chips=row["rebuy_chips"],
            speed=row["speed"],
            heads_up=row["heads_up"],
            deepstack=row["deepstack"],
        )
        return {
            "id": row["id"],
            "status": row["status"],
            # A Sit & Go starts when its seats are full, not at a time.
            "when_full": row["sit_and_go_id"] is not None and row["scheduled_start"] > self.now,
            "start_iso": start.isoformat(),  # what the date filter writes for "c"
            "start_text": self.start_text(start),
            "info_path": reverse("lobby:tournament", args=[row["id"]]),
            # The registration service's own rule (rule 9): closed, not open yet, full.
            "registration_path": registration_path,
            "mark_path": reverse("lobby:own_mark", args=[row["id"]]),
            "mark_key": own_mark_key(row["status"], registration_path),
            "name": row["name"],
            "game_label": f"{BETTING_SHORT[row['betting']]} {self.game_labels[row['game']]}",
            "buy_in_text": self.buy_in_text(
                entry_kind=row["entry_kind"],
                currency=pool_currency,
                buy_in=row["buy_in"],
                bounty=row["bounty_amount"],
                fee=row["fee"],
            ),
            "entrants": f"{self.integer(row['entries_count'])} / {self.integer(row['max_entrants'])}",
            "pool_text": self.money(row["pool"], pool_currency),
            "guarantee_text": self.money(row["guarantee"], pool_currency) if row["guarantee"] else "",
            "status_label": self.deal_label if row["deal_in_progress"] else self.status_labels[row["status"]],
            # Rule 28, once it is known: named bounty players who did not play carry none.
            "absent_bounty_players": row["absent_bounty_players"]
            if row["bounty_kind"] == BountyKind.FIXED and row["status"] in ENTRIES_CLOSED
            else 0,
            "tags_html": mark_safe("".join([self.tag_html(tag) for tag in tags])),  # noqa: S308 (our renders)
        }


def buy_in_text(*, entry_kind: str, currency: str, buy_in: int, bounty: int, fee: int, write_money=money) -> str:
    """ "€10 + €10 + €2": buy-in, bounty (when there is one) and fee, as the room writes
    them; `write_money` writes each amount (the lobby passes its memo of `money`)."""
    if entry_kind == EntryKind.FREEROLL:
        return _("Freeroll")
    parts = [write_money(buy_in, currency)]
    if bounty:
        parts.append(write_money(bounty, currency))
    parts.append(write_money(fee, currency))
    text = " + ".join(parts)
    return _("Ticket (%(value)s)") % {"value": text} if entry_kind == EntryKind.TICKET_ONLY else text


def tournament_info(request, pk: int):
    """Tournament Info (rule 3): every parameter, the levels, breaks, deadlines and payouts."""
    tournament = get_object_or_404(Tournament.objects.select_related("blind_structure", "satellite_target"), pk=pk)
    context = info_live_context(tournament, timezone.now())
    context["schedule"] = tournament_schedule(tournament)
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
    if request.user.is_authenticated and tournament.started_at:
        context["own_table"] = playing_at(tournament.status, player_marks(request.user.pk, [pk]).get(pk))
    context |= players_context(tournament, search="", page_number="1")
    context["bounty_players"] = bounty_players(tournament)
    return render(request, "lobby/tournament_info.html", context)


def info_live_context(tournament: Tournament, now) -> dict:
    """What Tournament Info shows that changes while it is open (tournament_live_html),
    the same for everyone: the viewer's own table is theirs alone (own_mark)."""
    tables = tables_list(tournament) if tournament.started_at else []
    payouts = tournament_payouts(tournament, now=now)
    return {
        "tournament": tournament,
        "deadlines": tournament_deadlines(tournament),
        "payouts": payouts,
        "pool_currency": tournament.pool_currency,
        "satellites": tournament.satellites.order_by("scheduled_start").values("id", "name", "scheduled_start"),
        "now": now,
        "clock": tournament_clock(tournament),
        "tables": tables,
        "own_key": _seating_key(tournament, tables),
        "chip_leaders": chip_leaders(tournament) if tournament.started_at else [],
        **_standings(tournament),
        "final_table": final_table(tournament) if tournament.status == Status.FINISHED else None,
        **_charts(tournament, payouts),
    }


# Tournament Info's finished places: the best so far (the latest out, while it runs);
# the players list has every player's place, page by page.
STANDINGS_SHOWN = 50


def _standings(tournament: Tournament) -> dict:
    standings = tournament_standings(tournament, best=STANDINGS_SHOWN + 1) if tournament.started_at else []
    return {"standings": standings[:STANDINGS_SHOWN], "standings_more": len(standings) > STANDINGS_SHOWN}


# Places in the prize chart: the rest of a long payout table is in the table beside it.
CHART_SECONDS = 15
PRIZE_CHART_PLACES = 30


def _charts(tournament: Tournament, payouts) -> dict:
    """Tournament Info's charts (lobby.charts): the prizes by place, and once it has
    started the players left and the average stack over time."""
    # Read again at most every CHART_SECONDS: a live update of the page (a hand ending
    # somewhere) must not read every leader's hands each time.
    key = f"charts:{tournament.pk}:{tournament.status}"
    field, leaders = cast(
        tuple[list[FieldPoint], list[LeaderStacks]],
        cache.get_or_set(key, lambda: (field_over_time(tournament), chip_leaders_over_time(tournament)), CHART_SECONDS),
    )
    return {
        "leaders": leaders,
        "leaders_chart": time_chart([leader.stacks for leader in leaders]) if leaders else None,
        "prize_chart": bar_chart(list(payouts.places[:PRIZE_CHART_PLACES])) if payouts.places else None,
        "field": field,
        "field_chart": line_chart([(point.at, point.players_left) for point in field]) if len(field) > 1 else None,
        "stack_chart": line_chart([(point.at, point.average_stack) for point in field]) if len(field) > 1 else None,
    }


def tournament_live_html(
    tournament: Tournament, now, *, clock_only: bool = False, shared: Mapping[str, object] | None = None
) -> str:
    """Tournament Info's changing parts, to swap in out of band (lobby.live): status,
    entrants, prizes, tables, the players list's first page and the clock, or the
    clock alone. `shared`: info_live_context's answer, when the caller renders the
    parts in every language from one read."""
    if clock_only:
        context = {"tournament": tournament, "clock": tournament_clock(tournament), "now": now, "oob": True}
        return render_to_string("lobby/clock_card.html", context)
    context = {**(info_live_context(tournament, now) if shared is None else shared), "oob": True}
    players = {"tournament": tournament, **players_context(tournament, search="", page_number="1"), "oob": True}
    return (
        "".join(
            render_to_string(f"lobby/tournament_info.html#{part}", context)
            for part in ("status", "entrants", "prizes", "field", "tables")
        )
        + render_to_string("lobby/players.html#list", players)
        + render_to_string("lobby/clock_card.html", context)
    )


def lobby_row_html(tournament_id: int) -> str:
    """The event's lobby row, to swap in out of band (lobby.live); empty for an event
    the lobby does not list."""
    row = _lobby_row(tournament_id)
    return "" if row is None else render_to_string("lobby/lobby.html#row", {"row": row, "oob": True})


def _lobby_row(tournament_id: int) -> dict | None:
    """The event's lobby row as LobbyRowWriter writes it, or None for no such event."""
    rows = (
        Tournament.objects.filter(pk=tournament_id)
        .annotate(pool=POOL, absent_bounty_players=ABSENT_BOUNTY_PLAYERS)
        .values(*LOBBY_FIELDS)
    )
    return next(map(LobbyRowWriter(), rows), None)


def tournament_clock_card(request, pk: int):
    """The clock card alone: the page fetches it again when a countdown runs out."""
    tournament = get_object_or_404(Tournament.objects.select_related("blind_structure"), pk=pk)
    context = {"tournament": tournament, "clock": tournament_clock(tournament), "now": timezone.now()}
    return render(request, "lobby/clock_card.html", context)


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
            "length": brk.ends_at - brk.starts_at,
        }
        for brk in schedule.breaks
    ]
    return sorted(items, key=lambda item: (item["starts_at"], not item["is_break"]))
