"""What the ledger records for the pages (live.outbox.record): whose balances
moved. lobby.live turns it into live updates; the ledger knows nothing of pages."""

from dataclasses import dataclass


@dataclass(frozen=True)
class BalancesChanged:
    """The players whose accounts a committed batch of transfers moved."""

    owner_ids: frozenset[int]
