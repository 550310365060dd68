"""The players' pages about who plays: a player's own events ("My tournaments"), and
an event's players with their stacks, ranks and places (Tournament Info's list)."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.views.decorators.cache import never_cache

from accounts.models import User
from lobby.charts import line_chart
from tournaments.models import BountyKind, Status, Tournament
from tournaments.selectors.bounties import bounties_won, bounty_heads
from tournaments.selectors.leader_boards import finish_points_of
from tournaments.selectors.lobby import playing_at
from tournaments.selectors.payouts import public_prize
from tournaments.selectors.players import field_ranks, player_events, tournament_players
from tournaments.selectors.results import player_results as results_of
from tournaments.selectors.results import running_total

PLAYERS_PAGE_SIZE = 50


@never_cache  # someone's own entries: no shared or back-button copies
@login_required
def my_tournaments(request):
    """The signed-in player's own events (it takes no id: never anyone else's)."""
    return render(request, "lobby/my_tournaments.html", {"events": player_events(request.user.pk, now=timezone.now())})


def players(request, pk: int):
    """An event's players, searched by screen name and paginated: the page, or only
    the list when htmx asks for it (Tournament Info's search box and pages)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    search = request.GET.get("q", "").strip()[:50]
    context = {
        "tournament": tournament,
        **players_context(tournament, search=search, page_number=request.GET.get("page", "1")),
    }
    template = "lobby/players.html#list" if request.htmx else "lobby/players.html"
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request",))
    return response


def players_context(tournament: Tournament, *, search: str, page_number: str) -> dict:
    """One page of the event's players as the list shows them; rank only once it has
    started, for those still in."""
    page = Paginator(tournament_players(tournament, search=search), PLAYERS_PAGE_SIZE).get_page(page_number)
    started = tournament.started_at is not None
    bounties = tournament.bounty_kind != BountyKind.NONE
    on_page = list(page.object_list)
    ranks = field_ranks(tournament, {row["chips"] for row in on_page if not row["out"]}) if started else {}
    heads = bounty_heads(tournament, [row["pk"] for row in on_page if not row["out"]]) if bounties else {}
    won = bounties_won(tournament, [row["player_id"] for row in on_page]) if bounties else {}
    with_points = tournament.status == Status.FINISHED and tournament.leader_board
    points = finish_points_of([row["pk"] for row in on_page]) if with_points else {}
    rows = []
    for row in on_page:
        prize, forfeited = public_prize(row["prize"], row["prize_hold"])
        rows.append(
            {
                "name": row["player__screen_name"],
                "in": not row["out"],
                "table": playing_at(tournament.status, row["seated_at"]),
                "chips": row["chips"],
                "rank": ranks.get(row["chips"]) if not row["out"] else None,
                "place": _place(row["finish_best"], row["finish_worst"]),
                "prize": prize,
                "forfeited": forfeited,
                "bounty": heads.get(row["pk"], 0),
                "bounties_won": won.get(row["player_id"], 0),
                "points": points.get(row["pk"]),
            }
        )
    path = reverse("lobby:players", args=[tournament.pk])

    def url(number: int) -> str:
        query = {"q": search} if search else {}
        if number > 1:
            query["page"] = str(number)
        return f"{path}?{urlencode(query)}" if query else path

    return {
        "players_path": path,
        "players_url": url(page.number),
        "players_search": search,
        "players_page": page,
        "players": rows,
        "players_started": started,
        "players_bounties": bounties,
        "players_points": with_points,
        "players_previous_url": url(page.previous_page_number()) if page.has_previous() else None,
        "players_next_url": url(page.next_page_number()) if page.has_next() else None,
    }


def _place(best: int | None, worst: int | None) -> str:
    if best is None:
        return ""
    return f"{best}" if best == worst else f"{best}-{worst}"


def player_results(request, user_id: int):
    """A player's results: what the room shows of them in public; his own page (the
    same address, signed in as him) adds what he paid and his net."""
    player = get_object_or_404(User, pk=user_id, is_active=True)
    own = request.user.is_authenticated and request.user.pk == player.pk
    results, totals = results_of(player.pk, own=own)
    currencies = sorted({result.currency for result in results})
    charts = []
    for currency in currencies:
        over_time = running_total(results, currency, own=own)
        # From 0 before the first event: a step up or down at each one.
        chart = line_chart([(over_time[0][0], 0), *over_time])
        charts.append({"currency": currency, "chart": chart, "rows": over_time})
    response = render(
        request,
        "lobby/results.html",
        {
            "player": player,
            "own": own,
            "results": results,
            "totals": totals,
            "won": sorted(totals.won.items()),
            "net": sorted((money, totals.won[money] - totals.paid[money]) for money in totals.paid) if own else [],
            "charts": charts,
        },
    )
    patch_vary_headers(response, ("Cookie",))
    return response


@login_required
def my_results(request):
    return redirect("lobby:player_results", user_id=request.user.pk)
