"""Sit & Gos: events that start when their seats are full, not at a time.

One event of each active Sit & Go is open at a time (the unique index
one_open_event_per_sit_and_go says so to the database as well). The registration
that takes its last seat, under the event's row lock, moves its start to that
instant (the clock's tick, queued for it at the commit, draws the seats: the button
on seat 1, rule 5) and opens the next event in the same transaction: nobody can
take a seat in a full event, and the next is there the moment one fills. Until it
fills an event may be left (unregistration is open up to its start)."""

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from audit.services import audit_log
from live.outbox import record
from tournaments.events import TournamentChanged
from tournaments.models import BreakPolicyKind, SitAndGo, Status, Tournament
from tournaments.services.editing import clock_look_now
from tournaments.services.ticks import clock_tick_queue

# A waiting event's start, until it fills: far beyond any wait for players.
WAITING = timedelta(days=365)

# The event's fields taken from its Sit & Go as they are.
COPIED = (
    "game",
    "betting",
    "entry_kind",
    "currency",
    "buy_in",
    "fee",
    "starting_stack",
    "table_size",
    "blind_structure",
    "prize_structure",
    "heads_up",
    "shootout",
    "action_seconds",
    "deals_allowed",
    "leader_board",
)


def sit_and_go_open(*, sit_and_go: SitAndGo, now: datetime) -> Tournament | None:
    """The Sit & Go's next event, taking registrations from `now`; None when it is
    not active or one of its events is open already."""
    if not sit_and_go.active:
        return None
    number = Tournament.objects.filter(sit_and_go=sit_and_go).count() + 1
    try:
        with transaction.atomic():  # a savepoint: a second opener's refusal leaves the caller's work whole
            event = Tournament.objects.create(
                name=f"{sit_and_go.name} #{number}",
                sit_and_go=sit_and_go,
                **{field: getattr(sit_and_go, field) for field in COPIED},
                min_entrants=sit_and_go.seats,
                max_entrants=sit_and_go.seats,
                scheduled_start=now + WAITING,
                registration_opens_at=now,
                late_registration_minutes=0,
                unregistration_deadline_minutes=0,
                break_policy=BreakPolicyKind.NONE,
            )
    except IntegrityError:
        return None  # one is open: opened by a registration or an admin at the same moment
    audit_log(action="tournaments.sit_and_go.opened", subject=event, data={"sit_and_go": sit_and_go.pk})
    record(TournamentChanged(event.pk, created=True))
    return event


def sit_and_go_filled(tournament: Tournament, *, now: datetime) -> None:
    """The registration that took the last seat of a Sit & Go's event, under the
    event's row lock: the event starts now and the next one opens."""
    assert tournament.sit_and_go is not None  # the caller's check
    tournament.scheduled_start = now
    clock_look_now(tournament)
    tournament.save(update_fields=["scheduled_start", "next_transition_at", "tick_at", "updated_at"])
    # robust: a broker that is down must not undo the registration; the clock's sweep starts it.
    transaction.on_commit(lambda: clock_tick_queue(now), robust=True)
    audit_log(
        action="tournaments.sit_and_go.filled",
        subject=tournament,
        data={"entries": tournament.entries_count, "at": now.isoformat()},
    )
    sit_and_go_open(sit_and_go=tournament.sit_and_go, now=now)


def sit_and_gos_open(*, now: datetime) -> list[Tournament]:
    """An open event for every active Sit & Go that has none (after an admin's
    change, or at the demo's start); the ones opened."""
    waiting = Tournament.objects.filter(started_at__isnull=True).exclude(status=Status.CANCELLED)
    opened = []
    for sit_and_go in SitAndGo.objects.filter(active=True):
        has_open = any(event.entries_count < event.max_entrants for event in waiting.filter(sit_and_go=sit_and_go))
        if not has_open and (event := sit_and_go_open(sit_and_go=sit_and_go, now=now)) is not None:
            opened.append(event)
    return opened
