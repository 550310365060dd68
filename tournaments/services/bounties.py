"""Bounties paid (rules 24-27): when a hand is given to the floor, each player it
knocked out has the bounty on his head paid at once to the winners of his relevant
pot (tournaments.rules.bounties), from the tournament's bounty account, in the
report's transaction. In a knockout event his head is what his entry paid into
that account, all paid in cash. In a progressive knockout it is that plus what
his own knockouts added to it: the event's share is paid in cash and the rest is
added to each winner's own head (both split the same way, rule 26). The winner
of the event gets his own head (rule 27). In Team Pro and fixed bounty events the
room pays, from the house account: every team pro who plays, or every named
bounty player who plays (rule 28), carries the event's bounty; a bounty player
who wins keeps none (rule 27). Each payment has its own idempotency key: a
report repeated never pays twice."""

from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.db.models import F

from tournaments.models import BountyKind, Entry, Hand, PrizeHold, Tournament
from tournaments.rules.bounties import PotWinners, bounty_shares, knockouts
from tournaments.rules.pricing import ENTRANTS_PAY_BOUNTY, ROOM_PAYS_BOUNTY
from tournaments.selectors.bounties import bounty_heads
from tournaments.services.prizes import bounty_spec
from wallet.models import Account, TransferReason
from wallet.services import (
    account_get,
    house_account_spec,
    transfer_create,
    wallet_account_spec,
)

if TYPE_CHECKING:
    from accounts.models import User


def bounties_pay(
    *, tournament: Tournament, rows: list[Hand], ended: Mapping[int, Mapping[int, int]] | None = None
) -> None:
    """The bounties of the players knocked out in `rows` (hands the floor has just
    taken, in order), paid and recorded on each hand. `ended` gives, for a hand after
    which its table's match ended (rule 18.5, by hand id), every player's chips then:
    the leader took the others' chips, and with them their bounties."""
    if tournament.bounty_kind not in ENTRANTS_PAY_BOUNTY | ROOM_PAYS_BOUNTY:
        return
    # A hand whose bounties are recorded has paid them: a repeat adds nothing to any head.
    rows = [row for row in rows if not row.bounties]
    ended = ended or {}
    by_match = {row.pk: _ended_out(row, ended.get(row.pk, {})) for row in rows}
    knocked = {row.pk: _out(row) | by_match[row.pk] for row in rows}
    victims = {entry for out in knocked.values() for entry in out.values()}
    if not victims:
        return
    winners = {entry for row in rows if knocked[row.pk] for entry in map(int, row.seats.values())}
    players = {entry.pk: entry.player for entry in Entry.objects.filter(pk__in=winners).select_related("player")}
    # Rule 29: a player whose winnings are withheld for review wins his bounties on hold.
    held = set(Entry.objects.filter(pk__in=winners, prize_hold=PrizeHold.WITHHELD).values_list("pk", flat=True))
    names = dict(Entry.objects.filter(pk__in=victims).values_list("pk", "player__screen_name"))
    account = _account(tournament)
    for row in rows:
        out = knocked[row.pk]
        if not out:
            continue
        heads = bounty_heads(tournament, out.values())  # read per hand: an earlier one may have added to them
        result = row.result or {}
        pots = [PotWinners(tuple(pot["eligible"]), tuple(pot["high"])) for pot in result.get("pots", [])]
        seats = [int(seat) for seat in row.seats]
        row.bounties = []
        beaten = knockouts(pots, [seat for seat in out if seat not in by_match[row.pk]])
        # Those the match's end put out lose their chips, and their heads, to its leader.
        leader = tuple(int(seat) for seat, pk in row.seats.items() if ended.get(row.pk, {}).get(int(pk)))
        beaten |= dict.fromkeys(by_match[row.pk], leader)
        for seat, pot_winners in beaten.items():
            victim = out[seat]
            head = heads.get(victim, 0)
            if not head:
                continue  # no bounty on him (Team Pro, fixed: not a bounty player)
            progressive = tournament.bounty_kind == BountyKind.PROGRESSIVE
            cash = head * tournament.pko_cash_percent // 100 if progressive else head
            in_cash = bounty_shares(cash, pot_winners, button=row.setup["button"], seats=seats)
            on_head = bounty_shares(head - cash, pot_winners, button=row.setup["button"], seats=seats)
            won = {int(row.seats[str(winner)]): amount for winner, amount in in_cash.items() if amount}
            added = {int(row.seats[str(winner)]): amount for winner, amount in on_head.items() if amount}
            for winner, amount in won.items():
                if winner in held:
                    Entry.objects.filter(pk=winner).update(bounty_held=F("bounty_held") + amount)
                    continue
                memo = f"bounty of {names[victim]}"
                _pay(tournament, account, players[winner], amount, key=f"{victim}:{winner}", memo=memo)
            for winner, amount in added.items():
                Entry.objects.filter(pk=winner).update(bounty_added=F("bounty_added") + amount)
            award: dict[str, object] = {"victim": victim, "won": {str(pk): amount for pk, amount in won.items()}}
            if added:
                award["added"] = {str(pk): amount for pk, amount in added.items()}
            if held & set(won):
                award["held"] = sorted(held & set(won))
            row.bounties.append(award)
        if row.bounties:
            row.save(update_fields=["bounties"])


def bounty_pay_winner(*, tournament: Tournament) -> None:
    """Rule 27, the event over: its winner gets the bounty on his own head."""
    if tournament.bounty_kind not in ENTRANTS_PAY_BOUNTY:
        return
    winner = Entry.objects.filter(tournament=tournament, finish_best=1).select_related("player").first()
    if winner is None:
        return
    amount = bounty_heads(tournament, [winner.pk]).get(winner.pk, 0)
    if amount and winner.prize_hold == PrizeHold.WITHHELD:
        Entry.objects.filter(pk=winner.pk).update(bounty_held=F("bounty_held") + amount)
    elif amount:
        _pay(tournament, _account(tournament), winner.player, amount, key=f"{winner.pk}:own", memo="own bounty")


def bounty_held_decide(
    *, tournament: Tournament, entry: Entry, withholding: int, confiscate: bool, actor: "User", memo: str
) -> None:
    """Rule 29, staff's decision on a player's winnings under review, in its
    transaction: the bounties he won meanwhile are paid to him, or kept by the room
    (moved to the house, or, paid by the room, never paid). `withholding` names the
    withholding this decision ends (its audit row): a hold lifted and made again is
    a new period, whose bounties are a payment of their own."""
    amount = entry.bounty_held
    if not amount:
        return
    account = _account(tournament)
    key = f"tournament:{tournament.pk}:bounty:held:{entry.pk}:{withholding}"
    if not confiscate:
        destination = account_get(wallet_account_spec(entry.player_id, account.currency))
        transfer_create(
            source=account,
            destination=destination,
            amount=amount,
            reason=TransferReason.BOUNTY,
            idempotency_key=key,
            actor=actor,
            memo=memo,
        )
    elif tournament.bounty_kind in ENTRANTS_PAY_BOUNTY:
        transfer_create(
            source=account,
            destination=account_get(house_account_spec(account.currency)),
            amount=amount,
            reason=TransferReason.CONFISCATION,
            idempotency_key=f"{key}:confiscated",
            actor=actor,
            memo=memo,
        )
    entry.bounty_held = 0
    entry.save(update_fields=["bounty_held"])


def _out(row: Hand) -> dict[int, int]:
    """The seats (and their entries) the hand knocked out: chips at its start, none at its end."""
    start, end = row.setup["stacks"], (row.result or {}).get("stacks", {})
    return {int(seat): int(row.seats[seat]) for seat, chips in end.items() if chips == 0 and start[seat] > 0}


def _ended_out(row: Hand, chips: Mapping[int, int]) -> dict[int, int]:
    """The seats (and their entries) of `row` whose chips the end of the table's
    match (rule 18.5) gave its leader: those it left with none."""
    return {int(seat): int(pk) for seat, pk in row.seats.items() if chips.get(int(pk)) == 0}


def _account(tournament: Tournament) -> Account:
    """Where the bounties come from: the event's bounty account, or the room's own money."""
    if tournament.bounty_kind in ROOM_PAYS_BOUNTY:
        return account_get(house_account_spec(tournament.pool_currency))
    return account_get(bounty_spec(tournament))


def _pay(tournament: Tournament, account: Account, player: "User", amount: int, *, key: str, memo: str) -> None:
    transfer_create(
        source=account,
        destination=account_get(wallet_account_spec(player.pk, account.currency)),
        amount=amount,
        reason=TransferReason.BOUNTY,
        idempotency_key=f"tournament:{tournament.pk}:bounty:{key}",
        memo=memo,
    )
