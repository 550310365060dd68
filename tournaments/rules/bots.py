"""A simple, fast bot for the player to act: demo tables, simulations and tests.
It only ever picks a legal action: mostly a check or call, sometimes a fold to a
big bet, sometimes a bet or raise (the smallest, all in, or an amount between)."""

import random

from tournaments.rules.hands import Action, ActionKind, HandError, PlayedHand


def bot_action(hand: PlayedHand, rng: random.Random) -> Action:
    legal = hand.legal()
    if legal is None:
        raise HandError("hand_over", "This hand is over.")
    if legal.min_to is not None and legal.max_to is not None and rng.random() < 0.2:
        roll = rng.random()
        if roll < 0.5:
            amount = legal.min_to
        elif roll < 0.65:
            amount = legal.max_to
        else:
            amount = rng.randint(legal.min_to, legal.max_to)
        return Action(legal.seat, ActionKind.BET_RAISE, amount)
    if legal.call:
        # The bigger the call against what he has left, the likelier the fold.
        left = hand.stack(legal.seat)
        if rng.random() < 0.05 + 0.6 * min(1.0, legal.call / left):
            return Action(legal.seat, ActionKind.FOLD)
    return Action(legal.seat, ActionKind.CHECK_CALL)
