"""What the tournaments' and the ledger's committed events (tournaments.events,
wallet.events) mean to the pages: messages for live.delivery, which sends them to
the groups somebody listens to (live.groups), carried by static/js/portal.js.

- Shared groups get rendered partials that htmx swaps in out of band: the lobby's
  row of an event, and Tournament Info's status, entrants, prizes and clock
  (the clock alone when that is all that changed). Rendered once per language, in
  UTC (the browser shows times in its own zone), at most once a second per event
  (live.throttle), a hand's chips alone every CHIPS_SECONDS. A new event asks
  every lobby to fetch its list again: where it goes depends on each viewer's
  filters.
- A table's group gets the hand in play as anyone watching sees it (seats, stacks,
  bets, board, pot, whose turn) with each action, and the last hands when a hand
  ends or is dealt. The players whose own part changed (whose turn it was or is;
  everyone dealt in at a hand's end) get it, rendered for each alone, on their own
  group (`own-<id>.<language>`, which only they may join): their hole cards and
  choices are never in a shared message. What every table page shows of the
  event (level, blinds, players left) goes with Tournament Info's parts to the
  event's tables group: an action does not render it.
- A player's `user-<id>` group gets only the names of what to fetch again (their
  registration card, their "Registered" mark on the lobby's row, their balances):
  what is private is rendered for them alone, by the request that fetches it.
"""

import datetime
import functools
import json
from collections.abc import Callable, Sequence

from celery import signature
from django.core.cache import cache
from django.utils import timezone, translation

from live.delivery import Message, Part, Refresh, publisher, send
from live.groups import LANGUAGES, group_name, listened_key
from live.throttle import Throttle
from lobby.table_views import (
    table_chat_html,
    table_clock_html,
    table_live_html,
    table_moved_html,
    table_own_html,
    table_own_seat,
    table_recent_html,
)
from lobby.views import info_live_context, lobby_row_html, tournament_live_html
from tournaments.events import (
    EntryChanged,
    HandMovedOn,
    LeaderBoardChanged,
    TableChatted,
    TablesChanged,
    TournamentChanged,
)
from tournaments.models import ENTERED, Entry, Hand, Table, Tournament
from tournaments.rules.hands import LogLine
from tournaments.selectors.tables import InPlayView, OwnSeat, SeatState, TableState, seats_shown, table_hand
from wallet.events import BalancesChanged

RELOAD = json.dumps({"reload": True})
# Every table page of an event hears of its players left at most this often (a level
# or a pause, at once).
TABLES_SECONDS = 10
# A hand's chips (nobody out) reach an event's lobby row and Tournament Info at most
# this often: a big field's tables end several hands a second, and Info lists every
# table's stacks. A player out, a level, a registration: within the second.
CHIPS_SECONDS = 10
# Their end-of-pace messages (lobby.tasks, which call this module): sent by name.
TOURNAMENT_TASK = "lobby.tasks.tournament_publish_task"
TABLES_TASK = "lobby.tasks.tables_publish_task"

Reader = Callable[[], Tournament | None]


def connect() -> None:
    """Publish the services' committed events (LobbyConfig.ready)."""
    publisher(publish)


def publish(events: Sequence[object]) -> list[Message]:
    """The messages of one commit's events: each group's once, whatever the events repeat."""
    changed: dict[int, tuple[bool, bool, bool]] = {}  # by tournament: only its clock, only chips, only hands' reports
    created: set[int] = set()
    clocked: set[int] = set()  # the events whose clock changed
    refreshes: list[Message] = []
    chats: set[tuple[int, int]] = set()
    for event in events:
        match event:
            case TournamentChanged(
                tournament_id=tournament_id,
                created=new,
                clock_only=clock_only,
                chips_only=chips,
                clock=clock,
                hand=hand,
            ):
                clocks, chipped, hands = changed.get(tournament_id, (True, True, True))
                changed[tournament_id] = (clocks and clock_only, chipped and chips, hands and hand)
                if new:
                    created.add(tournament_id)
                if clock:
                    clocked.add(tournament_id)
            case TableChatted(tournament_id=tournament_id, number=number):
                chats.add((tournament_id, number))
            case EntryChanged(tournament_id=tournament_id, player_id=player_id):
                names = (f"registration-{tournament_id}", f"lobby-mark-{tournament_id}")
                refreshes.append(Refresh(group_name("user", user_id=player_id), names))
            case BalancesChanged(owner_ids=owner_ids):
                refreshes += [Refresh(group_name("user", user_id=owner), ("balances",)) for owner in sorted(owner_ids)]
            case LeaderBoardChanged():
                boards = [
                    Refresh(group_name("leader-boards", language=language), ("leader-board",)) for language in LANGUAGES
                ]
                refreshes += [board for board in boards if board not in refreshes]
    messages: list[Message] = []
    if created:  # where a new event goes depends on each viewer's filters: the lobby fetches its list again
        messages += [Part(group_name("lobby", language=language), _reload) for language in LANGUAGES]
    for tournament_id, (clock_only, chips_only, hands_only) in changed.items():
        messages += tournament_parts(
            tournament_id,
            _reader(tournament_id),
            clock_only=clock_only,
            lobby=tournament_id not in created,
            tables=not chips_only,
            # What a hand's report changed waits: the worker renders Info, not the table node; chips alone, longer.
            throttle=_chips_throttle(tournament_id) if chips_only else _throttle(tournament_id, leading=not hands_only),
            # A level or a pause at once; the players left, every few seconds.
            tables_throttle=None if tournament_id in clocked else _tables_throttle(tournament_id),
        )
    changes = [event for event in events if isinstance(event, TablesChanged)]
    messages += tables_messages(changes)
    messages += hands_messages([event for event in events if isinstance(event, HandMovedOn)], changes)
    for tournament_id, number in sorted(chats):
        messages += chat_parts(tournament_id, number)
    return messages + refreshes


def tables_messages(changes: Sequence[TablesChanged]) -> list[Message]:
    """Each changed table to its watchers; the players whose own part changed (as the
    events say, or found: own_seat_players) sent it (own_parts)."""
    tables: dict[int, set[int]] = {}  # by event, the tables changed
    hands: dict[int, set[int]] = {}  # by event, the tables whose last hands changed too
    unknown: dict[int, set[int]] = {}  # by event, the tables whose players are to be found
    told: set[tuple[int, int]] = set()  # (event, player)
    for change in changes:
        tables.setdefault(change.tournament_id, set()).update(change.numbers)
        if not change.in_play:
            hands.setdefault(change.tournament_id, set()).update(change.numbers)
        if change.players is None:
            unknown.setdefault(change.tournament_id, set()).update(change.numbers)
        else:
            told.update((change.tournament_id, player) for player in change.players)
    for tournament_id, numbers in unknown.items():
        told.update((tournament_id, player) for player in own_seat_players(tournament_id, numbers))
    messages: list[Message] = []
    for tournament_id, numbers in tables.items():
        readers = _readers(tournament_id, sorted(numbers), hands=hands.get(tournament_id, set()))
        messages += table_parts(tournament_id, sorted(numbers), hands=hands.get(tournament_id, set()), readers=readers)
        messages += own_parts(tournament_id, readers, {player for of, player in told if of == tournament_id})
    return messages


def own_parts(tournament_id: int, readers: "_Readers", players: set[int]) -> list[Message]:
    """Each of `players`' own part of the page of his table among those `readers`
    read, rendered for him alone and sent to his own group in the languages his
    table pages are open in; told to fetch it again instead if his table is not among
    them (moved: the page follows him; out). Nothing for those with no table page open."""
    groups = {
        (player, language): group_name("own", user_id=player, language=language)
        for player in players
        for language in LANGUAGES
    }
    found = cache.get_many([listened_key(group) for group in groups.values()]) if groups else {}
    listening = {player for (player, _), group in groups.items() if listened_key(group) in found}
    if not listening:
        return []
    entries = Entry.objects.filter(tournament_id=tournament_id, player_id__in=listening, status__in=ENTERED)
    tables, states = readers
    messages: list[Message] = []
    for entry in entries.select_related("table"):
        number = entry.table.number if entry.table is not None else None
        if number not in tables:
            messages.append(Refresh(group_name("user", user_id=entry.player_id), (f"own-seat-{tournament_id}",)))
            continue
        render = functools.partial(_own_html, tables[number], states[number], entry)
        messages += [
            Part(groups[entry.player_id, language], _in(language, render))
            for language in LANGUAGES
            if listened_key(groups[entry.player_id, language]) in found
        ]
    return messages


def hands_messages(moves: Sequence[HandMovedOn], changes: Sequence[TablesChanged]) -> list[Message]:
    """What changed at each table whose hand went on, to its watchers, and to the
    people whose own part changed, theirs (unless the table is sent whole:
    `changes`, whose players tables_messages sends their own)."""
    whole = {(change.tournament_id, number) for change in changes for number in change.numbers}
    moves = [move for move in moves if (move.tournament_id, move.number) not in whole]
    moved: dict[tuple[int, int], tuple[InPlayView, InPlayView]] = {}
    messages: list[Message] = []
    for move in moves:
        key = (move.tournament_id, move.number)
        first = moved.get(key, (move.before, move.after))[0]
        moved[key] = (first, move.after)
        for own in move.own:
            render = functools.partial(_own_moved_html, move.tournament_id, move.number, own)
            for language in LANGUAGES:
                group = group_name("own", user_id=own.entry.player_id, language=language)
                messages.append(Part(group, _in(language, render)))
    for (tournament_id, number), (before, after) in moved.items():
        seats, felt = after.changed_seats(before), after.felt_changed(before)
        lines = after.log[len(before.log) :]
        if not seats and not felt and not lines:
            continue
        shown = functools.cache(functools.partial(seats_shown, seats, after.people))
        for language in LANGUAGES:
            group = group_name("table", language=language, tournament_id=tournament_id, table=number)
            render = functools.partial(_moved_html, tournament_id, number, after, shown, felt=felt, lines=lines)
            messages.append(Part(group, _in(language, render)))
    return messages


def _moved_html(
    tournament_id: int,
    number: int,
    view: InPlayView,
    seats: Callable[[], list[SeatState]],
    *,
    felt: bool,
    lines: Sequence[LogLine],
) -> str:
    return table_moved_html(tournament_id, number, view, seats(), felt=felt, lines=lines)


def _own_moved_html(tournament_id: int, number: int, own: OwnSeat) -> str:
    table_id = own.hand.table_id if own.hand is not None else own.entry.table_id
    assert table_id is not None  # in the hand at the table
    return table_own_html(own, tournament_id=tournament_id, table_id=table_id, number=number)


def chat_parts(tournament_id: int, number: int) -> list[Part]:
    """The table's chat log, as it is now, to everyone watching the table."""
    table = _table_reader(tournament_id, number)
    return [
        Part(
            group_name("table", language=language, tournament_id=tournament_id, table=number),
            _in(language, functools.partial(_chat_html, table)),
        )
        for language in LANGUAGES
    ]


def own_seat_players(tournament_id: int, numbers: set[int]) -> set[int]:
    """The players at those tables (seated there, or in the hand just played there):
    they fetch their own part of the table page again, as their cards and choices are
    rendered for them alone. Only while one of those tables' pages is open: that part
    is on its table's page alone, whose socket listens to the table's group, so with
    nobody listening there is no one to tell (and no need to look players up)."""
    watched = [
        listened_key(group_name("table", language=language, tournament_id=tournament_id, table=number))
        for number in numbers
        for language in LANGUAGES
    ]
    if not cache.get_many(watched):
        return set()
    players = set(
        Entry.objects.filter(table__tournament_id=tournament_id, table__number__in=numbers).values_list(
            "player_id", flat=True
        )
    )
    entries: set[int] = set()
    # Found through the table's own hands (an index), not among all the tournament's.
    hands = Hand.objects.filter(table__tournament_id=tournament_id).order_by("-pk")
    for number in numbers:  # a handful: the tables one commit changed
        seats = hands.filter(table__number=number).values_list("seats", flat=True).first()
        if seats is not None:
            entries.update(int(entry) for entry in seats.values())
    players.update(Entry.objects.filter(pk__in=entries).values_list("player_id", flat=True))
    return players


def tournament_parts(
    tournament_id: int,
    tournament: Reader,
    *,
    clock_only: bool = False,
    lobby: bool = True,
    tables: bool = True,
    throttle: Throttle | None = None,
    tables_throttle: Throttle | None = None,
) -> list[Part]:
    """The event's lobby row (if `lobby` and not only its clock changed) and Tournament
    Info's changing parts (the clock alone if `clock_only`), at the pace of `throttle`;
    its table pages' line (if `tables`: not when only chips changed), at the pace of
    `tables_throttle` (at once, if None); in every language."""
    now = timezone.now()
    shared = _info_context(tournament, now)
    parts = []
    for language in LANGUAGES:
        if lobby and not clock_only:
            row = _in(language, functools.partial(lobby_row_html, tournament_id))
            parts.append(Part(group_name("lobby", language=language), row, throttle))
        info = _in(language, functools.partial(_info_html, tournament, shared, now, clock_only))
        parts.append(Part(group_name("tournament", language=language, tournament_id=tournament_id), info, throttle))
        if tables:
            clock = _in(language, functools.partial(_clock_html, tournament))
            group = group_name("tables", language=language, tournament_id=tournament_id)
            parts.append(Part(group, clock, tables_throttle))
    return parts


TableReader = Callable[[], Table | None]
StateReader = Callable[[], TableState | None]
_Readers = tuple[dict[int, TableReader], dict[int, StateReader]]


def _readers(tournament_id: int, numbers: list[int], *, hands: set[int]) -> _Readers:
    """Each table and what anyone watching it sees, read once when a part first
    needs it; with the last hands for those in `hands`."""
    tables = {number: _table_reader(tournament_id, number) for number in numbers}
    return tables, {number: _state_reader(tables[number], recent=number in hands) for number in numbers}


def table_parts(
    tournament_id: int, numbers: list[int], *, hands: set[int], readers: _Readers | None = None
) -> list[Part]:
    """Each changed table as it is now, and the last hands of those in `hands` (the
    others' only moved on in the hand in play). Not throttled: a table changes with
    each action."""
    tables, states = readers or _readers(tournament_id, numbers, hands=hands)
    parts = []
    for language in LANGUAGES:
        for number in numbers:
            group = group_name("table", language=language, tournament_id=tournament_id, table=number)
            parts.append(Part(group, _in(language, functools.partial(_table_html, tables[number], states[number]))))
            if number in hands:
                parts.append(
                    Part(group, _in(language, functools.partial(_recent_html, tables[number], states[number])))
                )
    return parts


def tournament_publish(tournament_id: int, *, clock_only: bool = False, tables: bool = True) -> None:
    """Send the event's lobby row and Tournament Info parts as they are now, at once;
    its table pages' line too, if `tables`."""
    send(tournament_parts(tournament_id, _reader(tournament_id), clock_only=clock_only, tables=tables))


def tournament_publish_trailing(tournament_id: int, *, chips: bool = False) -> None:
    """The message at the end of a throttled second (lobby.tasks), or of the chips'
    pace if `chips`; the table pages' line has a pace of its own (tables_publish_trailing)."""
    (_chips_throttle if chips else _throttle)(tournament_id).trailing_began()
    tournament_publish(tournament_id, tables=False)


def tables_publish_trailing(tournament_id: int) -> None:
    """The message at the end of the table pages' throttled seconds (lobby.tasks)."""
    throttle = _tables_throttle(tournament_id)
    throttle.trailing_began()
    send(_tables_parts(tournament_id, _reader(tournament_id)))


def _throttle(tournament_id: int, *, leading: bool = True) -> Throttle:
    """An event's lobby row and Tournament Info hear of it at most once a second
    (unless `leading`, at the end of the second only)."""
    return Throttle(f"tournament-{tournament_id}", signature(TOURNAMENT_TASK, args=(tournament_id,)), leading=leading)


def _chips_throttle(tournament_id: int) -> Throttle:
    """They hear of a hand's chips alone at the end of every CHIPS_SECONDS, never at
    once: sent by the worker that runs the task, not by the table node."""
    task = signature(TOURNAMENT_TASK, args=(tournament_id,), kwargs={"chips": True})
    return Throttle(f"tournament-chips-{tournament_id}", task, CHIPS_SECONDS, leading=False)


def _tables_throttle(tournament_id: int) -> Throttle:
    """Every table page of an event hears of the players left at most every
    TABLES_SECONDS: a big field's players go out by the dozen, and each message goes
    to every seat of every table."""
    return Throttle(f"tables-{tournament_id}", signature(TABLES_TASK, args=(tournament_id,)), TABLES_SECONDS)


def _tables_parts(tournament_id: int, tournament: Reader) -> list[Part]:
    return [
        Part(
            group_name("tables", language=language, tournament_id=tournament_id),
            _in(language, functools.partial(_clock_html, tournament)),
        )
        for language in LANGUAGES
    ]


def _reader(tournament_id: int) -> Reader:
    """The tournament, read once, when a part first renders it."""

    def read() -> Tournament | None:
        try:
            return Tournament.objects.select_related("blind_structure", "satellite_target").get(pk=tournament_id)
        except Tournament.DoesNotExist:
            return None

    return functools.cache(read)


def _reload() -> str:
    return RELOAD


def _info_context(tournament: Reader, now: datetime.datetime) -> Callable[[], dict | None]:
    """What Tournament Info's parts show, read once for every language they are
    rendered in: a big field's tables and payouts are read once a change."""

    def read() -> dict | None:
        return info_live_context(loaded, now) if (loaded := tournament()) else None

    return functools.cache(read)


def _info_html(tournament: Reader, shared: Callable[[], dict | None], now: datetime.datetime, clock_only: bool) -> str:
    if (loaded := tournament()) is None:
        return ""
    return tournament_live_html(loaded, now, clock_only=clock_only, shared=None if clock_only else shared())


def _clock_html(tournament: Reader) -> str:
    return table_clock_html(loaded) if (loaded := tournament()) else ""


def _table_reader(tournament_id: int, number: int) -> Callable[[], Table | None]:
    """The table with its tournament, read once (one query, the tournament's own
    fields alone), when a part first renders it."""

    def read() -> Table | None:
        try:  # get(): by its unique key, without ordering every column read
            return Table.objects.select_related("tournament").get(tournament_id=tournament_id, number=number)
        except Table.DoesNotExist:
            return None

    return functools.cache(read)


def _chat_html(table: Callable[[], Table | None]) -> str:
    return table_chat_html(loaded) if (loaded := table()) else ""


def _state_reader(table: Callable[[], Table | None], *, recent: bool) -> Callable[[], TableState | None]:
    """What anyone watching the table sees (no words: every language's part renders
    the same), read once when a part first renders it; with the last hands if `recent`."""

    def read() -> TableState | None:
        loaded = table()
        return table_hand(loaded.tournament, loaded, recent=recent) if loaded else None

    return functools.cache(read)


def _table_html(table: Callable[[], Table | None], state: Callable[[], TableState | None]) -> str:
    return table_live_html(loaded, state()) if (loaded := table()) else ""


def _own_html(table: TableReader, state: StateReader, entry: Entry) -> str:
    loaded, shown = table(), state()
    if loaded is None or shown is None:
        return ""
    own = table_own_seat(loaded.tournament, loaded, shown.hand, shown.played, entry)
    return table_own_html(own, tournament_id=loaded.tournament_id, table_id=loaded.pk, number=loaded.number)


def _recent_html(table: Callable[[], Table | None], state: Callable[[], TableState | None]) -> str:
    return table_recent_html(loaded, state()) if (loaded := table()) else ""


def _in(language: str, render: Callable[[], str]) -> Callable[[], str]:
    """`render`, for the pages of `language`: in it, and in UTC."""

    def rendered() -> str:
        with translation.override(language), timezone.override(datetime.UTC):
            return render()

    return rendered
