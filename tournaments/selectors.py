"""Reads: what the lobby, Tournament Info and the API show."""

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Case, Count, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from tournaments.models import (
    ENTERED,
    UNDER_WAY,
    BountyKind,
    Entry,
    EntryStatus,
    PrizeHold,
    Purchase,
    Status,
    Tournament,
)
from tournaments.rules.payouts import PrizeStructure, payout_table, prize_pool
from tournaments.rules.pricing import ENTRANTS_PAY_BOUNTY, ROOM_PAYS_BOUNTY, pool_currency
from tournaments.rules.registration import Window
from tournaments.rules.schedule import (
    BreakKind,
    BreakPolicy,
    Deadlines,
    Level,
    Schedule,
    Stop,
    build_schedule,
    deadlines,
)
from wallet.models import Transfer, TransferReason


def clock_stops(tournament: Tournament, now: datetime) -> list[Stop]:
    """The times the clock stood still; one still going on counts until `now`."""
    stops = [Stop(datetime.fromisoformat(start), datetime.fromisoformat(end)) for start, end in tournament.clock_stops]
    for since in (tournament.paused_at, tournament.break_pending_since):
        if since is not None and now > since:
            stops.append(Stop(since, now))
    return stops


def tournament_schedule(
    tournament: Tournament, now: datetime | None = None, *, levels: list[Level] | None = None
) -> Schedule:
    """Levels with their start times and the break schedule (rule 17), shifted by
    the times the clock stood still until `now`; `levels`: its structure's, when the
    caller has read them."""
    return build_schedule(
        start=tournament.scheduled_start,
        levels=tournament.blind_structure.rule_levels() if levels is None else levels,
        policy=BreakPolicy(
            kind=BreakKind(tournament.break_policy),
            minutes=tournament.break_minutes,
            interval_minutes=tournament.break_interval_minutes,
            seconds=tournament.break_seconds,
            interval_seconds=tournament.break_interval_seconds,
            addon_break_minutes=tournament.addon_break_minutes if tournament.has_addon else 0,
        ),
        addon_after_level=tournament.rebuy_levels or None,
        stops=clock_stops(tournament, now or timezone.now()),
    )


# The fields registration's window is built from (registration_window).
WINDOW_FIELDS = (
    "scheduled_start",
    "registration_opens_at",
    "late_registration_minutes",
    "extended_late_registration_minutes",
    "unregistration_deadline_minutes",
    "unregistration_allowed",
    "late_registration_closed_at",
)


def tournament_deadlines(tournament: Tournament) -> Deadlines:
    return _deadlines(_window_fields(tournament))


def _window_fields(tournament: Tournament) -> dict[str, Any]:
    return {name: getattr(tournament, name) for name in WINDOW_FIELDS}


def _deadlines(fields: Mapping[str, Any]) -> Deadlines:
    return deadlines(
        start=fields["scheduled_start"],
        registration_opens_at=fields["registration_opens_at"],
        late_registration_minutes=fields["late_registration_minutes"],
        extended_late_registration_minutes=fields["extended_late_registration_minutes"],
        unregistration_deadline_minutes=fields["unregistration_deadline_minutes"],
        unregistration_allowed=fields["unregistration_allowed"],
    )


@dataclass(frozen=True)
class Payouts:
    pool: int
    places: list[int]
    provisional: bool


def tournament_payouts(tournament: Tournament, *, now: datetime) -> Payouts:
    """The payout table for the current entrants; provisional until registration
    and the rebuy period are over, or the event is (rule 7)."""
    pool = prize_pool(contributions=tournament.prize_contributions, guarantee=tournament.guarantee)
    seat_value = None
    if (target := tournament.satellite_target) is not None:
        bounty = target.bounty_amount if target.bounty_kind in ENTRANTS_PAY_BOUNTY else 0
        seat_value = target.buy_in + target.fee + bounty
    places = payout_table(
        structure=PrizeStructure(tournament.prize_structure),
        entrants=tournament.entries_count,
        pool=pool,
        seat_value=seat_value,
    )
    registration_over = now >= tournament_deadlines(tournament).late_registration_closes_at
    locked = (
        tournament.payouts_locked_at is not None
        or tournament.status in (Status.FINISHED, Status.CANCELLED)
        or (registration_over and _rebuys_over(tournament, now))
    )
    return Payouts(pool=pool, places=places, provisional=not locked)


def _rebuys_over(tournament: Tournament, now: datetime) -> bool:
    if not tournament.rebuy_levels:
        return True  # without reading the levels
    levels = tournament_schedule(tournament).levels
    return tournament.rebuy_levels <= len(levels) and now >= levels[tournament.rebuy_levels - 1].ends_at


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
            "deal_in_progress",
            "absent_bounty_players",
            *WINDOW_FIELDS,
        )
    )
)


def tournament_list_for_lobby(form) -> QuerySet:
    """The lobby's rows as plain dicts, filtered and sorted by a valid LobbyFilterForm."""
    return form.filter(Tournament.objects.all()).values(*LOBBY_FIELDS)


def tournament_window(tournament: Tournament) -> Window:
    """The instants that bound registration and unregistration (rules 9, 10)."""
    return registration_window(_window_fields(tournament))


def registration_window(fields: Mapping[str, Any]) -> Window:
    """tournament_window from an event's WINDOW_FIELDS (a lobby row's values)."""
    limits = _deadlines(fields)
    return Window(
        registration_opens_at=limits.registration_opens_at,
        start=fields["scheduled_start"],
        late_registration_closes_at=limits.late_registration_closes_at,
        closed_early_at=fields["late_registration_closed_at"],
        unregistration_closes_at=limits.unregistration_closes_at,
    )


# Still in: not placed, and with chips (out in a hand-for-hand hand still being played elsewhere: none).
STILL_IN = Q(status=EntryStatus.ACTIVE, finish_best=None, chips__gt=0)
# The table an entry sits at (a table not broken); it plays there while its event is
# under way (playing_at), which the caller knows without joining the event.
_SEATED_AT = Case(
    When(status=EntryStatus.ACTIVE, table__broken_at=None, then=F("table__number")),
    default=None,
    output_field=IntegerField(),
)


def playing_at(status: str, seated_at: int | None) -> int | None:
    """The table a player plays at: where they sit, in an event under way."""
    return seated_at if status in UNDER_WAY else None


def _count_still_in(**outer: Any) -> Coalesce:
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


def _ahead() -> Coalesce:
    """The players left with more chips than the outer row's entry: its rank is one
    more (equal stacks share a rank)."""
    return _count_still_in(chips__gt=OuterRef("chips"))


def player_marks(player_id: int, tournament_ids: Collection[int]) -> dict[int, int | None]:
    """The events among these that the player is in (rule 9: registered, or out),
    each with the number of the table they sit at, else None (playing_at says whether
    they play there: the caller knows the events' statuses). Reads no event."""
    entries = Entry.objects.filter(player_id=player_id, tournament_id__in=tournament_ids, status__in=ENTERED)
    return dict(entries.annotate(seated_at=_SEATED_AT).values_list("tournament_id", "seated_at"))


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
        .annotate(seated_at=_SEATED_AT, ahead=_ahead(), left=_count_still_in())
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
    chips, most first, with their rank among them (equal stacks share it) and the
    table they sit at, then those out by place; `search`: screen names containing it."""
    entries = Entry.objects.filter(tournament=tournament, status__in=ENTERED)
    if search:
        entries = entries.filter(player__screen_name__icontains=search)
    out = Case(When(STILL_IN, then=Value(0)), default=Value(1), output_field=IntegerField())
    return (
        entries.annotate(out=out, seated_at=_SEATED_AT, ahead=_ahead())
        .order_by("out", "-chips", "finish_best", "player__screen_name", "pk")
        .values(
            "pk",
            "player_id",
            "player__screen_name",
            "out",
            "chips",
            "seated_at",
            "ahead",
            "finish_best",
            "finish_worst",
            "prize",
            "prize_hold",
        )
    )


def rebuy_period_ends_at(tournament: Tournament, schedule: Schedule) -> datetime | None:
    """The end of the last rebuy level (rule 8), or None without rebuys."""
    if not tournament.rebuy_levels or not tournament.is_rebuy:
        return None
    return schedule.levels[min(tournament.rebuy_levels, len(schedule.levels)) - 1].ends_at


def addon_window(tournament: Tournament, schedule: Schedule) -> tuple[datetime | None, datetime | None]:
    """From the start of the last rebuy level until the next level begins, which
    includes the add-on break."""
    if not tournament.has_addon or not tournament.rebuy_levels:
        return None, None
    last = min(tournament.rebuy_levels, len(schedule.levels))
    opens = schedule.levels[last - 1].starts_at
    closes = schedule.levels[last].starts_at if last < len(schedule.levels) else schedule.levels[last - 1].ends_at
    return opens, closes


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


def tournament_tables(tournament: Tournament, number: int | None = None) -> list[TableView]:
    """Each table in play (or table `number` alone): its players by seat, their
    stacks, the button and the blinds of the hand in play or the next (rules 5, 14)."""
    seated = Entry.objects.filter(table__tournament=tournament, table__broken_at=None, status=EntryStatus.ACTIVE)
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


def tournament_standings(tournament: Tournament) -> list[Finisher]:
    """The places finished so far (rule 12), best first, with what each won once paid
    (public_prize)."""
    rows = list(
        tournament.entries.filter(finish_best__isnull=False)
        .order_by("finish_best", "pk")
        .values_list("finish_best", "finish_worst", "player__screen_name", "prize", "player_id", "prize_hold")
    )
    won = bounties_won(tournament, [row[4] for row in rows]) if tournament.bounty_kind != BountyKind.NONE else {}
    return [
        # Both places are set together, and only those with them are read.
        Finisher(best, worst, name, *public_prize(prize, hold), bounties_won=won.get(player, 0))  # type: ignore[arg-type]
        for best, worst, name, prize, player, hold in rows
    ]


def public_prize(prize: int | None, hold: str) -> tuple[int | None, bool]:
    """A place's prize as everyone sees it, and whether it is forfeited (rule 20): one
    withheld for review shows as any other, so the review stays private; one
    confiscated was paid to nobody, so it shows as 0, forfeited."""
    forfeited = hold == PrizeHold.CONFISCATED
    return (0 if forfeited else prize), forfeited


# The keys the tournament services give their transfers start with the tournament's
# id ("tournament:9:prize:41", "satellite:9:...", "seat:9:...") or the purchase's
# ("purchase:17:refund:tmoney").
_TOURNAMENT_KEYS = ("tournament:", "satellite:", "seat:")
_PURCHASE_KEY = "purchase:"
# Deposits and staff adjustments carry their caller's key, which names nothing.
_CALLERS_KEYS = (TransferReason.DEPOSIT, TransferReason.STAFF_ADJUSTMENT)


def _key_number(text: str, prefix: str) -> int | None:
    number = text[len(prefix) :].split(":", 1)[0] if text.startswith(prefix) else ""
    return int(number) if number.isdigit() else None


def transfer_tournament_ids(rows: Iterable[Mapping]) -> dict[int, int]:
    """The id of the tournament each wallet history row (wallet.selectors.wallet_history)
    concerns, by the row's pk: the tournament account on the other side, else the
    one its key names (a T-Money payment or refund goes through the house); rows
    about no tournament are left out. One query at most, for purchases' keys."""
    tournament_of: dict[int, int] = {}
    purchase_of: dict[int, int] = {}
    for row in rows:
        found = _key_number(row["counterpart_ref"], "tournament:")
        if found is None and row["reason"] in _CALLERS_KEYS:
            continue
        for prefix in _TOURNAMENT_KEYS:
            found = found or _key_number(row["idempotency_key"], prefix)
        if found:
            tournament_of[row["pk"]] = found
        elif purchase := _key_number(row["idempotency_key"], _PURCHASE_KEY):
            purchase_of[row["pk"]] = purchase
    if purchase_of:
        entries = dict(
            Purchase.objects.filter(pk__in=set(purchase_of.values())).values_list("pk", "entry__tournament_id")
        )
        tournament_of |= {pk: entries[purchase] for pk, purchase in purchase_of.items() if purchase in entries}
    return tournament_of


# Statuses in which nobody can enter any more (a pause may come during late registration).
ENTRIES_CLOSED = (Status.RUNNING, Status.ON_BREAK, Status.FINISHED)


@dataclass(frozen=True)
class BountyPlayer:
    name: str
    playing: bool | None  # None before the start; False: he did not play, so has no bounty (rule 28)


def bounty_players(tournament: Tournament) -> list[BountyPlayer]:
    """The players who carry the room's bounty: a fixed bounty event's named players,
    a Team Pro event's team pros who entered; whether each played, once nobody can
    enter any more (late registration over)."""
    entered = set(tournament.entries.filter(status__in=ENTERED).values_list("player_id", flat=True))
    started = tournament.status in ENTRIES_CLOSED
    if tournament.bounty_kind == BountyKind.FIXED:
        named = tournament.bounty_players.order_by("screen_name").values_list("pk", "screen_name")
        return [BountyPlayer(name, (pk in entered) if started else None) for pk, name in named]
    if tournament.bounty_kind == BountyKind.TEAM_PRO:
        pros = tournament.entries.filter(status__in=ENTERED, player__is_team_pro=True)
        return [
            BountyPlayer(name, True)
            for name in pros.order_by("player__screen_name").values_list("player__screen_name", flat=True)
        ]
    return []


# Bounties (rules 24-28)


def bounty_heads(tournament: Tournament, entries: Iterable[int]) -> dict[int, int]:
    """The bounty on each entry's head: what its purchases paid into the bounty
    account and what knockouts added to it (knockout, progressive knockout); the
    event's bounty for a team pro or a named bounty player (Team Pro, fixed)."""
    entries = list(entries)
    if tournament.bounty_kind in ROOM_PAYS_BOUNTY:
        carriers = Entry.objects.filter(pk__in=entries)
        if tournament.bounty_kind == BountyKind.TEAM_PRO:
            carriers = carriers.filter(player__is_team_pro=True)
        else:
            carriers = carriers.filter(player__in=tournament.bounty_players.all())
        return dict.fromkeys(carriers.values_list("pk", flat=True), tournament.bounty_amount)
    heads: dict[int, int] = defaultdict(int)
    if tournament.bounty_kind not in ENTRANTS_PAY_BOUNTY:
        return heads
    purchases = Purchase.objects.filter(entry__in=entries, refunded_at=None)
    for entry, amount in purchases.values("entry").annotate(paid=Sum("bounty")).values_list("entry", "paid"):
        heads[entry] += amount or 0
    for entry, added in Entry.objects.filter(pk__in=entries, bounty_added__gt=0).values_list("pk", "bounty_added"):
        heads[entry] += added
    return heads


def bounties_won(tournament: Tournament, players: Iterable[int]) -> dict[int, int]:
    """What each player (user id) has won in bounties in the tournament, from the ledger."""
    paid = Transfer.objects.filter(
        reason=TransferReason.BOUNTY,
        idempotency_key__startswith=f"tournament:{tournament.pk}:bounty:",
        destination__owner_id__in=list(players),
    ).exclude(idempotency_key__endswith=":own")
    return dict(
        paid.values("destination__owner_id").annotate(won=Sum("amount")).values_list("destination__owner_id", "won")
    )
