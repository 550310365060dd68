"""Breaks and self-exclusion (BEK 1274/2019 section 23), as the player chooses them: a
24-hour break, a temporary exclusion of 30 days or more, a permanent one that closes
the account. What happens to his play is fair to him and to the others: every event
he is registered in that has not started takes his entry back with a refund in the
form paid; at a table he is sat out, so the rules play his stack as an absent
player's (rule 18.4), and prizes are paid as won."""

from datetime import datetime, timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from audit.services import audit_log
from responsible.models import Exclusion, ExclusionKind
from responsible.rules import BREAK, LONGEST_EXCLUSION_DAYS, SHORTEST_EXCLUSION_DAYS
from responsible.services import DepositRefused
from tournaments.models import Entry, EntryStatus
from tournaments.services.entries import entry_unregister_receipt
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import entry_sit_out


def exclusion_start(*, player: AbstractBaseUser, kind: str, days: int | None = None, now: datetime) -> Exclusion:
    """Start the break or exclusion the player chose; then his registrations and seats
    as the module says. DepositRefused (a message for him) for a length the room
    does not offer."""
    if kind == ExclusionKind.BREAK:
        ends_at: datetime | None = now + BREAK
    elif kind == ExclusionKind.TEMPORARY:
        if days is None or not SHORTEST_EXCLUSION_DAYS <= days <= LONGEST_EXCLUSION_DAYS:
            raise DepositRefused(
                _("An exclusion lasts from %(shortest)s to %(longest)s days.")
                % {"shortest": SHORTEST_EXCLUSION_DAYS, "longest": LONGEST_EXCLUSION_DAYS}
            )
        ends_at = now + timedelta(days=days)
    elif kind == ExclusionKind.PERMANENT:
        ends_at = None
    else:
        raise ValueError(f"Unknown kind {kind!r}.")
    with transaction.atomic():
        exclusion = Exclusion.objects.create(player_id=player.pk, kind=kind, starts_at=now, ends_at=ends_at)
        audit_log(
            action=f"responsible.exclusion.{kind}",
            subject=player,
            actor=player,
            data={"until": ends_at.isoformat() if ends_at else None},
        )
    _play_stopped(player, now)
    return exclusion


def _play_stopped(player: AbstractBaseUser, now: datetime) -> None:
    """Each entry of his on its own: one event's refusal leaves the others done."""
    entries = Entry.objects.filter(player_id=player.pk, status=EntryStatus.ACTIVE).select_related("tournament")
    for entry in entries:
        try:
            if entry.tournament.started_at is None:
                entry_unregister_receipt(tournament_id=entry.tournament_id, player=player, now=now, excluded=True)  # type: ignore[arg-type]  # our User
            elif entry.table_id is not None and not entry.sitting_out:
                entry_sit_out(tournament_id=entry.tournament_id, player_id=player.pk, sitting_out=True, now=now)
        except TournamentError:
            continue  # it started meanwhile: his stack plays as an absent player's (rule 18.4)
