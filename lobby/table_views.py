"""The table page (rules 5, 6, 14, 15, 18): anyone may watch a table; a player seated
there also sees his own cards and acts with the buttons. The watched part goes to
everyone (the table's live group); the player's own part is rendered for him alone,
sent to his own group as it changes (lobby.live) or fetched by his page, and follows
him when he is moved to another table."""

from collections.abc import Sequence
from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from accounts.models import User
from live.groups import group_name
from lobby.forms import SitOutForm, TableActionForm
from tournaments.models import ENTERED, Entry, EntryStatus, Hand, Table, Tournament
from tournaments.rules.hands import LogLine, ShownHand
from tournaments.selectors.entries import entry_time_bank, seated_entries
from tournaments.selectors.standings import tournament_clock
from tournaments.selectors.tables import (
    InPlayView,
    OwnSeat,
    SeatState,
    TableState,
    table_current,
    table_hand,
    table_own,
)
from tournaments.services.chat import chat_post, chat_shown
from tournaments.services.refusals import TournamentError, refuse
from tournaments.services.tables import entry_sit_out, hand_act


class SignedInRequest(HttpRequest):
    """A request to a login_required view, as the middleware leaves it: htmx's details, a user."""

    htmx: HtmxDetails
    user: User


@never_cache  # his own cards: no shared or back-button copies
@require_GET
def table_view(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One table: seats, stacks, bets, the board and pot, the button and blinds, whose
    turn it is; to a player seated there, his cards and his choices."""
    tournament, table = _table(pk, number)
    return render(request, "lobby/table.html", _context(request, tournament, table))


# Tables a player may play on one page: more at once could not be followed.
MY_TABLES_MOST = 4


@never_cache  # his own cards: no shared or back-button copies
@require_GET
@login_required
def my_tables(request: SignedInRequest) -> HttpResponse:
    """Every table where the player is seated, side by side (the one waiting for him
    first: the page marks it and says so in its title); each as its own page shows it
    and kept live by the same updates, so a move to another table follows him here."""
    language = translation.get_language()
    tables, groups = [], [group_name("own", user_id=request.user.pk, language=language)]
    for entry in seated_entries(request.user.pk, most=MY_TABLES_MOST):
        table = entry.table
        assert table is not None  # filtered
        tournament = table.tournament
        state = table_hand(tournament, table)
        tables.append(
            {
                "tournament": tournament,
                "table": table,
                "state": state,
                "own": table_own_seat(tournament, table, state.hand, state.played, entry),
                "clock": tournament_clock(tournament),
            }
        )
        groups += [f"table-{tournament.pk}-{table.number}.{language}", f"tables-{tournament.pk}.{language}"]
    return render(request, "lobby/my_tables.html", {"tables": tables, "live_groups": ",".join(groups)})


@never_cache  # his own cards: no shared or back-button copies
@require_GET
@login_required
def table_own_part(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """The player's own part of the page, fetched again each time his table changes;
    when he has been moved, his page follows him to his new table."""
    # His entry with his table and its event, in one read: mostly all the part needs but the hand.
    entry = _entered(Entry.objects.select_related("table__tournament"), pk, request.user.pk)
    if entry is not None and entry.table is not None and entry.table.number == number:
        tournament, table = entry.table.tournament, entry.table
    else:
        tournament, table = _table(pk, number)
    if entry is not None and entry.table_id not in (None, table.pk) and request.htmx:
        # Moved: his table page goes to his new table; his tables' page shows it in its place.
        mine = reverse("lobby:my_tables")
        if urlsplit(request.htmx.current_url or "").path == mine:
            return HttpResponseClientRedirect(mine)
        return HttpResponseClientRedirect(reverse("lobby:table", args=[pk, entry.table.number]))  # type: ignore[union-attr]  # table_id is set
    return _own_response(request, tournament, table, entry=entry)


@never_cache  # his own cards: no shared or back-button copies
@require_POST
@login_required
def table_act(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """The player's action: fold, check or call, bet or raise to an amount."""
    form = TableActionForm(request.POST)
    if not form.is_valid():
        # The hand and its count of actions are the page's own: changed, they name no turn.
        moved_on = "hand" in form.errors or "at" in form.errors
        error = refuse("hand_moved_on").message if moved_on else _("Choose an action and a whole number of chips.")
        return _own_response(request, *_table(pk, number), error=error)
    try:
        played = hand_act(
            hand_id=form.cleaned_data["hand"],
            player_id=request.user.pk,
            at=form.cleaned_data["at"],
            kind=form.cleaned_data["kind"],
            amount=form.cleaned_data["amount"],
            now=timezone.now(),
        )
    except TournamentError as refused:
        return _own_response(request, *_table(pk, number), error=refused.message)
    table = played.table
    if (table.tournament_id, table.number) != (pk, number):  # a hand of another table, named in this one's form
        return _own_response(request, *_table(pk, number))
    # His part as his action left it: the hand, his entry and his table need no reading again.
    tournament = table.tournament
    own = table_own(
        played.hand,
        played.shown,
        played.entry,
        time_bank_ms=entry_time_bank(played.entry, tournament),
        action_seconds=tournament.action_seconds,
    )
    return _own_html(request, tournament, table, own)


@never_cache  # his own cards: no shared or back-button copies
@require_POST
@login_required
def table_sit(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """Sit out (dealt in, folded or checked at once: rule 18.4) or come back."""
    tournament, table = _table(pk, number)
    form = SitOutForm(request.POST)
    if not form.is_valid():
        return _own_response(request, tournament, table, error=_("Choose to sit out or to sit in."))
    try:
        entry_sit_out(
            tournament_id=tournament.pk,
            player_id=request.user.pk,
            sitting_out=form.cleaned_data["sitting_out"],
            now=timezone.now(),
        )
    except TournamentError as refused:
        return _own_response(request, tournament, table, error=refused.message)
    return _own_response(request, tournament, table)


@require_POST
@login_required
def table_chat(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """A message in the table's chat (rule 19: one discussing the hand in play is held back)."""
    tournament, table = _table(pk, number)
    try:
        posted = chat_post(
            tournament_id=tournament.pk,
            table=table.number,
            player=request.user,
            text=request.POST.get("text", ""),
            now=timezone.now(),
        )
    except TournamentError as refused:
        return _chat_response(request, tournament, table, error=refused.message, text=request.POST.get("text", ""))
    if posted.held:
        warning = _(
            "Not sent: while a hand is in play, players may not discuss it (rule 19). Support can see held messages."
        )
        return _chat_response(request, tournament, table, error=warning, text=posted.message.text)
    return _chat_response(request, tournament, table)


def table_chat_html(table: Table) -> str:
    """The table's chat log, to swap in out of band (lobby.live)."""
    context = {"tournament": table.tournament, "table": table, "chat": chat_shown(table), "oob": True}
    return render_to_string("lobby/table.html#chat", context)


def table_live_html(table: Table, state: TableState | None = None) -> str:
    """The watched part of a table (read with its tournament), to swap in out of band
    (lobby.live): what changes with each action; from `state` when the caller has
    read it (table_hand) for every language's part. The last hands
    (table_recent_html) and the event's clock (table_clock_html) are parts of their own."""
    tournament = table.tournament
    context = {"state": state or table_hand(tournament, table, recent=False), "oob": True}
    return render_to_string("lobby/table.html#watched", {**context, "tournament": tournament, "table": table})


def table_moved_html(
    tournament_id: int,
    number: int,
    view: InPlayView,
    seats: list[SeatState],
    *,
    felt: bool,
    lines: Sequence[LogLine] = (),
) -> str:
    """What changed at a table whose hand goes on, to swap in out of band (lobby.live):
    `seats` (as the table shows them now), if `felt` the board and the pot, and the
    `lines` the hand's log gained; from the hand as its turn left it, without a read."""
    context = {
        "tournament": {"pk": tournament_id, "pool_currency": view.currency},
        "table": {"number": number},
        "state": {
            "board": view.board,
            "pot": view.pot,
            "in_play": True,
            "deadline_at": view.deadline_at,
            "extra_time": view.extra_time,
            "action_ends_at": view.action_ends_at,
            "bank_ms": view.bank_ms,
            "seats": view.seats,
        },
        "piece": True,
    }
    parts = [render_to_string("lobby/table.html#seat", {**context, "seat": seat}) for seat in seats]
    if felt:
        parts.append(render_to_string("lobby/table.html#felt", context))
    if lines:
        parts.append(render_to_string("lobby/table.html#log_added", {**context, "lines": lines}))
    return "".join(parts)


def table_own_html(own: OwnSeat | None, *, tournament_id: int, table_id: int, number: int) -> str:
    """A player's own part (his cards, his choices) at a table, to swap in out of band
    on his pages alone (lobby.live sends it to his own group), without a read: without
    a CSRF token too, which his page's htmx sends with each request."""
    context = {
        "tournament": {"pk": tournament_id},
        "table": {"pk": table_id, "number": number},
        "own": own,
        "oob": True,
    }
    return render_to_string("lobby/table.html#own", context)


def table_recent_html(table: Table, state: TableState | None = None) -> str:
    """The table's last hands and the deck commitment of the one in play, to swap in
    out of band (lobby.live): what changes with each hand; from `state` (read with
    the last hands) when the caller has it."""
    tournament = table.tournament
    context = {"state": state or table_hand(tournament, table), "oob": True}
    return render_to_string("lobby/table.html#recent", {**context, "tournament": tournament, "table": table})


def table_clock_html(tournament: Tournament) -> str:
    """What every table page shows of the event (level, blinds, players left), to swap
    in out of band (lobby.live): it changes with the event, not with a table's action."""
    context = {"tournament": tournament, "clock": tournament_clock(tournament), "oob": True}
    return render_to_string("lobby/table.html#clock", context)


def _table(pk: int, number: int) -> tuple[Tournament, Table]:
    """The table with its event, in one read: every action and every fetch of a
    player's own part starts here."""
    try:
        # get(): one row by its unique key, read without ordering a hundred columns.
        table = Table.objects.select_related("tournament__blind_structure").get(tournament=pk, number=number)
    except Table.DoesNotExist:
        get_object_or_404(Tournament, pk=pk)
        raise Http404(_("This tournament has no such table.")) from None
    return table.tournament, table


def _entry(request: HttpRequest, tournament: Tournament) -> Entry | None:
    if not request.user.is_authenticated:
        return None
    return _entered(Entry.objects.select_related("table"), tournament.pk, request.user.pk)


def _entered(entries: "QuerySet[Entry]", tournament_id: int, player_id: int) -> Entry | None:
    """The player's entry in the tournament, if he is entered (one at most: rule 9)."""
    try:
        return entries.get(tournament=tournament_id, player=player_id, status__in=ENTERED)
    except Entry.DoesNotExist:
        return None


def _context(request: HttpRequest, tournament: Tournament, table: Table, *, error: str = "") -> dict:
    entry = _entry(request, tournament)
    state = table_hand(tournament, table)
    return {
        "tournament": tournament,
        "table": table,
        "state": state,
        "own": table_own_seat(tournament, table, state.hand, state.played, entry),
        "error": error,
        "chat": chat_shown(table),
        # Only the players seated here write; everyone else reads.
        "can_chat": entry is not None and entry.table_id == table.pk and entry.status == EntryStatus.ACTIVE,
        "clock": tournament_clock(tournament),
        "now": timezone.now(),
    }


def table_own_seat(
    tournament: Tournament, table: Table, hand: Hand | None, played: ShownHand | None, entry: Entry | None
) -> OwnSeat | None:
    """The player's own part at `table`, whose hand in play (or last) is `hand`."""
    if entry is None:
        return None
    in_hand = hand is not None and str(entry.pk) in {str(pk) for pk in hand.seats.values()}
    if entry.table_id != table.pk and not in_hand:
        return None
    return table_own(
        hand, played, entry, time_bank_ms=entry_time_bank(entry, tournament), action_seconds=tournament.action_seconds
    )


def _chat_response(
    request: HttpRequest, tournament: Tournament, table: Table, *, error: str = "", text: str = ""
) -> HttpResponse:
    """The chat form (with what went wrong, and the text kept) and the log out of band."""
    context = {"tournament": tournament, "table": table, "chat": chat_shown(table), "can_chat": True}
    form = render_to_string("lobby/table.html#chat_form", {**context, "chat_error": error, "chat_text": text}, request)
    log = render_to_string("lobby/table.html#chat", {**context, "oob": True}, request)
    return HttpResponse(form + log, status=400 if error else 200)


def _own_response(
    request: HttpRequest, tournament: Tournament, table: Table, *, error: str = "", entry: Entry | None = None
) -> HttpResponse:
    """The player's own part alone (`entry`: his, if the view has read it already): it
    needs the hand at the table, not the rest of the table."""
    own = table_own_seat(tournament, table, *table_current(table), entry or _entry(request, tournament))
    return _own_html(request, tournament, table, own, error=error)


def _own_html(
    request: HttpRequest, tournament: Tournament, table: Table, own: OwnSeat | None, *, error: str = ""
) -> HttpResponse:
    context = {"tournament": tournament, "table": table, "own": own, "error": error}
    html = render_to_string("lobby/table.html#own", context, request)
    return HttpResponse(html, status=400 if error else 200)
