"""The prize pool's account, and the house's overlay into it (rule 7: a guarantee
above what the entries paid in is the room's to add)."""

from typing import TYPE_CHECKING

from tournaments.models import Tournament
from wallet.models import Account, AccountKind, TransferReason
from wallet.services import AccountSpec, account_get, house_account_spec, transfer_create

if TYPE_CHECKING:
    from accounts.models import User


def prize_pool_spec(tournament: Tournament) -> AccountSpec:
    """The account holding what the event's entries paid to its prize pool."""
    return AccountSpec(AccountKind.PRIZE_POOL, tournament.pool_currency, ref=f"tournament:{tournament.pk}")


def bounty_spec(tournament: Tournament) -> AccountSpec:
    """The account holding what the event's entries paid in bounties (rules 24-27)."""
    return AccountSpec(AccountKind.BOUNTIES, tournament.pool_currency, ref=f"tournament:{tournament.pk}")


def prize_pool_fund(tournament: Tournament, *, pool: int, actor: "User | None" = None) -> Account:
    """The pool account, holding `pool` once the house has added what the entries'
    contributions fall short of it (the overlay); read again after the transfer.
    One overlay an event: a repeated call moves nothing (its idempotency key)."""
    account = account_get(prize_pool_spec(tournament))
    overlay = pool - tournament.prize_contributions
    if overlay > 0:
        transfer_create(
            source=account_get(house_account_spec(account.currency)),
            destination=account,
            amount=overlay,
            reason=TransferReason.PRIZE,
            idempotency_key=f"tournament:{tournament.pk}:overlay",
            actor=actor,
            memo="overlay: the guarantee above the entries",
        )
        account.refresh_from_db()
    return account
