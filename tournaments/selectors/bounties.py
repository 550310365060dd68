"""Reads of an event's bounties (rules 24-28): who carries one, how much, who won what."""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Sum

from tournaments.models import (
    ENTERED,
    BountyKind,
    Entry,
    Purchase,
    Status,
    Tournament,
)
from tournaments.rules.pricing import ENTRANTS_PAY_BOUNTY, ROOM_PAYS_BOUNTY
from wallet.models import Transfer, TransferReason

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
