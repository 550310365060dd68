"""Leader Board standings: the points earned in a period, added up by player, best
first; a player's own row wherever it falls."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count, QuerySet, Sum

from tournaments.models import LeaderBoardPoints
from tournaments.rules.leader_boards import Period, Span, period_span


@dataclass(frozen=True)
class Standing:
    place: int  # players with more points, plus one: equal totals share a place
    player_id: int
    name: str
    points: Decimal
    finishes: int


def room_zone() -> ZoneInfo:
    return ZoneInfo(settings.ROOM_TIME_ZONE)


def board_span(period: Period, day: date) -> Span:
    return period_span(period, day, room_zone())


def board_totals(kind: str, span: Span) -> QuerySet:
    """Each player's points and finishes on the board `kind` in `span`, best first
    (then by name), withdrawn points left out."""
    return (
        LeaderBoardPoints.objects.filter(
            board__kind=kind, earned_at__gte=span.start, earned_at__lt=span.end, withdrawn_at__isnull=True
        )
        .values("player_id", "player__screen_name")
        .annotate(total=Sum("points"), finishes=Count("pk"))
        .order_by("-total", "player__screen_name", "player_id")
    )


def board_standings(totals: QuerySet, rows: list[dict], first_place: int) -> list[Standing]:
    """`rows` of `totals` (a page of them, the first at `first_place` in the order) as
    standings; a tie with the row above shares its place."""
    standings: list[Standing] = []
    for offset, row in enumerate(rows):
        place = first_place + offset
        if standings and standings[-1].points == row["total"]:
            place = standings[-1].place
        elif offset == 0 and first_place > 1:
            place = totals.filter(total__gt=row["total"]).count() + 1
        standings.append(Standing(place, row["player_id"], row["player__screen_name"], row["total"], row["finishes"]))
    return standings


def own_standing(totals: QuerySet, player_id: int) -> Standing | None:
    """The player's own row on the board in that period, or None without points."""
    mine = totals.filter(player_id=player_id).first()
    if mine is None:
        return None
    place = totals.filter(total__gt=mine["total"]).count() + 1
    return Standing(place, player_id, mine["player__screen_name"], mine["total"], mine["finishes"])


def player_points(player_id: int, span: Span) -> dict[str, Decimal]:
    """The player's points on each board in `span`."""
    rows = (
        LeaderBoardPoints.objects.filter(
            player_id=player_id, earned_at__gte=span.start, earned_at__lt=span.end, withdrawn_at__isnull=True
        )
        .values("board__kind")
        .annotate(total=Sum("points"))
        .order_by()
    )
    return {row["board__kind"]: row["total"] for row in rows}


def finish_points_of(entry_ids: list[int]) -> dict[int, Decimal]:
    """The standing points of these entries' finishes (by entry id)."""
    return dict(
        LeaderBoardPoints.objects.filter(entry_id__in=entry_ids, withdrawn_at__isnull=True).values_list(
            "entry_id", "points"
        )
    )
