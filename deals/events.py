"""What a change to a negotiation records for the pages (deals.live)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class NegotiationChanged:
    """Its players' and the staff's pages show it again."""

    negotiation_id: int
