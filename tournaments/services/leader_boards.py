"""Leader Board points: earned by each finish when an event that counts finishes,
withdrawn when a review voids the result (rules 9, 20, 21). Points are never money
and never part of a deal (rule 23): a deal divides the prize pool alone."""

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser

from audit.services import audit_log
from live.outbox import record
from tournaments.events import LeaderBoardChanged
from tournaments.models import BoardKind, Entry, LeaderBoard, LeaderBoardPoints, PrizeHold, Tournament
from tournaments.rules.leader_boards import finish_points


def board_of(tournament: Tournament) -> LeaderBoard:
    """The board an event's finishes count for: the Sit & Go board for a Sit & Go's
    event, else the Tournament board (made with the formula's defaults when first used)."""
    kind = BoardKind.SIT_AND_GO if tournament.sit_and_go_id is not None else BoardKind.TOURNAMENT
    board, _ = LeaderBoard.objects.get_or_create(kind=kind)
    return board


def reference_buy_in(tournament: Tournament) -> float:
    """The buy-in in whole units of the reference money (settings.LOBBY_SORT_RATES)."""
    return tournament.buy_in / 100 * settings.LOBBY_SORT_RATES.get(tournament.pool_currency, 1.0)


def leader_board_award(*, tournament: Tournament, now: datetime) -> int:
    """Points for every placed finish of a finished event that counts, in the floor's
    transaction; again, nothing more (one row an entry). How many were awarded."""
    if not tournament.leader_board:
        return 0
    board = board_of(tournament)
    placed = Entry.objects.filter(tournament=tournament, finish_best__isnull=False).exclude(
        prize_hold=PrizeHold.CONFISCATED
    )
    awarded = 0
    for entry in placed.exclude(leader_board_points__isnull=False):
        place = entry.finish_best or 1  # filtered: placed
        LeaderBoardPoints.objects.create(
            board=board,
            entry=entry,
            player_id=entry.player_id,
            tournament=tournament,
            place=place,
            entrants=tournament.entries_count,
            points=finish_points(
                entrants=max(tournament.entries_count, place),
                place=place,
                buy_in=reference_buy_in(tournament),
                scale=float(board.scale),
                offset=float(board.buy_in_offset),
            ),
            earned_at=now,
        )
        awarded += 1
    if awarded:
        audit_log(
            action="tournaments.leader_board.awarded",
            subject=tournament,
            data={"board": board.kind, "finishes": awarded},
        )
        record(LeaderBoardChanged())
    return awarded


def leader_board_withdraw(
    *, entry: Entry, actor: AbstractBaseUser | None, reason: str, now: datetime
) -> Decimal | None:
    """The points of a result a review voided, withdrawn (kept, marked, audited); the
    points withdrawn, or None when the entry had none standing."""
    points = LeaderBoardPoints.objects.filter(entry=entry, withdrawn_at__isnull=True).first()
    if points is None:
        return None
    points.withdrawn_at = now
    points.save(update_fields=["withdrawn_at"])
    audit_log(
        action="tournaments.leader_board.withdrawn",
        subject=entry,
        actor=actor,
        reason=reason[:200],
        data={"points": str(points.points), "board": points.board.kind},
    )
    record(LeaderBoardChanged())
    return points.points
