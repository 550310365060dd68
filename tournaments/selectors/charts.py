"""The numbers behind Tournament Info's charts: the players left and the average
stack after each change of the field, from the entries and their purchases."""

from dataclasses import dataclass
from datetime import datetime

from tournaments.models import ENTERED, Entry, Purchase, Tournament


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
        "created_at", "ended_at", "finish_best"
    )
    for created_at, ended_at, place in entries:
        changes.append((max(created_at, start), 1, 0))
        if ended_at is not None and place != 1:  # the winner's play ends, he is not out
            changes.append((max(ended_at, start), -1, 0))
    bought = Purchase.objects.filter(
        entry__tournament=tournament, entry__status__in=ENTERED, refunded_at__isnull=True
    ).values_list("created_at", "chips")
    changes += [(max(created_at, start), 0, chips) for created_at, chips in bought]
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
