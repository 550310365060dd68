"""Reads for the lobby: its rows' fields, and a signed-in player's own marks
(registered, playing, his table)."""

from collections.abc import Collection
from typing import Any

from django.db.models import Case, Count, F, IntegerField, OuterRef, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce

from tournaments.models import (
    ENTERED,
    UNDER_WAY,
    Entry,
    EntryStatus,
)
from tournaments.selectors.schedules import WINDOW_FIELDS
from tournaments.selectors.standings import STILL_IN

LOBBY_FIELDS = tuple(
    dict.fromkeys(
        (
            "id",
            "name",
            "game",
            "betting",
            "entry_kind",
            "currency",
            "buy_in",
            "fee",
            "bounty_amount",
            "entries_count",
            "max_entrants",
            "pool",
            "guarantee",
            "status",
            "scheduled_start",
            "bounty_kind",
            "satellite_target_id",
            "rebuy_chips",
            "speed",
            "heads_up",
            "deepstack",
            "sit_and_go_id",
            "deal_in_progress",
            "absent_bounty_players",
            *WINDOW_FIELDS,
        )
    )
)


def tournament_list_for_lobby(filters) -> QuerySet:
    """The lobby's rows as plain dicts, filtered and sorted by a valid LobbyFilter."""
    return filters.qs.values(*LOBBY_FIELDS)


# The table an entry sits at (a table not broken); it plays there while its event is
# under way (playing_at), which the caller knows without joining the event.
SEATED_AT = Case(
    When(status=EntryStatus.ACTIVE, table__broken_at=None, then=F("table__number")),
    default=None,
    output_field=IntegerField(),
)


def playing_at(status: str, seated_at: int | None) -> int | None:
    """The table a player plays at: where they sit, in an event under way."""
    return seated_at if status in UNDER_WAY else None


def count_still_in(**outer: Any) -> Coalesce:
    """How many entries of the outer row's event are still in (and match `outer`):
    a correlated subquery, so that a filtered or paginated list keeps the field's ranks."""
    counted = (
        Entry.objects.filter(STILL_IN, tournament=OuterRef("tournament"), **outer)
        .order_by()
        .values("tournament")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def still_in_ahead() -> Coalesce:
    """The players left with more chips than the outer row's entry: its rank is one
    more (equal stacks share a rank)."""
    return count_still_in(chips__gt=OuterRef("chips"))


def player_marks(player_id: int, tournament_ids: Collection[int]) -> dict[int, int | None]:
    """The events among these that the player is in (rule 9: registered, or out),
    each with the number of the table they sit at, else None (playing_at says whether
    they play there: the caller knows the events' statuses). Reads no event."""
    entries = Entry.objects.filter(player_id=player_id, tournament_id__in=tournament_ids, status__in=ENTERED)
    # SEATED_AT worked out here rather than in the query: the page most players see
    # asks this on every request, and the plainer query costs Django less to build.
    rows = entries.values_list("tournament_id", "status", "table__number", "table__broken_at")
    return {
        tournament_id: number if status == EntryStatus.ACTIVE and broken_at is None else None
        for tournament_id, status, number, broken_at in rows
    }
