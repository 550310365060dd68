"""A hand in play as its record stands (rules 14, 15): rebuilt from its setup, deck
and actions (`replay`), or gone on from a state this process already holds, and
what the pages show of it (`replay_shown`), worked out once per state and kept for
every page that shows it.
"""

import json
import threading
from collections import OrderedDict

from tournaments.models import Hand
from tournaments.rules.hands import Action, HandSetup, PlayedHand, ShownHand

# Hands kept: more than the tables one process plays at once.
KEPT = 1024


def entry_of(row: Hand, seat: int) -> int:
    """The entry (id) dealt in at `seat`."""
    return int(row.seats[str(seat)])


def played_on(row: Hand, played: PlayedHand | None) -> PlayedHand:
    """`row` played: `played` (this hand at an earlier point of its record) with the
    actions taken since; else replayed."""
    taken = len(played.actions) if played is not None else 0
    if (
        played is not None
        and "".join(played.deck) == row.deck
        and [action.to_json() for action in played.actions] == row.actions[:taken]
    ):
        for data in row.actions[taken:]:
            action = Action.from_json(data)
            played.act(action.seat, action.kind, action.amount)
        return played
    return replay(row)


def replay(row: Hand) -> PlayedHand:
    """The hand as it stands, rebuilt from its record."""
    deck = [row.deck[i : i + 2] for i in range(0, len(row.deck), 2)]
    return PlayedHand.play(HandSetup.from_json(row.setup), deck, [Action.from_json(data) for data in row.actions])


# Hands as pages show them (a table's watchers, a player's own seat fetched again:
# one state read several times), from the process that played them or replayed
# once. Keyed by the hand's whole record, not its number of actions: one kept by a
# transaction that then rolled back can only be found by a record of the same
# actions, which is the same state.
ShownKey = tuple[int, str, str]
_shown: OrderedDict[ShownKey, ShownHand] = OrderedDict()
_shown_lock = threading.Lock()


def _shown_key(row: Hand) -> ShownKey:
    return (row.pk, row.commitment, json.dumps(row.actions))


def remember_shown(row: Hand, shown: ShownHand) -> None:
    """Keep `shown` as what `row` shows, for the pages that show it next."""
    with _shown_lock:
        _shown[_shown_key(row)] = shown
        while len(_shown) > KEPT:
            _shown.popitem(last=False)


# The hands this process has shown pages, by id, as last shown: a page shown again at
# a later point of the hand goes on from there rather than replaying the hand.
_paged: OrderedDict[int, PlayedHand] = OrderedDict()


def replay_shown(row: Hand) -> ShownHand:
    """The hand as it stands, as the pages show it: as this process played it, or
    from the last point of it this process showed, once per state."""
    key = _shown_key(row)
    with _shown_lock:
        shown = _shown.get(key)
        earlier = _paged.pop(row.pk, None)
    if shown is None:
        played = played_on(row, earlier)
        shown = played.shown()
        remember_shown(row, shown)
        earlier = played
    if earlier is not None:
        with _shown_lock:
            _paged[row.pk] = earlier
            while len(_paged) > KEPT:
                _paged.popitem(last=False)
    return shown
