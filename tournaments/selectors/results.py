"""A player's results: the events he finished, with his place, prize, bounties and
Leader Board points, what he paid (his own view only), and the totals by money.
What everyone may see is what the room shows in public (Tournament Info's
standings): places, prizes (a confiscated one as 0), bounties won and points."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Sum

from tournaments.models import ENTERED, Entry, LeaderBoardPoints, PrizeHold, Purchase, Status
from wallet.models import Transfer, TransferReason


@dataclass(frozen=True)
class Result:
    tournament_id: int
    name: str
    finished_at: datetime
    place: int | None
    entrants: int
    currency: str  # the prize pool's
    prize: int  # 0 without one; a confiscated prize counts 0 (rule 20)
    bounties: int
    points: Decimal
    paid: int | None  # buy-ins, rebuys and add-ons with fees; None in another player's view


@dataclass
class Totals:
    events: int = 0
    cashes: int = 0
    points: Decimal = Decimal(0)
    best: int | None = None
    won: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # prizes and bounties, by money
    paid: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def player_results(player_id: int, *, own: bool) -> tuple[list[Result], Totals]:
    """The player's finished events, the latest first, and their totals; `own`: the
    player himself, who also sees what he paid."""
    entries = list(
        Entry.objects.filter(player_id=player_id, status__in=ENTERED, tournament__status=Status.FINISHED)
        .select_related("tournament")
        .order_by("-tournament__finished_at", "-pk")
    )
    ids = [entry.tournament_id for entry in entries]
    points = dict(
        LeaderBoardPoints.objects.filter(entry__in=entries, withdrawn_at__isnull=True).values_list("entry_id", "points")
    )
    bounties: dict[int, int] = defaultdict(int)
    paid_out = Transfer.objects.filter(
        reason=TransferReason.BOUNTY, destination__owner_id=player_id, idempotency_key__startswith="tournament:"
    ).exclude(idempotency_key__endswith=":own")
    for key, amount in paid_out.values_list("idempotency_key", "amount"):
        tournament_id = int(key.split(":")[1])  # "tournament:<id>:bounty:..."
        if tournament_id in ids:
            bounties[tournament_id] += amount
    paid: dict[int, int] = {}
    if own:
        bought = (
            Purchase.objects.filter(entry__in=entries, refunded_at__isnull=True)
            .values("entry_id")
            .annotate(spent=Sum("price") + Sum("fee") + Sum("bounty"))
        )
        paid = {row["entry_id"]: row["spent"] for row in bought}
    results, totals = [], Totals()
    for entry in entries:
        tournament = entry.tournament
        prize = 0 if entry.prize_hold == PrizeHold.CONFISCATED else entry.prize or 0
        result = Result(
            tournament_id=tournament.pk,
            name=tournament.name,
            finished_at=tournament.finished_at or tournament.scheduled_start,
            place=entry.finish_best,
            entrants=tournament.entries_count,
            currency=tournament.pool_currency,
            prize=prize,
            bounties=bounties[tournament.pk],
            points=points.get(entry.pk, Decimal(0)),
            paid=paid.get(entry.pk, 0) if own else None,
        )
        results.append(result)
        totals.events += 1
        totals.cashes += prize > 0
        totals.points += result.points
        totals.won[result.currency] += prize + result.bounties
        if own:
            totals.paid[result.currency] += result.paid or 0
        if result.place is not None and (totals.best is None or result.place < totals.best):
            totals.best = result.place
    return results, totals


def running_total(results: list[Result], currency: str, *, own: bool) -> list[tuple[datetime, int]]:
    """The player's results in `currency` added up over time, the earliest first: won
    less paid in his own view, won alone in another's."""
    total, points = 0, []
    for result in sorted(results, key=lambda r: r.finished_at):
        if result.currency != currency:
            continue
        total += result.prize + result.bounties - ((result.paid or 0) if own else 0)
        points.append((result.finished_at, total))
    return points
