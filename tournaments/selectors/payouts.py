"""Reads of an event's prize pool and payouts (rule 7), and the prizes shown in public."""

from dataclasses import dataclass
from datetime import datetime

from tournaments.models import (
    PrizeHold,
    Status,
    Tournament,
)
from tournaments.rules.payouts import PrizeStructure, payout_table, prize_pool
from tournaments.rules.pricing import ENTRANTS_PAY_BOUNTY
from tournaments.selectors.schedules import tournament_deadlines, tournament_schedule


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


def public_prize(prize: int | None, hold: str) -> tuple[int | None, bool]:
    """A place's prize as everyone sees it, and whether it is forfeited (rule 20): one
    withheld for review shows as any other, so the review stays private; one
    confiscated was paid to nobody, so it shows as 0, forfeited."""
    forfeited = hold == PrizeHold.CONFISCATED
    return (0 if forfeited else prize), forfeited
