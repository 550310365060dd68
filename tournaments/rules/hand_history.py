"""A hand written down in PHH, PokerKit's hand-history format (TOML), for players'
own histories and the room's records: `pokerkit.HandHistory.loads` reads it back.

Players are p1..pn in the order of action (p1 the first seat after the button, pn the
button); `seats` gives each one's seat number. Burnt cards are not written (PHH does
not record them). What PHH cannot say is written in fields of our own, which PHH
allows with a leading underscore:

- PokerKit's variant codes cover only some of our games. The code written is the
  nearest one with the same cards (Hold'em: NT, or FT in Fixed Limit; Omaha: PO;
  Omaha Hi/Lo: FO/8), and `_game` and `_betting` say what was really played.
- The short big blind (tournaments.rules.hands) plays with his stack raised to
  ante + big blind, as PokerKit needs to ask the others for the full call;
  `starting_stacks` holds that figure so the actions replay, `_chips` the real
  stacks, and `finishing_stacks` the real result.
"""

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from pokerkit import (
    BoardDealing,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    HandHistory,
    HoleDealing,
)

from tournaments.rules.hands import PlayedHand

_VARIANTS = {("holdem", "fl"): "FT", ("holdem", "nl"): "NT", ("holdem", "pl"): "NT"}
_GAME_VARIANTS = {"omaha": "PO", "omaha_hilo": "FO/8"}
_FIELDS = frozenset(field.name for field in fields(HandHistory))
HIDDEN = "??"  # PHH's unknown card


def variant(game: str, betting: str) -> str:
    return _VARIANTS.get((game, betting)) or _GAME_VARIANTS[game]


def actions(hand: PlayedHand, *, viewer: int | None, reveal_all: bool) -> list[str]:
    """The hand's PHH actions; hole cards of seats other than `viewer` hidden unless
    `reveal_all` or shown down."""
    shown = set(hand.showdown_order)
    written: list[str] = []
    dealt: set[int] = set()
    board = 0
    for operation in hand.state.operations:
        match operation:
            case HoleDealing(player_index=index) if index not in dealt:
                dealt.add(index)
                seat = hand.seats[index]
                cards = hand.hole_cards(seat)
                visible = reveal_all or seat == viewer or index in shown
                written.append(f"d dh p{index + 1} {''.join(cards) if visible else HIDDEN * len(cards)}")
            case BoardDealing(cards=cards):
                board += len(cards)
                written.append(f"d db {''.join(map(repr, cards))}")
            case Folding(player_index=index):
                written.append(f"p{index + 1} f")
            case CheckingOrCalling(player_index=index):
                written.append(f"p{index + 1} cc")
            case CompletionBettingOrRaisingTo(player_index=index, amount=amount):
                written.append(f"p{index + 1} cbr {amount}")
    # PokerKit shows the hands before it runs the board out.
    for index in hand.showdown_order:
        written.append(f"p{index + 1} sm {''.join(hand.hole_cards(hand.seats[index]))}")
    rest = hand.board[board:]
    for size in {0: (3, 1, 1), 3: (1, 1), 4: (1,), 5: ()}[board]:
        if rest:
            written.append(f"d db {''.join(rest[:size])}")
            rest = rest[size:]
    return written


def phh(hand: PlayedHand, /, *, names: Mapping[int, str] | None = None, **meta: Any) -> str:
    """The hand in PHH, every hole card written."""
    return hand_history(hand, viewer=None, reveal_all=True, names=names, meta=meta)


def phh_for(
    hand: PlayedHand, viewer_seat: int | None, /, *, names: Mapping[int, str] | None = None, **meta: Any
) -> str:
    """The same, but others' hole cards hidden ("????") unless shown down: what
    `viewer_seat` (None: a spectator) saw."""
    return hand_history(hand, viewer=viewer_seat, reveal_all=False, names=names, meta=meta)


def hand_history(
    hand: PlayedHand,
    *,
    viewer: int | None,
    reveal_all: bool,
    names: Mapping[int, str] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> str:
    setup = hand.setup
    known: dict[str, Any] = {}
    ours: dict[str, Any] = {"_game": setup.game, "_betting": setup.betting}
    for key, value in (meta or {}).items():
        if key in _FIELDS and key != "user_defined_fields":
            known[key] = value
        else:
            ours[key if key.startswith("_") else f"_{key}"] = value
    if setup.betting == "fl":
        known |= {"small_bet": setup.big_blind, "big_bet": 2 * setup.big_blind}
    else:
        known["min_bet"] = setup.big_blind
    if list(hand.starting) != list(hand.chips):
        ours["_chips"] = list(hand.chips)
    if names is not None:
        known["players"] = [names.get(seat, f"Seat {seat}") for seat in hand.seats]
    if hand.over:
        stacks = hand.result().stacks
        known["finishing_stacks"] = [stacks[seat] for seat in hand.seats]
    history = HandHistory(
        variant=variant(setup.game, setup.betting),
        antes=list(hand.raw_antes),
        blinds_or_straddles=list(hand.raw_blinds),
        starting_stacks=list(hand.starting),
        actions=actions(hand, viewer=viewer, reveal_all=reveal_all),
        seats=list(hand.seats),
        user_defined_fields=ours,
        **known,
    )
    return history.dumps()
