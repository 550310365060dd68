"""The Leader Boards (issue 29): a page per board and period, the player's own row
highlighted and shown even when it is not on the page in view; live while events
finish (the page's list is fetched again when points are earned or withdrawn)."""

import functools
from datetime import date
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache

from tournaments.models import BoardKind, LeaderBoard
from tournaments.rules.leader_boards import Period, previous_day
from tournaments.selectors.leader_boards import board_span, board_standings, board_totals, own_standing, room_zone

BOARD_PAGE_SIZE = 50


@never_cache  # the viewer's own row
def leader_board(request: HttpRequest, kind: str, period: str) -> HttpResponse:
    """One board in one period (`?date=` any day of it, in the room's time zone; today
    by default): its standings, paginated, the viewer's own place above them."""
    if kind not in BoardKind.values or period not in Period.__members__.values():
        raise Http404(_("No such Leader Board."))
    today = timezone.now().astimezone(room_zone()).date()
    try:
        day = date.fromisoformat(request.GET["date"]) if request.GET.get("date") else today
    except ValueError:
        return render(
            request,
            "lobby/leader_board.html",
            {"error": _("Give the date as year-month-day, for example 2026-12-06."), **_tabs(kind, period)},
            status=400,
        )
    span = board_span(Period(period), day)
    totals = board_totals(kind, span)
    page = Paginator(totals, BOARD_PAGE_SIZE).get_page(request.GET.get("page", "1"))
    standings = board_standings(totals, list(page.object_list), page.start_index() or 1)
    mine = own_standing(totals, request.user.pk) if request.user.is_authenticated else None
    here = reverse("lobby:leader_board", args=[kind, period])
    params = {"date": day.isoformat()}
    board = LeaderBoard.objects.filter(kind=kind).first() or LeaderBoard(kind=kind)
    context = {
        **_tabs(kind, period),
        "board": board,
        "span": span,
        "last_day": date.fromordinal(span.end.date().toordinal() - 1),
        "standings": standings,
        "page": page,
        "mine": mine,
        "mine_shown": mine is not None and any(row.player_id == mine.player_id for row in standings),
        "view_url": f"{here}?{urlencode({**params, 'page': page.number})}",
        "earlier_url": f"{here}?{urlencode({'date': previous_day(span).isoformat()})}",
        "later_url": f"{here}?{urlencode({'date': span.end.date().isoformat()})}" if span.end.date() <= today else None,
        "previous_page_url": f"{here}?{urlencode({**params, 'page': page.number - 1})}"
        if page.has_previous()
        else None,
        "next_page_url": f"{here}?{urlencode({**params, 'page': page.number + 1})}" if page.has_next() else None,
    }
    template = "lobby/leader_board.html#standings" if request.htmx else "lobby/leader_board.html"  # type: ignore[attr-defined]  # django-htmx's middleware
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request",))
    return response


def _page_url(here: str, params: dict, number: int) -> str:
    return f"{here}?{urlencode({**params, 'page': number})}"


PERIOD_LABELS = (
    (Period.DAY, gettext_lazy("Day")),
    (Period.MONTH, gettext_lazy("Month")),
    (Period.YEAR, gettext_lazy("Year")),
)


def _tabs(kind: str, period: str) -> dict:
    board = functools.partial(reverse, "lobby:leader_board")
    return {
        "kind": kind,
        "period": period,
        "boards": [(value, label, board(args=[value, period])) for value, label in BoardKind.choices],
        "periods": [(value, label, board(args=[kind, value])) for value, label in PERIOD_LABELS],
    }
