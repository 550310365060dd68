"""The tournament clock (rules 2, 9, 17).

The clock is data: the schedule (levels and breaks from the start) and the instants
of what has happened (the start, the times the clock stood still). One service,
`tournament_advance`, brings a tournament up to an instant under its row lock: each
transition due since the last one applied is applied once, with an audit row
stamped with its scheduled instant, and the stored reading (status, level, the
instants a countdown needs, the next transition) is refreshed. Celery only decides
when to call it (tournaments.tasks): a task at the next transition, queued after
the commit, and a sweep that catches up whatever a stopped worker missed. A late,
repeated or needless call changes nothing wrong. What the floor's work calls for
beyond the floor is done here too (tournament_follow_up): the clock moving on, a
satellite's seats, a break beginning.

Lock order, as everywhere: the tournament's row, then wallet accounts.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from audit.services import audit_log
from live.outbox import record
from tournaments.events import TournamentChanged
from tournaments.models import CLOCK_STATE, BlindLevel, EntryStatus, Purchase, Status, Table, Tournament, rule_level
from tournaments.rules.lifecycle import CLOCK_CHANGES, Change, Transition, status_at, transitions
from tournaments.rules.schedule import Level, Schedule, read_clock
from tournaments.selectors.schedules import (
    addon_window,
    rebuy_period_ends_at,
    tournament_deadlines,
    tournament_schedule,
)
from tournaments.services.cancellation import CancelMode, tournament_cancel
from tournaments.services.floor import FollowUps, floor_draw, floor_payouts_lock, floor_release
from tournaments.services.hands import TURN_READS, hands_reread
from tournaments.services.refusals import refuse
from tournaments.services.satellites import satellite_award_seats
from tournaments.services.ticks import TICK_HORIZON, clock_tick_queue
from wallet.models import TicketStatus
from wallet.tickets import ticket_consume

FINAL = (Status.FINISHED, Status.CANCELLED)
RUNNING = (Status.LATE_REGISTRATION, Status.RUNNING, Status.ON_BREAK)

# What tournament_advance keeps; only those that changed are written.
CLOCK_FIELDS = (
    "status",
    "started_at",
    "late_registration_closed_at",
    "payouts_locked_at",
    *CLOCK_STATE,
    "next_transition_at",
    "tick_at",
)
type ClockState = dict[str, object]  # CLOCK_FIELDS' values, to write only what changed
type StructureLevels = Mapping[int, list[Level]]  # by blind structure


def tournament_advance(*, tournament_id: int, now: datetime, levels: StructureLevels | None = None) -> str:
    """Apply every transition due by `now` and store what the clock then reads;
    returns the status. A tournament below its minimum entrants at the start is
    cancelled with everything paid returned (rule 22). `levels`: blind structures'
    levels read before the lock (structure_levels), for a caller advancing many."""
    with transaction.atomic():
        return _advance(_locked(tournament_id, levels), now)


def tournaments_advance(*, tournament_ids: Collection[int], now: datetime) -> list[int]:
    """tournament_advance for several tournaments (a tick's, whose transitions fall in
    one step) in one transaction: the rows no other service holds locked in one
    query, in id order, and their structures' levels read in one. Returns the ids
    it left alone, held elsewhere: never waited for while the others are held (no
    deadlock), the caller advances them on their own. A failure rolls back them all."""
    with transaction.atomic():
        free = Tournament.objects.locked(skip_locked=True).filter(pk__in=tournament_ids).order_by("pk")
        tournaments = list(free)
        levels = structure_levels({tournament.blind_structure_id for tournament in tournaments})
        for tournament in tournaments:
            _advance(_Locked(tournament, levels[tournament.blind_structure_id]), now)
    advanced = {tournament.pk for tournament in tournaments}
    return [tournament_id for tournament_id in tournament_ids if tournament_id not in advanced]


def tournament_pause(*, tournament_id: int, actor: AbstractBaseUser | None, reason: str, now: datetime) -> Tournament:
    """Stop the clock (staff, or a deal negotiation: rules 17, 23): levels and breaks
    stand still until tournament_resume."""
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    with transaction.atomic():
        locked = _locked(tournament_id)
        tournament = locked.tournament
        before = _clock_state(tournament)
        if tournament.status in FINAL or not _apply_due(locked, now):
            raise refuse("not_running")
        _read(locked, now)
        if tournament.paused_at is not None:
            raise refuse("already_paused")
        if tournament.status not in RUNNING:
            raise refuse("not_running")
        tournament.paused_at = now
        tournament.pause_reason = reason[:200]
        audit_log(
            action="tournaments.clock.paused",
            subject=tournament,
            actor=actor,
            reason=reason[:200],
            data={"at": now.isoformat()},
        )
        _store(locked, now, before, changed_at=now)
        return tournament


def tournament_resume(*, tournament_id: int, actor: AbstractBaseUser | None, now: datetime) -> Tournament:
    """Start the clock again; everything still to come happens as much later as the
    pause lasted."""
    with transaction.atomic():
        locked = _locked(tournament_id)
        tournament = locked.tournament
        if tournament.paused_at is None or tournament.status in FINAL:
            raise refuse("not_paused")
        before = _clock_state(tournament)
        tournament.clock_stops = [*tournament.clock_stops, [tournament.paused_at.isoformat(), now.isoformat()]]
        paused_for = (now - tournament.paused_at).total_seconds()
        tournament.paused_at = None
        tournament.pause_reason = ""
        audit_log(
            action="tournaments.clock.resumed",
            subject=tournament,
            actor=actor,
            data={"at": now.isoformat(), "paused_for": paused_for},
        )
        if _apply_due(locked, now):
            _store(locked, now, before, changed_at=now)
        return tournament


def tournament_break_release(*, tournament_id: int, at: datetime) -> None:
    """The last table has finished its hand: the pending break begins at `at`, and
    the clock's wait for it moves everything after by as much (rule 17)."""
    with transaction.atomic():
        locked = _locked(tournament_id)
        tournament = locked.tournament
        since = tournament.break_pending_since
        if since is None or tournament.status in FINAL:
            return
        before = _clock_state(tournament)
        if at > since:
            tournament.clock_stops = [*tournament.clock_stops, [since.isoformat(), at.isoformat()]]
        tournament.break_pending_since = None
        _begin_break(tournament, at)
        if _apply_due(locked, at):  # the clock now reads `at`
            _store(locked, at, before)


def tournament_follow_up(*, tournament: Tournament, follow: FollowUps, now: datetime) -> None:
    """What the floor's work called for beyond the floor (floor.FollowUps), in its
    transaction under the tournament's row lock, in order: the clock moves on from
    late registration closed at the first elimination (rule 9), a satellite's seats
    are awarded (rule 10), the break waiting for the tables begins (rule 17).
    `tournament` is read again after."""
    if not follow:
        return
    if follow.close_late_registration:
        tournament_advance(tournament_id=tournament.pk, now=now)
    if follow.award_seats:
        finishers = tournament.entries.filter(finish_best__isnull=False).order_by("finish_best", "-chips", "pk")
        satellite_award_seats(
            satellite_id=tournament.pk,
            finishers=list(finishers.values_list("player_id", flat=True)),
            actor=None,
            now=now,
        )
    if follow.begin_break:
        tournament_break_release(tournament_id=tournament.pk, at=now)
    tournament.refresh_from_db()


@dataclass(frozen=True)
class _Locked:
    """A tournament under its row lock, and its structure's levels, read once: every
    schedule of the call is built from them."""

    tournament: Tournament
    levels: list[Level]

    def schedule(self, now: datetime) -> Schedule:
        return tournament_schedule(self.tournament, now, levels=self.levels)


def structure_levels(structure_ids: Collection[int]) -> StructureLevels:
    """The levels of these blind structures, as the rules take them, in one query."""
    levels: dict[int, list[Level]] = {structure_id: [] for structure_id in structure_ids}
    rows = BlindLevel.objects.filter(structure_id__in=structure_ids).order_by("structure_id", "position")
    for structure_id, *level in rows.values_list("structure_id", *BlindLevel.RULE_FIELDS):
        levels[structure_id].append(rule_level(level))
    return levels


def _locked(tournament_id: int, levels: StructureLevels | None = None) -> _Locked:
    tournament = Tournament.objects.locked().get(pk=tournament_id)
    structure = tournament.blind_structure_id
    if levels is None or structure not in levels:
        levels = structure_levels([structure])
    return _Locked(tournament, levels[structure])


def _advance(locked: _Locked, now: datetime) -> str:
    tournament = locked.tournament
    if tournament.status in FINAL:
        return tournament.status
    before = _clock_state(tournament)
    if not _apply_due(locked, now):
        return Status.CANCELLED
    _store(locked, now, before)
    return tournament.status


def tables_playing(tournament: Tournament) -> bool:
    """Whether a table of the tournament is still playing a hand: the barrier a
    break waits on (rule 17)."""
    return Table.objects.filter(tournament=tournament, broken_at=None, playing=True).exists()


def _apply_due(locked: _Locked, now: datetime) -> bool:
    """Apply the transitions due by `now`, in order; False if the tournament was
    cancelled for want of entrants."""
    tournament = locked.tournament
    since = tournament.clock_at
    for transition in _transitions(locked, now):
        if since is not None and transition.at <= since:
            continue
        if transition.at > now:
            break
        if transition.change is Change.LATE_REGISTRATION_CLOSED and transition.at > _late_registration_closes_at(
            tournament
        ):
            continue  # closed at the start instead (every seat taken)
        if transition.change is Change.STARTED:
            if tournament.entries_count < tournament.min_entrants:
                _cancel_short_of_entrants(tournament, transition.at)
                return False
            _start(tournament)
        elif transition.change is Change.BREAK_BEGAN:
            if tournament.break_pending_since is not None:
                # Already waiting for the tables since then (a wall-clock transition
                # brought the call): the clock still stands at the pending break.
                return True
            if tables_playing(tournament):
                # The clock stops here; tournament_break_release goes on from it.
                tournament.break_pending_since = transition.at
                tournament.clock_at = transition.at
                audit_log(
                    action="tournaments.clock.break_pending", subject=tournament, data={"at": transition.at.isoformat()}
                )
                return True
            _begin_break(tournament, transition.at)
            continue
        else:
            _audit_transition(tournament, transition)
        tournament.clock_at = transition.at
    return True


def _transitions(locked: _Locked, now: datetime, schedule: Schedule | None = None) -> list[Transition]:
    tournament = locked.tournament
    return transitions(
        start=tournament.scheduled_start,
        registration_opens_at=tournament.registration_opens_at,
        late_registration_closes_at=_late_registration_closes_at(tournament),
        schedule=schedule or locked.schedule(now),
    )


def _late_registration_closes_at(tournament: Tournament) -> datetime:
    closes = tournament_deadlines(tournament).late_registration_closes_at
    if tournament.late_registration_closed_at is not None:
        closes = min(closes, tournament.late_registration_closed_at)
    return closes


def _start(tournament: Tournament) -> None:
    tournament.started_at = tournament.scheduled_start
    tournament.clock_at = tournament.scheduled_start
    if tournament.entries_count >= tournament.max_entrants:
        # Every seat was filled at the start: late registration closes at once (rule 9).
        tournament.late_registration_closed_at = tournament.scheduled_start
        _audit_transition(tournament, Transition(tournament.scheduled_start, Change.LATE_REGISTRATION_CLOSED))
    # The tickets the active entries were paid with, reserved until the start.
    reserved = Purchase.objects.filter(
        entry__tournament=tournament, entry__status=EntryStatus.ACTIVE, ticket__status=TicketStatus.RESERVED
    )
    for ticket_id in reserved.values_list("ticket_id", flat=True):
        ticket_consume(ticket_id=ticket_id)
    floor_draw(tournament=tournament, now=tournament.scheduled_start)
    audit_log(
        action="tournaments.tournament.started",
        subject=tournament,
        data={"entries": tournament.entries_count, "at": tournament.scheduled_start.isoformat()},
    )


def _cancel_short_of_entrants(tournament: Tournament, at: datetime) -> None:
    tournament_cancel(
        tournament_id=tournament.pk,
        actor=None,
        reason=f"Fewer than the minimum {tournament.min_entrants} entrants at the start.",
        now=at,
        mode=CancelMode.ROLLBACK,
    )
    Tournament.objects.filter(pk=tournament.pk).update(next_transition_at=None, tick_at=None, clock_at=at)


def _begin_break(tournament: Tournament, at: datetime) -> None:
    tournament.clock_at = at
    audit_log(action=f"tournaments.clock.{Change.BREAK_BEGAN}", subject=tournament, data={"at": at.isoformat()})


def _audit_transition(tournament: Tournament, transition: Transition) -> None:
    data: dict[str, object] = {"at": transition.at.isoformat()}
    if transition.level is not None:
        data["level"] = transition.level
    audit_log(action=f"tournaments.clock.{transition.change}", subject=tournament, data=data)


def _store(locked: _Locked, now: datetime, before: ClockState, changed_at: datetime | None = None) -> None:
    """Refresh the reading, queue the next task, and write what changed; a status
    change is audited at `changed_at`, by default the last transition's instant."""
    tournament = locked.tournament
    _read(locked, now, changed_at=changed_at)
    _queue_tick(tournament, now)
    changed = [field for field in CLOCK_FIELDS if getattr(tournament, field) != before[field]]
    if changed:
        tournament.save(update_fields=[*changed, "updated_at"])
    if TURN_READS.intersection(changed):
        hands_reread(tournament.pk)
    going = tournament.paused_at is None and tournament.break_pending_since is None
    if changed and going and _stopped(before) and tournament.status in (Status.RUNNING, Status.LATE_REGISTRATION):
        # The tables a break or a pause held deal again.
        tournament_follow_up(tournament=tournament, follow=floor_release(tournament=tournament, now=now), now=now)
    shown = set(changed) - {"clock_at", "next_transition_at", "tick_at"}
    if shown:
        # Something a page shows: status, level, a countdown's instant, a pause.
        clock_only = shown <= {"level", "level_ends_at", "break_ends_at", "break_pending_since", "clock_stops"}
        record(TournamentChanged(tournament.pk, clock_only=clock_only, clock=True))


def _read(locked: _Locked, now: datetime, changed_at: datetime | None = None) -> None:
    """What the clock says at `now`: the status, the level and the instants the
    countdowns need, the payouts locked once due (rule 7), the next transition."""
    tournament, schedule = locked.tournament, locked.schedule(now)
    late_closes = _late_registration_closes_at(tournament)
    due = status_at(
        now=now,
        current=tournament.status,
        start=tournament.scheduled_start,
        registration_opens_at=tournament.registration_opens_at,
        late_registration_closes_at=late_closes,
        late_registration_open=True,
        schedule=schedule,
        paused=tournament.paused_at is not None,
    )
    if due != tournament.status:
        audit_log(
            action="tournaments.tournament.status",
            subject=tournament,
            data={"from": tournament.status, "to": due, "at": (changed_at or tournament.clock_at or now).isoformat()},
        )
        tournament.status = due
    stopped = tournament.paused_at is not None or tournament.break_pending_since is not None
    if tournament.started_at is not None and tournament.paused_at is None:
        # While paused, the countdown shows what was left when the clock stopped.
        reading = read_clock(schedule, now)
        level = reading.level
        tournament.level = level.number if level else 0
        # The last level runs on: no end to count down to.
        tournament.level_ends_at = level.ends_at if level and level.number < len(schedule.levels) else None
        pending = tournament.break_pending_since is not None
        tournament.break_ends_at = reading.on_break.ends_at if reading.on_break and not pending else None
    _lock_payouts(tournament, now, schedule, late_closes)
    upcoming = (
        t.at for t in _transitions(locked, now, schedule) if t.at > now and not (stopped and t.change in CLOCK_CHANGES)
    )
    tournament.next_transition_at = next(upcoming, None)


def _lock_payouts(tournament: Tournament, now: datetime, schedule: Schedule, late_closes: datetime) -> None:
    """Registration and the rebuy period are over: the payouts stop being provisional."""
    if tournament.payouts_locked_at is not None or tournament.started_at is None:
        return
    rebuys_end = max(
        (t for t in (rebuy_period_ends_at(tournament, schedule), addon_window(tournament, schedule)[1]) if t),
        default=None,
    )
    locks_at = max(late_closes, rebuys_end or late_closes)
    if locks_at <= now:
        floor_payouts_lock(tournament=tournament, at=locks_at, now=now)


def _queue_tick(tournament: Tournament, now: datetime) -> None:
    due = tournament.next_transition_at
    if due is None or due - now > TICK_HORIZON or tournament.tick_at == due:
        return
    tournament.tick_at = due
    # robust: a broker that is down must not undo the transition; the sweep catches up.
    transaction.on_commit(lambda: clock_tick_queue(due), robust=True)


def _stopped(state: ClockState) -> bool:
    """Whether the clock stood still (a break, a pause, a break's wait) in `state`."""
    return (
        state["status"] == Status.ON_BREAK or state["paused_at"] is not None or state["break_pending_since"] is not None
    )


def _clock_state(tournament: Tournament) -> ClockState:
    return {field: getattr(tournament, field) for field in CLOCK_FIELDS}
