"""Use cases that change tournaments. Each owns its transaction and row locks."""

from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.utils import timezone

from audit.services import audit_log
from live.outbox import record
from tournaments.events import TournamentChanged
from tournaments.models import CLOCK_STATE, Status, Tournament
from tournaments.services.hands import hands_reread

# What a clone does not inherit: the instants of what happened to the original.
CLONE_RESETS = (
    "started_at",
    "late_registration_closed_at",
    "first_elimination_at",
    "payouts_locked_at",
    "postponed_from",
    "hand_for_hand",
    "floor_state",
    "finished_at",
    *CLOCK_STATE,
)


def clock_look_now(tournament: Tournament) -> None:
    """The event's times changed: the clock's sweep reads it again at once
    (tournaments.services.clock), instead of at a next transition that may have moved."""
    tournament.next_transition_at = timezone.now()
    tournament.tick_at = None


def tournament_save(
    *, tournament: Tournament, actor: AbstractBaseUser | AnonymousUser, changed: list[str], created: bool
) -> Tournament:
    """Store an admin's edit of an event and audit it (rule 3: parameters may change)."""
    with transaction.atomic():
        clock_look_now(tournament)
        tournament.save()
        if not created:
            hands_reread(tournament.pk)  # its time to act, its bank, ...: read again by each table
        audit_log(
            action="tournaments.tournament.created" if created else "tournaments.tournament.changed",
            subject=tournament,
            actor=actor,
            data={"fields": changed},
        )
        record(TournamentChanged(tournament.pk, created=created))
    return tournament


def tournament_clone(*, tournament: Tournament, actor: AbstractBaseUser | AnonymousUser, start: datetime) -> Tournament:
    """A copy of an event at a new start time, with no entries (recurring events)."""
    with transaction.atomic():
        clone = Tournament.objects.get(pk=tournament.pk)
        clone.pk = None
        clone.id = None
        clone.status = Status.ANNOUNCED
        clone.entries_count = 0
        clone.prize_contributions = 0
        unplayed = Tournament()
        for field in CLONE_RESETS:
            setattr(clone, field, getattr(unplayed, field))
        clock_look_now(clone)
        shift = start - tournament.scheduled_start
        clone.scheduled_start = start
        if tournament.registration_opens_at is not None:
            clone.registration_opens_at = tournament.registration_opens_at + shift
        clone.save()
        audit_log(action="tournaments.tournament.cloned", subject=clone, actor=actor, data={"from": tournament.pk})
        record(TournamentChanged(clone.pk, created=True))
    return clone
