"""Knockout bounties paid (rules 24-27): when a hand is given to the floor, each
player it knocked out has his bounty (what his entry's purchases paid into the
tournament's bounty account) paid at once to the winners of his relevant pot
(tournaments.rules.bounties), from that account to their wallets, in the report's
transaction; the winner of the tournament gets his own (rule 27). Each payment
has its own idempotency key: a report repeated never pays twice."""

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.db.models import Sum

from tournaments.models import BountyKind, Entry, Hand, Purchase, Tournament
from tournaments.rules.bounties import PotWinners, awards
from wallet.models import Account, AccountKind, TransferReason
from wallet.services import account_get, transfer_create, wallet_account

if TYPE_CHECKING:
    from accounts.models import User


def bounties_pay(*, tournament: Tournament, rows: list[Hand]) -> None:
    """The bounties of the players knocked out in `rows` (hands the floor has just
    taken), paid and recorded on each hand; in a knockout event only."""
    if tournament.bounty_kind != BountyKind.KNOCKOUT:
        return
    knocked = {row.pk: _out(row) for row in rows}
    victims = {entry for out in knocked.values() for entry in out.values()}
    if not victims:
        return
    owed = _bounties(victims)
    winners = {entry for row in rows if knocked[row.pk] for entry in map(int, row.seats.values())}
    players = {entry.pk: entry.player for entry in Entry.objects.filter(pk__in=winners).select_related("player")}
    names = dict(Entry.objects.filter(pk__in=victims).values_list("pk", "player__screen_name"))
    account = _account(tournament)
    for row in rows:
        out = knocked[row.pk]
        if not out:
            continue
        result = row.result or {}
        pots = [PotWinners(tuple(pot["eligible"]), tuple(pot["high"])) for pot in result.get("pots", [])]
        owed_here = {seat: owed.get(entry, 0) for seat, entry in out.items()}
        paid = awards(pots, owed_here, button=row.setup["button"], seats=[int(seat) for seat in row.seats])
        row.bounties = []
        for seat, shares in paid.items():
            victim = out[seat]
            won = {int(row.seats[str(winner)]): amount for winner, amount in shares.items() if amount}
            for winner, amount in won.items():
                memo = f"bounty of {names[victim]}"
                _pay(tournament, account, players[winner], amount, key=f"{victim}:{winner}", memo=memo)
            row.bounties.append({"victim": victim, "won": {str(winner): amount for winner, amount in won.items()}})
        if row.bounties:
            row.save(update_fields=["bounties"])


def bounty_pay_winner(*, tournament: Tournament) -> None:
    """Rule 27, a knockout event over: its winner gets his own bounty."""
    if tournament.bounty_kind != BountyKind.KNOCKOUT:
        return
    winner = Entry.objects.filter(tournament=tournament, finish_best=1).select_related("player").first()
    if winner is None:
        return
    amount = _bounties([winner.pk]).get(winner.pk, 0)
    if amount:
        _pay(tournament, _account(tournament), winner.player, amount, key=f"{winner.pk}:own", memo="own bounty")


def _out(row: Hand) -> dict[int, int]:
    """The seats (and their entries) the hand knocked out: chips at its start, none at its end."""
    start, end = row.setup["stacks"], (row.result or {}).get("stacks", {})
    return {int(seat): int(row.seats[seat]) for seat, chips in end.items() if chips == 0 and start[seat] > 0}


def _bounties(entries: Iterable[int]) -> dict[int, int]:
    """Each entry's bounty: what its purchases paid into the bounty account."""
    paid: dict[int, int] = defaultdict(int)
    purchases = Purchase.objects.filter(entry__in=list(entries), refunded_at=None)
    for entry, amount in purchases.values("entry").annotate(paid=Sum("bounty")).values_list("entry", "paid"):
        paid[entry] = amount or 0
    return paid


def _account(tournament: Tournament) -> Account:
    return account_get(kind=AccountKind.BOUNTIES, currency=tournament.pool_currency, ref=f"tournament:{tournament.pk}")


def _pay(tournament: Tournament, account: Account, player: "User", amount: int, *, key: str, memo: str) -> None:
    transfer_create(
        source=account,
        destination=wallet_account(player, account.currency),
        amount=amount,
        reason=TransferReason.BOUNTY,
        idempotency_key=f"tournament:{tournament.pk}:bounty:{key}",
        memo=memo,
    )
