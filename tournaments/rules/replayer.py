"""A finished hand step by step, for the replayer on its page (issue 15): the table as
it stood when the cards were dealt, after each action and as each street was dealt,
then each street of a board run out with everyone all in, then the award. An action
belongs to the street it was made on: the call that ends the betting before the flop
is the last step before the flop's.

Built from the same record as the hand's PHH (its setup, deck and actions:
tournaments.rules.hand_history writes that record out), by playing the actions one
at a time with tournaments.rules.hands and noting the table after each. A step
holds no hole card: the page adds the cards its viewer may see.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tournaments.rules.hands import STREETS, Action, Card, HandSetup, PlayedHand, pots_of


@dataclass(frozen=True, slots=True)
class SeatStep:
    seat: int
    stack: int  # chips behind, bets not counted
    bet: int  # in front of him on this street, not yet in a pot
    folded: bool
    all_in: bool
    won: int = 0  # the award step only: chips won from the pots


@dataclass(frozen=True, slots=True)
class Step:
    street: str  # "preflop", "flop", "turn", "river" or "showdown"
    board: tuple[Card, ...]
    seats: tuple[SeatStep, ...]  # in seat order
    pots: tuple[int, ...]  # main pot first, then side pots: the chips gathered in
    action: Action | None = None  # what was just done; None: a deal, a run-out or the award
    to_act: int | None = None
    winners: Mapping[int, int] = field(default_factory=dict)  # the award step: seat -> chips won

    def to_json(self) -> dict[str, Any]:
        return {
            "street": self.street,
            "board": list(self.board),
            "seats": [
                {
                    "seat": seat.seat,
                    "stack": seat.stack,
                    "bet": seat.bet,
                    "folded": seat.folded,
                    "all_in": seat.all_in,
                    "won": seat.won,
                }
                for seat in self.seats
            ],
            "pots": list(self.pots),
            "action": None if self.action is None else self.action.to_json(),
            "to_act": self.to_act,
        }


def _street(board_size: int) -> str:
    return STREETS[{0: 0, 3: 1, 4: 2, 5: 3}[board_size]]


def _table(hand: PlayedHand, board: Sequence[Card], action: Action | None, *, to_act: bool = True) -> Step:
    """The table as `hand` stands, its board shown up to `board`; once the hand is
    over, before the pots are awarded (every chip put in gathered into them). Whose
    turn it is only if `to_act` (an action that ended a street: the turn is the next
    street's, shown with its cards)."""
    put_in = hand.contributions()
    over = hand.over
    bets = [0 if over else hand.bet(seat) for seat in hand.seats]
    gathered = [put - bet for put, bet in zip(put_in, bets, strict=True)]
    live = [not hand.folded(seat) for seat in hand.seats]
    pots = pots_of(gathered, live, hand.dead)
    seats = tuple(
        sorted(
            (
                SeatStep(
                    seat=seat,
                    stack=hand.chips[index] - put_in[index],
                    bet=bets[index],
                    folded=not live[index],
                    all_in=live[index] and put_in[index] == hand.chips[index],
                )
                for index, seat in enumerate(hand.seats)
            ),
            key=lambda step: step.seat,
        )
    )
    return Step(_street(len(board)), tuple(board), seats, pots, action, hand.to_act if to_act and not over else None)


def action_steps(setup: HandSetup, deck: Sequence[Card], actions: Sequence[Action]) -> tuple[PlayedHand, list[Step]]:
    """The hand after `actions` (over or not), and its steps so far: the deal, one
    step per action on the street it was made on, and one per street dealt while
    the betting goes on."""
    hand = PlayedHand(setup, deck)
    steps = [_table(hand, hand.board, None)]
    for action in actions:
        shown = steps[-1].board
        hand.act(action.seat, action.kind, action.amount)
        dealt = not hand.over and len(hand.board) > len(shown)
        steps.append(_table(hand, shown, action, to_act=not dealt))
        if dealt:
            steps.append(_table(hand, hand.board, None))
    return hand, steps


def hand_steps(setup: HandSetup, deck: Sequence[Card], actions: Sequence[Action]) -> list[Step]:
    """Every step of the hand `actions` played to its end: action_steps, then one per
    street run out after the betting ended (a board dealt at once when no more
    betting is possible comes a street at a time), and the award."""
    hand, steps = action_steps(setup, deck, actions)
    if not hand.over:
        raise ValueError("The replayer shows finished hands only.")
    result = hand.result()
    last = steps[-1]
    for size in (3, 4, 5):
        if len(last.board) < size <= len(result.board):
            steps.append(Step(_street(size), result.board[:size], last.seats, last.pots))
    won: dict[int, int] = {}
    for pot in result.pots:
        for seat, chips in pot.winners.items():
            won[seat] = won.get(seat, 0) + chips
    award = tuple(
        SeatStep(seat.seat, result.stacks[seat.seat], 0, seat.folded, False, won.get(seat.seat, 0))
        for seat in last.seats
    )
    street = "showdown" if result.shown else _street(len(result.board))
    steps.append(Step(street, result.board, award, tuple(pot.amount for pot in result.pots), winners=won))
    return steps
