"""Proof that the books balance: every account's balance is the sum of its
transfers, none is negative where it may not be, and value is neither created nor
lost (every transfer moves one amount out of one account and into another)."""

from dataclasses import dataclass

from django.db.models import Count, F, Q, Sum

from wallet.models import Account, Transfer
from wallet.services import MAY_GO_NEGATIVE


@dataclass(frozen=True)
class Discrepancy:
    account_id: int | None
    message: str


def wallet_discrepancies() -> list[Discrepancy]:
    problems = []
    incoming = dict(
        Transfer.objects.values("destination").annotate(total=Sum("amount")).values_list("destination", "total")
    )
    outgoing = dict(Transfer.objects.values("source").annotate(total=Sum("amount")).values_list("source", "total"))
    for account_id, kind, balance in Account.objects.values_list("pk", "kind", "balance").order_by("pk"):
        entries = incoming.get(account_id, 0) - outgoing.get(account_id, 0)
        if balance != entries:
            problems.append(Discrepancy(account_id, f"balance {balance} but its transfers sum to {entries}"))
        if balance < 0 and kind not in MAY_GO_NEGATIVE:
            problems.append(Discrepancy(account_id, f"negative balance {balance}"))
    mixed = Transfer.objects.exclude(source__currency=F("destination__currency"))
    for transfer_id in mixed.values_list("pk", flat=True):
        problems.append(Discrepancy(None, f"transfer {transfer_id} moves between two currencies"))
    bad = Transfer.objects.filter(Q(amount__lte=0) | Q(source=F("destination"))).aggregate(n=Count("pk"))["n"]
    if bad:
        problems.append(Discrepancy(None, f"{bad} transfers with a non-positive amount or a single account"))
    # Each transfer takes from one account what it gives another: per currency, all
    # balances (the outside world's negative one included) add up to nothing.
    for row in Account.objects.values("currency").annotate(total=Sum("balance")).order_by("currency"):
        if row["total"] != 0:
            problems.append(Discrepancy(None, f"{row['currency']} accounts sum to {row['total']}, not 0"))
    return problems
