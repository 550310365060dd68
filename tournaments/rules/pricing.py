"""What one entry costs and in which money its event's prize pool is kept (rules
8, 10, 27). The models' choices take their values from these enums."""

from dataclasses import dataclass
from enum import StrEnum

# The room's play money: a T-Money event's pool and prizes are in it.
TMONEY = "TMY"


class EntryKindRule(StrEnum):
    CASH = "cash"
    TMONEY = "tmoney"
    FREEROLL = "freeroll"
    TICKET_ONLY = "ticket_only"


class BountyKindRule(StrEnum):
    NONE = "none"
    KNOCKOUT = "knockout"
    PROGRESSIVE = "progressive"  # progressive knockout: part cash, part on the winner's own head
    TEAM_PRO = "team_pro"
    FIXED = "fixed"


# The kinds where every entrant carries a bounty he paid with his entry.
ENTRANTS_PAY_BOUNTY = frozenset({BountyKindRule.KNOCKOUT, BountyKindRule.PROGRESSIVE})
# The kinds where the room pays the bounty of the players who carry one.
ROOM_PAYS_BOUNTY = frozenset({BountyKindRule.TEAM_PRO, BountyKindRule.FIXED})


@dataclass(frozen=True)
class EntryPrice:
    """One entry's price in minor units of the pool's currency."""

    prize: int  # to the prize pool
    fee: int  # to the house
    bounty: int  # to the bounties, knockout events only

    @property
    def total(self) -> int:
        return self.prize + self.fee + self.bounty

    @property
    def ticket_value(self) -> int:
        """What a ticket for the entry must be worth: a ticket pays buy-in and fee."""
        return self.prize + self.fee


def pool_currency(*, entry_kind: str, currency: str) -> str:
    """The money an event's pool, prizes and entries are kept in: T-Money for a
    T-Money event, whatever its `currency` says, else that currency."""
    return TMONEY if entry_kind == EntryKindRule.TMONEY else currency


def entry_price(*, entry_kind: str, buy_in: int, fee: int, bounty_kind: str, bounty_amount: int) -> EntryPrice:
    """The price of one entry. A freeroll costs nothing; only knockout entrants pay a
    bounty, since the room puts up Team Pro and fixed bounties (rule 27)."""
    if entry_kind == EntryKindRule.FREEROLL:
        return EntryPrice(0, 0, 0)
    return EntryPrice(buy_in, fee, bounty_amount if bounty_kind in ENTRANTS_PAY_BOUNTY else 0)
