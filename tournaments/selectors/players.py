"""Reads of players: a player's own events, an event's players."""

import bisect
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.db.models.functions import Coalesce

from tournaments.models import (
    ENTERED,
    Entry,
    EntryStatus,
    Status,
    Tournament,
)
from tournaments.rules.pricing import pool_currency
from tournaments.selectors.lobby import SEATED_AT, count_still_in, playing_at, still_in_ahead
from tournaments.selectors.standings import STILL_IN


@dataclass(frozen=True)
class PlayerEvent:
    """One event on a player's own "My tournaments" page: the event, and their entry in it."""

    tournament_id: int
    name: str
    status: str
    deal_in_progress: bool
    scheduled_start: datetime
    started: bool
    pool_currency: str
    entry_status: str
    chips: int
    table: int | None  # where they play, while the event is under way
    seat: int | None
    rank: int | None  # among the players left, while they are in one of them
    players_left: int | None
    finish_best: int | None
    finish_worst: int | None
    prize: int | None
    prize_hold: str = ""  # rule 20: withheld for review, then paid or confiscated

    @property
    def place(self) -> str:
        if self.finish_best is None:
            return ""
        return (
            f"{self.finish_best}"
            if self.finish_best == self.finish_worst
            else f"{self.finish_best}-{self.finish_worst}"
        )

    @property
    def over(self) -> bool:
        return self.status in (Status.FINISHED, Status.CANCELLED)


# How long an event the player was in stays on their page once it is over.
RECENTLY_OVER = timedelta(days=7)


def player_events(player_id: int, *, now: datetime) -> list[PlayerEvent]:
    """The events the player is in (rule 9: registered, or out; refunded when
    cancelled), those over for RECENTLY_OVER at most: the ones to come and under way
    by start time, then those over, the latest first. One query."""
    recent = now - RECENTLY_OVER
    entries = (
        Entry.objects.filter(player_id=player_id, status__in=[*ENTERED, EntryStatus.REFUNDED])
        # A cancelled event has no finished_at: the entry's refund ended it.
        .annotate(over_at=Coalesce("tournament__finished_at", "ended_at", "tournament__scheduled_start"))
        .exclude(tournament__status__in=(Status.FINISHED, Status.CANCELLED), over_at__lt=recent)
        .annotate(seated_at=SEATED_AT, ahead=still_in_ahead(), left=count_still_in())
        .values(
            "tournament_id",
            "tournament__name",
            "tournament__status",
            "tournament__deal_in_progress",
            "tournament__scheduled_start",
            "tournament__started_at",
            "tournament__entry_kind",
            "tournament__currency",
            "status",
            "chips",
            "seated_at",
            "seat",
            "ahead",
            "left",
            "finish_best",
            "finish_worst",
            "prize",
            "prize_hold",
        )
    )
    events = []
    for row in entries:
        started = row["tournament__started_at"] is not None
        table = playing_at(row["tournament__status"], row["seated_at"]) if started else None
        still_in = started and row["status"] == EntryStatus.ACTIVE and row["finish_best"] is None and row["chips"] > 0
        events.append(
            PlayerEvent(
                tournament_id=row["tournament_id"],
                name=row["tournament__name"],
                status=row["tournament__status"],
                deal_in_progress=row["tournament__deal_in_progress"],
                scheduled_start=row["tournament__scheduled_start"],
                started=started,
                pool_currency=pool_currency(
                    entry_kind=row["tournament__entry_kind"], currency=row["tournament__currency"]
                ),
                entry_status=row["status"],
                chips=row["chips"],
                table=table,
                seat=row["seat"] if table is not None else None,
                rank=row["ahead"] + 1 if still_in else None,
                players_left=row["left"] if still_in else None,
                finish_best=row["finish_best"],
                finish_worst=row["finish_worst"],
                prize=row["prize"],
                prize_hold=row["prize_hold"],
            )
        )
    to_come = sorted((event for event in events if not event.over), key=lambda event: event.scheduled_start)
    over = sorted((event for event in events if event.over), key=lambda event: event.scheduled_start, reverse=True)
    return to_come + over


def tournament_players(tournament: Tournament, *, search: str = "") -> QuerySet:
    """The event's players as plain dicts (never their wallets): those still in by
    chips, most first, with the table they sit at, then those out by place; `search`:
    screen names containing it. Their ranks: field_ranks, for the page shown."""
    entries = Entry.objects.filter(tournament=tournament, status__in=ENTERED)
    if search:
        entries = entries.filter(player__screen_name__icontains=search)
    out = Case(When(STILL_IN, then=Value(0)), default=Value(1), output_field=IntegerField())
    return (
        entries.annotate(out=out, seated_at=SEATED_AT)
        .order_by("out", "-chips", "finish_best", "player__screen_name", "pk")
        .values(
            "pk",
            "player_id",
            "player__screen_name",
            "out",
            "chips",
            "seated_at",
            "finish_best",
            "finish_worst",
            "prize",
            "prize_hold",
        )
    )


def field_ranks(tournament: Tournament, stacks: Collection[int]) -> dict[int, int]:
    """The rank among the event's players still in (equal stacks share one) of each
    of these stacks: one read of the stacks above the smallest, rather than a count
    of the field for every row of a big field's list."""
    if not stacks:
        return {}
    above = sorted(
        Entry.objects.filter(STILL_IN, tournament=tournament, chips__gt=min(stacks)).values_list("chips", flat=True)
    )
    return {chips: len(above) - bisect.bisect_right(above, chips) + 1 for chips in stacks}
