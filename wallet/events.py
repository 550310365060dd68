"""What the ledger tells the rest of the portal, once committed: whose balances
moved. Receivers (lobby.live) turn it into live updates; signals keep the imports
one way, so the ledger knows nothing of pages."""

from django.db import transaction
from django.dispatch import Signal

# owner_ids: the players whose accounts a committed batch of transfers moved.
balances_changed = Signal()


def after_commit(signal: Signal, **data) -> None:
    """Send `signal` once the current transaction commits; never if it rolls back."""
    # robust: the change is made; a live update that fails (Redis down) must not
    # turn it into an error. Pages are right on their next load regardless.
    transaction.on_commit(lambda: signal.send(sender=None, **data), robust=True)
