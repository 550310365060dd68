"""Breaks and self-exclusion (BEK 1274/2019 section 23), as the player chooses them: a
24-hour break, a temporary exclusion of 30 days or more, a permanent one that closes
the account. What happens to his play is fair to him and to the others: every event
he is registered in that has not started takes his entry back with a refund in the
form paid; at a table he is sat out, so the rules play his stack as an absent
player's (rule 18.4), and prizes are paid as won. Every browser session and API
token of his ends at once. Staff lift a lock set by mistake, with a reason."""

import json
from datetime import datetime, timedelta
from importlib import import_module

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from accounts.models import User
from audit.services import audit_log
from live.sending import send as live_send
from responsible.models import Exclusion, ExclusionKind, PlayerSession
from responsible.rules import BREAK, LONGEST_EXCLUSION_DAYS, SHORTEST_EXCLUSION_DAYS
from responsible.services import ResponsibleRefusal, player_lock
from tournaments.models import Entry, EntryStatus
from tournaments.services.entries import entry_unregister_receipt
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import entry_sit_out


def exclusion_start(*, player: AbstractBaseUser, kind: str, days: int | None = None, now: datetime) -> Exclusion:
    """Start the break or exclusion the player chose; then his registrations and seats
    as the module says. ResponsibleRefusal (a message for him) for a length the room
    does not offer."""
    if kind == ExclusionKind.BREAK:
        ends_at: datetime | None = now + BREAK
    elif kind == ExclusionKind.TEMPORARY:
        if days is None or not SHORTEST_EXCLUSION_DAYS <= days <= LONGEST_EXCLUSION_DAYS:
            raise ResponsibleRefusal(
                _("An exclusion lasts from %(shortest)s to %(longest)s days.")
                % {"shortest": SHORTEST_EXCLUSION_DAYS, "longest": LONGEST_EXCLUSION_DAYS}
            )
        ends_at = now + timedelta(days=days)
    elif kind == ExclusionKind.PERMANENT:
        ends_at = None
    else:
        raise ValueError(f"Unknown kind {kind!r}.")
    with transaction.atomic():
        player_lock(player.pk)  # a deposit at the same moment lands before it, or waits and is refused
        exclusion = Exclusion.objects.create(player_id=player.pk, kind=kind, starts_at=now, ends_at=ends_at)
        if kind == ExclusionKind.PERMANENT:
            _account_closed(exclusion)
        audit_log(
            action=f"responsible.exclusion.{kind}",
            subject=player,
            actor=player,
            data={"until": ends_at.isoformat() if ends_at else None},
        )
    _signed_out_everywhere(player.pk)
    _play_stopped(player, now)
    return exclusion


def _account_closed(exclusion: Exclusion) -> None:
    """The account is closed: its national identity number moves to the exclusion,
    which refuses it a new account for a year (responsible.services.sign_up_refusal)."""
    player = User.objects.select_for_update().get(pk=exclusion.player_id)
    if player.national_id:
        exclusion.national_id, player.national_id = player.national_id, ""
        exclusion.save(update_fields=["national_id"])
        player.save(update_fields=["national_id"])


def _signed_out_everywhere(player_id: int) -> None:
    """Every browser session and the API token of the player ended."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    sessions = PlayerSession.objects.filter(player_id=player_id)
    for key in sessions.values_list("session_key", flat=True):
        store().delete(key)
    sessions.delete()
    Token.objects.filter(user_id=player_id).delete()
    # His open pages load again, logged out; their sockets close with them.
    transaction.on_commit(lambda: live_send(f"user-{player_id}", json.dumps({"signed_out": True})))


def exclusion_lift(*, exclusion_id: int, staff: AbstractBaseUser, reason: str, now: datetime) -> Exclusion:
    """Staff lift a break or exclusion set by mistake, with the reason (audited); a
    closed account gets its national identity number back. ResponsibleRefusal if it
    is over already, the reason is blank, or a new account holds the number."""
    reason = reason.strip()
    if not reason:
        raise ResponsibleRefusal(_("Say why the lock is lifted: the reason is kept in the audit log."))
    with transaction.atomic():
        exclusion = Exclusion.objects.select_for_update().get(pk=exclusion_id)
        if exclusion.lifted_at is not None or (exclusion.ends_at is not None and exclusion.ends_at <= now):
            raise ResponsibleRefusal(_("This break or exclusion is over already."))
        if exclusion.national_id:
            try:
                with transaction.atomic():  # a sign-up may take the number meanwhile
                    User.objects.filter(pk=exclusion.player_id).update(national_id=exclusion.national_id)
            except IntegrityError:
                raise ResponsibleRefusal(
                    _("Another account holds this person's national identity number now.")
                ) from None
            exclusion.national_id = ""
        exclusion.lifted_at, exclusion.lifted_by_id, exclusion.lift_reason = now, staff.pk, reason
        exclusion.save()
        audit_log(
            action="responsible.exclusion.lifted",
            subject=exclusion.player,
            actor=staff,
            reason=reason,
            data={"kind": exclusion.kind, "started": exclusion.starts_at.isoformat()},
        )
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
