"""The floor, stored (rules 4, 5, 9, 11-16): tournaments.rules.floor decides who
sits where, who is out in which place and when the tournament ends; these services
restore it from the database under the tournament's row lock, feed it one event (the
start, a late entrant, a finished hand, the clock going again) and store what it
changed: seats, stacks, buttons, places, prizes (through the wallet), the end.
What that calls for beyond the floor (FollowUps: the clock closing late
registration, a satellite's seats, a break beginning) it returns, and its caller has
the clock do it (tournaments.services.clock.tournament_follow_up).

Each hand the floor deals is dealt for real (tournaments.services.hands) and played
at its table (tournaments.services.tables), which reports it here when it is over.
"""

import secrets
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from random import Random
from typing import Any

from django.db.models import BigIntegerField, Case, F, Value, When
from django.db.models.lookups import Exact

from audit.services import audit_log
from live.outbox import record
from tournaments.events import TablesChanged, TournamentChanged
from tournaments.models import UNDER_WAY, Entry, EntryStatus, PrizeHold, PrizeStructure, Status, Table, Tournament
from tournaments.rules.floor import Floor, FloorError, Outcome, TableState
from tournaments.rules.seating import Seat
from tournaments.rules.standings import Finish, prizes
from tournaments.selectors.payouts import tournament_payouts
from tournaments.services.hands import hands_deal, hands_reread
from tournaments.services.integrity import integrity_scan_queue
from tournaments.services.leader_boards import leader_board_award
from tournaments.services.prizes import prize_pool_fund
from tournaments.services.refusals import refuse
from wallet.models import TransferReason
from wallet.services import account_get, transfer_create, wallet_account_spec


@dataclass(frozen=True)
class HandReport:
    """What one finished hand did, for the caller."""

    eliminated: int
    moves: int
    broken: int
    finished: bool
    # The table's match ended after the hand (rule 18.5): each of its players' chips
    # then, the leader's every chip at the table, the others' none.
    ended: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class FollowUps:
    """What the floor's work calls for beyond the floor, in the same transaction
    (tournaments.services.clock.tournament_follow_up does it): the clock moved on at
    the first elimination that closes late registration (rule 9), the break waiting
    for the tables begun now none plays (rule 17), a satellite's seats awarded at its
    end (rule 10), in that order."""

    close_late_registration: bool = False
    award_seats: bool = False
    begin_break: bool = False

    def __bool__(self) -> bool:
        return self.close_late_registration or self.award_seats or self.begin_break

    def __or__(self, other: "FollowUps") -> "FollowUps":
        return FollowUps(
            self.close_late_registration or other.close_late_registration,
            self.award_seats or other.award_seats,
            self.begin_break or other.begin_break,
        )


def floor_draw(*, tournament: Tournament, now: datetime, rng: Random | None = None) -> None:
    """The seat draw at the start (rule 4), in the clock's transaction: every active
    entry at a random seat of as few and as even tables as hold them; each table's
    first button on its first occupied seat from seat 1 (rule 5), its first hand
    dealt. A cryptographically secure draw unless a test gives its own `rng`."""
    active = Entry.objects.filter(tournament=tournament, status=EntryStatus.ACTIVE).order_by("pk")
    stacks = dict(active.values_list("pk", "chips"))
    floor = Floor.drawn(stacks, **_options(tournament, rng or secrets.SystemRandom()))
    started = floor.start()
    # Each table written as it starts: its first button, blinds and hand.
    created = Table.objects.bulk_create(
        Table(tournament=tournament, number=number, **_table_fields(floor, number)) for number in floor.tables
    )
    tables = {table.number: {"id": table.pk, **_table_fields(floor, table.number)} for table in created}
    _entries_seat(floor.where, tables)
    _Stored(tournament, floor, tables).save(started, now=now, seated=tables)
    audit_log(
        action="tournaments.floor.drawn",
        subject=tournament,
        data={"tables": len(floor.tables), "players": len(stacks)},
    )


def floor_seat_late(tournament_id: int, entry: Entry, *, now: datetime, rng: Random | None = None) -> Seat | None:
    """A late entrant's seat (rule 9), in the registration's transaction under the
    tournament's lock: a random empty seat at the table with the fewest players, or
    a new table when every table is full. Every place already finished moves one
    down: the newcomer finishes above them. None before the draw."""
    tournament = Tournament.objects.get(pk=tournament_id)
    if not Table.objects.filter(tournament=tournament).exists():
        return None
    stored = _Stored.load(tournament, rng=rng)
    seat, outcome = stored.floor.seat_late(entry.pk, entry.chips)
    if seat.table not in stored.tables:
        created = Table.objects.create(tournament=tournament, number=seat.table)
        stored.tables[seat.table] = {"id": created.pk, **{name: getattr(created, name) for name in TABLE_FIELDS}}
    entry.table_id, entry.seat = stored.tables[seat.table]["id"], seat.seat
    Entry.objects.filter(pk=entry.pk).update(table_id=entry.table_id, seat=entry.seat)
    Entry.objects.filter(tournament=tournament, finish_best__isnull=False).update(
        finish_best=F("finish_best") + 1, finish_worst=F("finish_worst") + 1
    )
    _settle(stored, outcome, now, seated=[seat.table])  # a late seat puts nobody out: nothing follows
    return seat


@dataclass(frozen=True)
class TableResult:
    """A table's finished hand, as the table reports it: its `hand`-th, and what each
    of its players (entry ids) won or lost."""

    table: int
    hand: int
    won: Mapping[int, int]
    idle: bool = False  # every player in it was sitting out or disconnected (rule 18.5)


def floor_hand_results(
    *, tournament: Tournament, results: Iterable[TableResult], now: datetime, rng: Random | None = None
) -> tuple[list[HandReport | None], FollowUps]:
    """Tables' finished hands (tournaments.services.tables), in their transaction,
    `tournament` read under its row lock, in order, the floor read once for them
    all: everyone seated at a table keeps the rest of his chips as the floor has them
    (a player moved in since the deal, a rebuy during the hand), players with no
    chips are out and placed (rule 12) and paid once the payouts are locked; each
    table breaks, balances (rule 16), holds for a barrier or deals; the tournament
    may end (rule 11). For each result taken, what it did; None if its table has
    moved on (a result already taken) or the tournament is over. It stops after a
    result that calls for more (FollowUps): the caller does that, then gives the
    floor the results not taken yet."""
    if tournament.status not in UNDER_WAY or not tournament.started_at:
        raise refuse("not_in_play")
    stored: _Stored | None = None
    taken: list[HandReport | None] = []
    for result in results:
        if tournament.status not in UNDER_WAY:
            taken.append(None)
            continue
        stored = stored or _Stored.load(tournament, rng=rng)
        dealt = stored.floor.tables.get(result.table)
        if dealt is None or dealt.hands != result.hand or not dealt.playing:
            taken.append(None)
            continue
        after = {pk: stored.floor.stacks[pk] + result.won.get(pk, 0) for pk in dealt.seats.values()}
        ends = _idle_for_too_long(tournament, stored.tables[result.table]["id"], idle=result.idle)
        report, follow = _hand_finished(stored, result.table, after, now, ends_table=ends, at_table=True)
        taken.append(report)
        if follow:
            return taken, follow
    return taken, FollowUps()


def _idle_for_too_long(tournament: Tournament, table_id: int, *, idle: bool) -> bool:
    """Rule 18.5, in shootout and heads-up events: the table's count of hands in a
    row in which every player was sitting out or disconnected, kept; whether it has
    reached the event's limit, which ends the table's match."""
    if not (tournament.shootout or tournament.heads_up):
        return False
    table = Table.objects.filter(pk=table_id)
    if not idle:
        table.exclude(idle_hands=0).update(idle_hands=0)
        return False
    table.update(idle_hands=F("idle_hands") + 1)
    return table.values_list("idle_hands", flat=True).get() >= tournament.idle_hands_limit


def floor_hands_voided(*, tournament: Tournament, tables: Iterable[int], now: datetime) -> FollowUps:
    """The hands in play at `tables` are rolled back (rule 22), in the caller's
    transaction under the tournament's row lock: no entry's chips change (the floor
    applies a hand's result only when it is reported), and each table deals again,
    from the same button and blinds where its seats are as they were."""
    stored, follow = None, FollowUps()
    for number in tables:
        stored = _in_play(tournament, number, None, None)
        try:
            outcome = stored.floor.hand_voided(number)
        except FloorError as error:
            raise refuse("bad_result", reason=error) from error
        follow |= _settle(stored, outcome, now)
    # A break waiting for the hands in play (rule 17) may begin now.
    if stored is not None and tournament.break_pending_since is not None and not stored.floor.tables_playing():
        follow |= FollowUps(begin_break=True)
    record(TournamentChanged(tournament.pk))
    return follow


def _in_play(tournament: Tournament, table: int, hand: int | None, rng: Random | None) -> "_Stored":
    """The floor of a tournament under way whose table `table` is playing its
    `hand`-th hand (any, if None); refused otherwise."""
    if tournament.status not in UNDER_WAY or not tournament.started_at:
        raise refuse("not_in_play")
    stored = _Stored.load(tournament, rng=rng)
    dealt = stored.floor.tables.get(table)
    if hand is not None and (dealt is None or dealt.hands != hand or not dealt.playing):
        raise refuse("stale_hand")
    return stored


def floor_hand_in(
    *, tournament: Tournament, table: int, stacks: Mapping[int, int], now: datetime, hand: int | None
) -> tuple[HandReport, FollowUps]:
    """Table `table` has finished its hand (its `hand`-th: a report repeated after
    the table moved on is refused, so a retry never plays a hand twice), `tournament`
    read under its row lock; `stacks` gives each of its players' (entry ids) stack
    at the end. As floor_hand_results."""
    stored = _in_play(tournament, table, hand, None)
    return _hand_finished(stored, table, {int(pk): chips for pk, chips in stacks.items()}, now)


def _hand_finished(
    stored: "_Stored",
    table: int,
    after: Mapping[int, int],
    now: datetime,
    *,
    ends_table: bool = False,
    at_table: bool = False,
) -> tuple[HandReport, FollowUps]:
    """`at_table`: reported by the table's node (hands_report), which leaves the
    event's pages to the worker (TournamentChanged.hand)."""
    tournament = stored.tournament
    before = {pk: stored.floor.stacks.get(pk) for pk in after}
    try:
        outcome = stored.floor.hand_finished(table, after, ends_table=ends_table)
    except FloorError as error:
        raise refuse("bad_result", reason=error) from error
    if outcome.chips:  # the table's match ended (rule 18.5): its leader took every chip
        audit_log(
            action="tournaments.floor.table_ended",
            subject=tournament,
            data={"table": table, "stacks": {str(pk): chips for pk, chips in outcome.chips.items()}},
        )
    after = {**after, **outcome.chips}
    _entries_chips({pk: chips for pk, chips in after.items() if chips != before[pk]})
    follow = _settle(stored, outcome, now)
    busted = sum(1 for finish in outcome.finishes if not (outcome.finished and finish.best == 1))
    if not outcome.finished and tournament.break_pending_since is not None and not stored.floor.tables_playing():
        follow |= FollowUps(begin_break=True)
    record(TournamentChanged(tournament.pk, chips_only=not outcome.finishes, hand=at_table))
    report = HandReport(
        eliminated=busted,
        moves=sum(move.source.table != move.target.table for move in outcome.moves),
        broken=len(outcome.broken),
        finished=outcome.finished,
        ended=dict(outcome.chips),
    )
    return report, follow


def floor_release(*, tournament: Tournament, now: datetime, rng: Random | None = None) -> FollowUps:
    """The clock goes again (a break is over, a pause ends), in the clock's
    transaction: every held table deals, unless hand-for-hand or the final table
    still waits for tables in a hand. A synchronised hand that ended as the clock
    stopped has its players out placed now (rule 13)."""
    if not Table.objects.filter(tournament=tournament, broken_at=None, held=True).exists():
        return FollowUps()
    stored = _Stored.load(tournament, rng=rng)
    if stored.floor.stopped:
        return FollowUps()
    outcome = Outcome[int]()
    if not stored.floor.tables_playing():
        outcome = stored.floor.release()
    return _settle(stored, outcome, now)


def floor_pay_prizes(*, tournament: Tournament, now: datetime, over: bool = False) -> None:
    """Pay every finisher whose prize is not paid yet, once the payouts are locked
    (rule 7): places out before then are paid as the lock comes. Satellites pay
    seats at the end instead (tournaments.services.satellites). A player in a deal (rule 23)
    gets the agreed amount, and the winner what was left to play for too: as each
    is out, or all when the tournament is `over`, as the event says."""
    if tournament.payouts_locked_at is None or tournament.prize_structure == PrizeStructure.SATELLITE:
        return
    unpaid = [
        entry
        for entry in tournament.entries.filter(finish_best__isnull=False, prize__isnull=True).select_related("player")
        if entry.deal_amount is None or over or tournament.deal_paid_at_bust
    ]
    if not unpaid:
        return
    payouts = tournament_payouts(tournament, now=now).places
    won = prizes([_places(entry) for entry in unpaid], payouts)
    play_for = tournament.deal_play_for or 0
    for entry in unpaid:
        if entry.deal_amount is not None:
            won[entry.pk] = entry.deal_amount + (play_for if entry.finish_best == 1 else 0)
    # Most players out win nothing: the pool (and the overlay) are needed for the first prize.
    pool = prize_pool_fund(tournament, pool=sum(payouts)) if any(won.get(entry.pk) for entry in unpaid) else None
    for entry in unpaid:
        amount, places = won.get(entry.pk, 0), _places(entry)
        # Rule 20: a withheld prize stays in the pool until staff decide (services.integrity).
        if amount and pool is not None and entry.prize_hold != PrizeHold.WITHHELD:
            transfer_create(
                source=pool,
                destination=account_get(wallet_account_spec(entry.player_id, pool.currency)),
                amount=amount,
                reason=TransferReason.PRIZE,
                idempotency_key=f"tournament:{tournament.pk}:prize:{entry.pk}",
                memo=f"place {places.best}" + (f"-{places.worst}" if places.shared else ""),
            )
        entry.prize = amount
    _entries_update({entry.pk: {"prize": entry.prize} for entry in unpaid})


def floor_payouts_lock(*, tournament: Tournament, at: datetime, now: datetime) -> None:
    """The payouts stop being provisional at `at` (rule 7), under the tournament's
    row lock; the caller saves `payouts_locked_at`. Places finished before are paid."""
    tournament.payouts_locked_at = at
    audit_log(action="tournaments.tournament.payouts_locked", subject=tournament, data={"at": at.isoformat()})
    floor_pay_prizes(tournament=tournament, now=now)


def _settle(stored: "_Stored", outcome: Outcome[int], now: datetime, *, seated: Iterable[int] = ()) -> FollowUps:
    """Store what the floor changed, then what follows: the places paid, the end;
    returns what follows beyond the floor."""
    stored.save(outcome, now=now, seated=seated)
    tournament = stored.tournament
    if outcome.finished and tournament.payouts_locked_at is None:
        # Over before registration or the rebuy period closed: nobody can enter or
        # buy chips any more, so the payouts are final now and everyone is paid.
        floor_payouts_lock(tournament=tournament, at=now, now=now)
        tournament.save(update_fields=["payouts_locked_at", "updated_at"])
    follow = _after_eliminations(tournament, outcome, now)
    if outcome.finished:
        follow |= _finish(stored.tournament, outcome, now)
    return follow


def _places(entry: Entry) -> Finish[int]:
    """The places of an entry that is out (or has won)."""
    assert entry.finish_best is not None
    assert entry.finish_worst is not None
    return Finish(entry.pk, entry.finish_best, entry.finish_worst)


def _after_eliminations(tournament: Tournament, outcome: Outcome[int], now: datetime) -> FollowUps:
    """The first elimination's consequences (rule 9), and the prizes now due."""
    if not outcome.finishes:
        return FollowUps()
    # A player out (or the end): the hands that put him out are worth a look (rule 20).
    integrity_scan_queue(tournament.pk, over=outcome.finished)
    closed = False
    if tournament.first_elimination_at is None:
        tournament.first_elimination_at = now
        fields = ["first_elimination_at"]
        if tournament.late_registration_closes_at_first_elimination and tournament.status == Status.LATE_REGISTRATION:
            tournament.late_registration_closed_at = now  # rule 9: the clock reads it next
            fields.append("late_registration_closed_at")
        tournament.save(update_fields=[*fields, "updated_at"])
        closed = "late_registration_closed_at" in fields
    floor_pay_prizes(tournament=tournament, now=now, over=outcome.finished)
    # Late registration closed: the clock closes it (and locks the payouts, paying the places out).
    return FollowUps(close_late_registration=closed)


def _finish(tournament: Tournament, outcome: Outcome[int], now: datetime) -> FollowUps:
    """The end (rule 11): the standings are final, prizes paid (a satellite's seats:
    what follows), the tournament finished."""
    audit_log(
        action="tournaments.floor.finished",
        subject=tournament,
        data={"at": now.isoformat(), "winners": [f.player for f in outcome.finishes if f.best == 1]},
    )
    tournament.refresh_from_db()
    if tournament.status != Status.FINISHED:
        audit_log(
            action="tournaments.tournament.status",
            subject=tournament,
            data={"from": tournament.status, "to": Status.FINISHED, "at": now.isoformat()},
        )
    tournament.status = Status.FINISHED
    tournament.finished_at = now
    # The clock stops for good: no countdown, no break, nothing more to apply.
    tournament.level_ends_at = tournament.break_ends_at = tournament.break_pending_since = None
    tournament.paused_at, tournament.pause_reason = None, ""
    tournament.next_transition_at = tournament.tick_at = None
    tournament.save(
        update_fields=[
            "status",
            "finished_at",
            "level_ends_at",
            "break_ends_at",
            "break_pending_since",
            "paused_at",
            "pause_reason",
            "next_transition_at",
            "tick_at",
            "updated_at",
        ]
    )
    leader_board_award(tournament=tournament, now=now)
    return FollowUps(
        award_seats=bool(tournament.satellite_target_id) and tournament.prize_structure == PrizeStructure.SATELLITE
    )


def _options(tournament: Tournament, rng: Random) -> dict[str, Any]:
    payouts = tournament_payouts(tournament, now=tournament.started_at or tournament.scheduled_start).places
    return {
        "table_size": tournament.table_size,
        "rng": rng,
        "payouts": payouts,
        "hand_for_hand_at": [int(count) for count in tournament.hand_for_hand_at or []],
        "dead_button": tournament.dead_button,
        "end_when_prizes_equal": tournament.ends_when_prizes_equal,
        "shootout": tournament.shootout,
    }


# What a table's row stores of the floor's table (besides when it broke).
TABLE_FIELDS = ("button", "small_blind", "big_blind", "hands", "playing", "synchronised", "held")

# A table's row as the floor reads and writes it: its id and TABLE_FIELDS, by name.
TableRow = dict[str, Any]


def _table_fields(floor: Floor[int], number: int) -> dict[str, object]:
    """What a Table row stores of the floor's table `number`."""
    state = floor.tables[number]
    return {
        "button": state.button,
        "small_blind": state.small_blind,
        "big_blind": state.big_blind,
        "hands": state.hands,
        "playing": state.playing,
        "synchronised": state.synchronised,
        "held": number in floor.held,
    }


def _entries_update(values: Mapping[int, Mapping[str, object]]) -> None:
    """Write each entry's own values (by id): one plain UPDATE for each set of values
    entries share (a seat number, a table, a place shared by a tie), rather than
    bulk_update's CASE on every row, whose building grows with the rows."""
    groups: dict[tuple[tuple[str, object], ...], list[int]] = defaultdict(list)
    for pk, fields in values.items():
        groups[tuple(fields.items())].append(pk)
    for shared, pks in groups.items():
        Entry.objects.filter(pk__in=pks).update(**dict(shared))


def _entries_chips(chips: Mapping[int, int]) -> None:
    """Each entry's stack after a hand (a table's few players, their stacks mostly
    different): one UPDATE, not one for each stack."""
    if chips:
        # An Exact lookup as each condition: When(pk=...) builds a Q and resolves it, row by row.
        stack = Case(
            *(When(Exact(F("pk"), pk), then=Value(count)) for pk, count in chips.items()),
            output_field=BigIntegerField(),
        )
        Entry.objects.filter(pk__in=chips).update(chips=stack)


def _entries_seat(seats: Mapping[int, Seat], tables: Mapping[int, TableRow]) -> None:
    """Seat entries (none of them in a seat now): one UPDATE a table."""
    by_table: dict[int, dict[int, int]] = defaultdict(dict)
    for pk, seat in seats.items():
        by_table[seat.table][pk] = seat.seat
    for number, seated in by_table.items():
        seat_of = Case(*(When(pk=pk, then=Value(seat_number)) for pk, seat_number in seated.items()))
        Entry.objects.filter(pk__in=seated).update(table_id=tables[number]["id"], seat=seat_of)


class _Stored:
    """A floor restored from its rows, and the rows to write back what it changed."""

    def __init__(self, tournament: Tournament, floor: Floor[int], tables: dict[int, TableRow]) -> None:
        self.tournament = tournament
        self.floor = floor
        self.tables = tables  # the tables in play by number, as their rows stand

    @classmethod
    def load(cls, tournament: Tournament, *, rng: Random | None) -> "_Stored":
        # Values, not instances: a big field's hundreds of tables are read for every hand.
        rows = Table.objects.filter(tournament=tournament, broken_at=None).values("id", "number", *TABLE_FIELDS)
        tables = {row.pop("number"): row for row in rows}
        states = {
            number: TableState[int](
                button=table["button"],
                small_blind=table["small_blind"],
                big_blind=table["big_blind"],
                hands=table["hands"],
                playing=table["playing"],
                synchronised=table["synchronised"],
            )
            for number, table in tables.items()
        }
        state = tournament.floor_state or {}
        # Out in a hand-for-hand hand whose other tables are still playing: placed when it ends.
        round_busts = {int(pk): chips for pk, chips in state.get("round_busts", {}).items()}
        stacks, times_moved, away = dict.fromkeys(round_busts, 0), {}, set()
        numbers = {table["id"]: number for number, table in tables.items()}
        # The tournament's seated entries, rather than the entries of a list of its
        # tables (a join, and a parameter a table): the same rows, read more cheaply.
        seated = Entry.objects.filter(
            tournament=tournament, table__isnull=False, status=EntryStatus.ACTIVE, finish_best=None
        )
        rows = seated.values_list("pk", "table_id", "seat", "chips", "times_moved", "sitting_out")
        for pk, table_id, seat, chips, moved, sitting_out in rows:
            number = numbers.get(table_id)
            if pk in round_busts or number is None or seat is None:  # the last two: never, when seated
                continue
            states[number].seats[seat] = pk
            stacks[pk] = chips
            times_moved[pk] = moved
            if sitting_out:
                away.add(pk)  # moved first when balancing (rule 16)
        floor = Floor.restored(
            states,
            stacks,
            times_moved=times_moved,
            places_taken=state.get("places_taken", 0),
            breaking=state.get("breaking"),
            round_busts=round_busts,
            stopped=tournament.paused_at is not None
            or tournament.break_pending_since is not None
            or tournament.status == Status.ON_BREAK,
            away=away,
            **_options(tournament, rng or secrets.SystemRandom()),
        )
        return cls(tournament, floor, tables)

    def save(self, outcome: Outcome[int], *, now: datetime, seated: Iterable[int] = ()) -> None:
        """Write what `outcome` changed; `seated`: tables a player sat down at besides."""
        tournament, floor = self.tournament, self.floor
        for number in floor.tables:
            if number not in self.tables:  # a shootout's next round
                created = Table.objects.create(tournament=tournament, number=number, **_table_fields(floor, number))
                self.tables[number] = {"id": created.pk, **_table_fields(floor, number)}
        shown = {*seated, *outcome.broken}
        # Seats are unique: the players out leave theirs before anyone moves in.
        if outcome.finishes:
            self._save_finishes(outcome, now)
        if floor.round_busts:
            Entry.objects.filter(pk__in=floor.round_busts, table__isnull=False).update(table=None, seat=None)
        moved = {move.player: move for move in outcome.moves}
        shown.update(table for move in moved.values() for table in (move.source.table, move.target.table))
        if moved:
            Entry.objects.filter(pk__in=moved).update(seat=None)
            _entries_seat({pk: move.target for pk, move in moved.items()}, self.tables)
            changed_tables = [pk for pk, move in moved.items() if move.source.table != move.target.table]
            Entry.objects.filter(pk__in=changed_tables).update(times_moved=F("times_moved") + 1)
            audit_log(
                action="tournaments.floor.moved",
                subject=tournament,
                data={
                    "final_table": outcome.final_table,
                    "moves": [
                        [pk, move.source.table, move.target.table, move.target.seat] for pk, move in moved.items()
                    ],
                },
            )
        for number in outcome.broken:
            broken = self.tables.pop(number)
            Table.objects.filter(pk=broken["id"]).update(broken_at=now, playing=False, held=False)
            audit_log(action="tournaments.floor.table_broken", subject=tournament, data={"table": number})
        for number in floor.tables:
            table = self.tables[number]
            changed = {name: value for name, value in _table_fields(floor, number).items() if table[name] != value}
            if changed:
                Table.objects.filter(pk=table["id"]).update(**changed)
                table.update(changed)
                shown.add(number)
        table_ids = {number: table["id"] for number, table in self.tables.items()}
        hands_deal(tournament=tournament, deals=outcome.deals, table_ids=table_ids, now=now)
        shown.update(deal.table for deal in outcome.deals)
        if shown:
            record(TablesChanged(tournament.pk, tuple(sorted(shown))))
        self._save_state()

    def _save_state(self) -> None:
        """The tournament's floor fields, when they changed."""
        tournament, floor = self.tournament, self.floor
        # Only what differs from a fresh floor (load reads a missing key as its
        # default), so the draw itself writes nothing here.
        state: dict[str, object] = {}
        if floor.places_taken:
            state["places_taken"] = floor.places_taken
        if floor.breaking is not None:
            state["breaking"] = floor.breaking
        if floor.round_busts:
            state["round_busts"] = {str(pk): chips for pk, chips in floor.round_busts.items()}
        hand_for_hand = floor.hand_for_hand and not floor.over
        if hand_for_hand != tournament.hand_for_hand:
            audit_log(
                action="tournaments.floor.hand_for_hand",
                subject=tournament,
                data={"on": hand_for_hand, "players_left": floor.players_left},
            )
        if state != tournament.floor_state or hand_for_hand != tournament.hand_for_hand:
            if hand_for_hand != tournament.hand_for_hand:
                hands_reread(tournament.pk)  # the bots stop thinking, or think again
            tournament.floor_state, tournament.hand_for_hand = state, hand_for_hand
            tournament.save(update_fields=["floor_state", "hand_for_hand", "updated_at"])

    def _save_finishes(self, outcome: Outcome[int], now: datetime) -> None:
        finished = {}
        for finish in outcome.finishes:
            out = not (outcome.finished and finish.best == 1)
            finished[finish.player] = {
                "finish_best": finish.best,
                "finish_worst": finish.worst,
                "status": EntryStatus.ELIMINATED if out else EntryStatus.ACTIVE,
                "ended_at": now,
                "table": None,
                "seat": None,
            }
        _entries_update(finished)
        audit_log(
            action="tournaments.floor.eliminated",
            subject=self.tournament,
            data={"at": now.isoformat(), "places": [[f.player, f.best, f.worst] for f in outcome.finishes]},
        )
