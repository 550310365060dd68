"""Reads of an event's field: the players still in, the clock line the pages show
(level, players left, average stack), its tables, its chip leaders, the finishers."""

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Q, QuerySet, Sum

from tournaments.models import (
    BountyKind,
    Entry,
    EntryStatus,
    Status,
    Tournament,
)
from tournaments.rules.schedule import (
    Level,
)
from tournaments.selectors.bounties import bounties_won, bounty_heads
from tournaments.selectors.payouts import public_prize

# Still in: not placed, and with chips (out in a hand-for-hand hand still being played elsewhere: none).
STILL_IN = Q(status=EntryStatus.ACTIVE, finish_best=None, chips__gt=0)


@dataclass(frozen=True)
class ClockView:
    """What a page shows of the clock, from what tournament_advance stored."""

    phase: str  # "before", "playing", "break", "break_pending", "paused" or "over"
    level: Level | None
    next_level: Level | None
    # Paused: the time the level still had when the clock stopped.
    remaining: timedelta | None = None
    # Once started: the players still in, and their average stack.
    players_left: int = 0
    average_stack: int = 0


def tournament_clock(tournament: Tournament) -> ClockView:
    levels = tournament.blind_structure.rule_levels()
    number = tournament.level
    level = levels[number - 1] if 0 < number <= len(levels) else None
    next_level = levels[number] if 0 < number < len(levels) else None
    if tournament.status in (Status.FINISHED, Status.CANCELLED):
        return ClockView("over", level, None)
    if tournament.started_at is None:
        return ClockView("before", None, levels[0] if levels else None)
    still_in = tournament.entries.filter(STILL_IN)
    counted = still_in.aggregate(left=Count("id"), chips=Sum("chips"))
    left = {"players_left": counted["left"], "average_stack": (counted["chips"] or 0) // max(counted["left"], 1)}
    if tournament.paused_at is not None:
        remaining = tournament.level_ends_at - tournament.paused_at if tournament.level_ends_at else None
        return ClockView("paused", level, next_level, remaining, **left)
    if tournament.break_pending_since is not None:
        return ClockView("break_pending", level, next_level, **left)
    if tournament.break_ends_at is not None:
        return ClockView("break", level, next_level, **left)
    return ClockView("playing", level, next_level, **left)


@dataclass(frozen=True)
class SeatView:
    seat: int
    player: str
    chips: int
    role: str  # "button", "small_blind", "big_blind" or ""


@dataclass(frozen=True)
class TableView:
    number: int
    seats: list[SeatView]


def _seated(tournament: Tournament) -> QuerySet[Entry]:
    """The entries seated at the event's tables in play."""
    return Entry.objects.filter(table__tournament=tournament, table__broken_at=None, status=EntryStatus.ACTIVE)


def tournament_tables(tournament: Tournament, number: int | None = None) -> list[TableView]:
    """Each table in play (or table `number` alone): its players by seat, their
    stacks, the button and the blinds of the hand in play or the next (rules 5, 14)."""
    seated = _seated(tournament)
    if number is not None:
        seated = seated.filter(table__number=number)
    listed = seated.order_by("table__number", "seat").values_list(
        "table__number",
        "table__button",
        "table__small_blind",
        "table__big_blind",
        "seat",
        "player__screen_name",
        "chips",
    )
    by_table: dict[int, list] = {}
    positions: dict[int, tuple] = {}
    for table, button, small, big, seat, name, chips in listed:
        by_table.setdefault(table, []).append((seat, name, chips))
        positions[table] = (button, small, big)
    views = []
    for table, rows in by_table.items():
        button, small, big = positions[table]
        # The stored seats (a dead button's may be empty); the button wins a seat it shares heads-up.
        roles = {big: "big_blind", small: "small_blind", button: "button"} if len(rows) > 1 else {}
        seats = [SeatView(seat, name, chips, roles.get(seat, "")) for seat, name, chips in rows]
        views.append(TableView(table, seats))
    return views


@dataclass(frozen=True)
class TableLine:
    """A table in play as Tournament Info lists it: who sits there (entry ids) and
    the largest and smallest stack."""

    number: int
    entries: tuple[int, ...]
    largest: int
    smallest: int

    @property
    def players(self) -> int:
        return len(self.entries)


def tables_list(tournament: Tournament) -> list[TableLine]:
    """Each table in play, by number, in a line: a big field's hundreds of tables are
    listed every time its Tournament Info changes; their seats are on each table's page."""
    rows = _seated(tournament).order_by("table__number", "pk").values_list("table__number", "pk", "chips")
    by_table: dict[int, list[tuple[int, int]]] = {}
    for number, pk, chips in rows:
        by_table.setdefault(number, []).append((pk, chips))
    return [
        TableLine(
            number,
            tuple(pk for pk, _ in seats),
            max(chips for _, chips in seats),
            min(chips for _, chips in seats),
        )
        for number, seats in by_table.items()
    ]


@dataclass(frozen=True)
class ChipLeader:
    player: str
    chips: int
    bounty: int = 0  # the bounty on his head, in bounty events
    bounties_won: int = 0


def chip_leaders(tournament: Tournament, count: int = 3) -> list[ChipLeader]:
    leaders = list(
        tournament.entries.filter(status=EntryStatus.ACTIVE)
        .order_by("-chips", "pk")[:count]
        .values_list("pk", "player__screen_name", "chips", "player_id")
    )
    if tournament.bounty_kind == BountyKind.NONE:
        return [ChipLeader(name, chips) for _, name, chips, _ in leaders]
    heads = bounty_heads(tournament, [row[0] for row in leaders])
    won = bounties_won(tournament, [row[3] for row in leaders])
    return [ChipLeader(name, chips, heads.get(pk, 0), won.get(player, 0)) for pk, name, chips, player in leaders]


@dataclass(frozen=True)
class Finisher:
    best: int
    worst: int
    player: str
    prize: int | None
    forfeited: bool = False  # rule 20: the prize was confiscated after review
    bounties_won: int = 0

    @property
    def place(self) -> str:
        return f"{self.best}" if self.best == self.worst else f"{self.best}-{self.worst}"


def tournament_standings(tournament: Tournament, best: int | None = None) -> list[Finisher]:
    """The places finished so far (rule 12), best first (the `best` first alone, if
    given), with what each won once paid (public_prize)."""
    finished = (
        tournament.entries.filter(finish_best__isnull=False)
        .order_by("finish_best", "pk")
        .values_list("finish_best", "finish_worst", "player__screen_name", "prize", "player_id", "prize_hold")
    )
    rows = list(finished if best is None else finished[:best])
    won = bounties_won(tournament, [row[4] for row in rows]) if tournament.bounty_kind != BountyKind.NONE else {}
    return [
        # Both places are set together, and only those with them are read.
        Finisher(best, worst, name, *public_prize(prize, hold), bounties_won=won.get(player, 0))  # type: ignore[arg-type]
        for best, worst, name, prize, player, hold in rows
    ]
