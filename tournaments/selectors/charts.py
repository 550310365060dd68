"""The numbers behind Tournament Info's charts: the players left and the average
stack after each change of the field, from the entries and their purchases."""

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from tournaments.models import (
    ENTERED,
    Entry,
    EntryStatus,
    Hand,
    HandSeat,
    Purchase,
    PurchaseKind,
    Status,
    Tournament,
)


@dataclass(frozen=True)
class FieldPoint:
    at: datetime
    players_left: int
    average_stack: int  # the chips in play over the players left


def field_over_time(tournament: Tournament) -> list[FieldPoint]:
    """From the start: each instant the field or the chips in play changed (a late
    entry, a rebuy, an add-on, an elimination), with the players left and their
    average stack then. Empty before the start."""
    start = tournament.started_at
    if start is None:
        return []
    changes: list[tuple[datetime, int, int]] = []  # at, players, chips
    entries = Entry.objects.filter(tournament=tournament, status__in=ENTERED).values_list(
        "late", "created_at", "ended_at", "finish_best"
    )
    for late, created_at, ended_at, place in entries:
        changes.append((max(created_at, start) if late else start, 1, 0))  # registered early: there at the start
        if ended_at is not None and place != 1:  # the winner's play ends, he is not out
            changes.append((max(ended_at, start), -1, 0))
    bought = Purchase.objects.filter(
        entry__tournament=tournament, entry__status__in=ENTERED, refunded_at__isnull=True
    ).values_list("kind", "entry__late", "created_at", "chips")
    for kind, late, created_at, chips in bought:
        at = start if kind == PurchaseKind.ENTRY and not late else max(created_at, start)
        changes.append((at, 0, chips))
    points: list[FieldPoint] = []
    players = chips = 0
    for at, joined, added in sorted(changes, key=lambda change: change[0]):
        players += joined
        chips += added
        point = FieldPoint(at, players, chips // players if players else 0)
        if points and points[-1].at == at:
            points[-1] = point  # one point an instant: the field as that instant left it
        else:
            points.append(point)
    return points


@dataclass(frozen=True)
class LeaderStacks:
    name: str
    stacks: list[tuple[datetime, int]]  # his chips at the start of his hands, then now (or at the end)


# Lines on the chip leaders' chart, and the most points on each.
LEADERS = 5
MOST_POINTS = 40


def chip_leaders_over_time(tournament: Tournament) -> list[LeaderStacks]:
    """The chip leaders' stacks over the event: the five with most chips now (once it
    has finished, the first five places), each from the stacks he started his hands
    with, evenly thinned to at most MOST_POINTS, and his chips now or at his end."""
    if tournament.started_at is None:
        return []
    entries = Entry.objects.filter(tournament=tournament).select_related("player")
    if tournament.status == Status.FINISHED:
        leaders = list(entries.filter(finish_best__isnull=False).order_by("finish_best", "pk")[:LEADERS])
    else:
        leaders = list(entries.filter(status=EntryStatus.ACTIVE).order_by("-chips", "pk")[:LEADERS])
    dealt: dict[int, list[tuple[datetime, int]]] = {leader.pk: [] for leader in leaders}
    rows = (
        HandSeat.objects.filter(entry__in=leaders)
        .order_by("hand__started_at", "hand_id")
        .values_list("entry_id", "seat", "hand__started_at", "hand__setup")
    )
    for entry_id, seat, started_at, setup in rows:
        dealt[entry_id].append((started_at, int(setup["stacks"][str(seat)])))
    series = []
    for leader in leaders:
        points = dealt[leader.pk]
        step = max(1, -(-len(points) // MOST_POINTS))
        thinned = points[::step]
        end = leader.ended_at or tournament.finished_at or timezone.now()
        thinned.append((end, leader.chips))
        series.append(LeaderStacks(leader.player.screen_name, thinned))
    return series


def final_table(tournament: Tournament) -> int | None:
    """The number of the table that played the event's last hand."""
    return (
        Hand.objects.filter(tournament=tournament)
        .order_by("-started_at", "-pk")
        .values_list("table__number", flat=True)
        .first()
    )
