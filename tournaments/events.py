"""What a change to a tournament records for the pages (live.outbox.record);
lobby.live turns it into live updates once committed."""

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tournaments.selectors.tables import InPlayView, OwnSeat


@dataclass(frozen=True)
class TournamentChanged:
    """What the lobby and Tournament Info show of the event changed; `created`: a new
    event (every lobby fetches its list again); `clock_only`: only the level, a
    countdown or a pause changed, not the lobby's row; `chips_only`: only the players'
    chips (a hand without anyone out), not what every table shows of the event;
    `clock`: the clock changed it, which every table page shows at once (the players
    left it shows, only every few seconds); `hand`: a hand's report changed it (its chips,
    its players out), at a table node, which does not render the event's parts for
    it: the worker's message at the end of the second carries it."""

    tournament_id: int
    created: bool = False
    clock_only: bool = False
    chips_only: bool = False
    clock: bool = False  # the clock changed it (a level, a break, a pause, its status)
    hand: bool = False


@dataclass(frozen=True)
class EntryChanged:
    """A player's own entry changed (their registration card, their stack)."""

    tournament_id: int
    player_id: int


@dataclass(frozen=True)
class TablesChanged:
    """Those tables' seats, stacks, button or hand changed. `players`: whose own part
    of the table page changed, when the recorder knows (an action: the players whose
    turn it was or is); None, and the publisher finds them. `in_play`: only the hand
    in play moved on (an action that did not end it), not the tables' last hands."""

    tournament_id: int
    numbers: tuple[int, ...]
    players: tuple[int, ...] | None = None
    in_play: bool = False


@dataclass(frozen=True)
class HandMovedOn:
    """The hand in play at table `number` moved on and goes on: what its watchers saw
    `before` and see `after` (the seats, the felt, whose turn: only what changed is
    sent); `own`: the own part of the table page of each person whose part changed
    (whose turn it was or is), as it now stands (his cards: for his own group alone;
    a bot has no page)."""

    tournament_id: int
    number: int
    before: "InPlayView"
    after: "InPlayView"
    own: tuple["OwnSeat", ...] = ()


@dataclass(frozen=True)
class TableChatted:
    """A message was sent in the table's chat."""

    tournament_id: int
    number: int


@dataclass(frozen=True)
class LeaderBoardChanged:
    """Points were earned or withdrawn: the Leader Board pages fetch their standings again."""
