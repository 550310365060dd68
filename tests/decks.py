"""Prepared decks: the cards a test wants dealt, in the order the dealer deals them."""

from collections.abc import Sequence

from tournaments.rules.hands import FULL_DECK


def cards(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def deck_for(holes: Sequence[str | None], board: str = "") -> tuple[str, ...]:
    """A deck that deals `holes` (by order of action, from the seat after the button;
    None for a player whose cards do not matter) and then `board`, as the dealer
    does: hole cards round the table one at a time, a burnt card before the flop, the
    turn and the river. Unnamed cards fill in."""
    named = [card for hole in holes if hole for card in cards(hole)] + cards(board)
    spare = iter(sorted(FULL_DECK - set(named)))
    size = next(len(cards(hole)) for hole in holes if hole)
    hands = [cards(hole) if hole else [next(spare) for _ in range(size)] for hole in holes]
    deck = [hand[round_] for round_ in range(size) for hand in hands]
    flop, turn, river = cards(board)[:3], cards(board)[3:4], cards(board)[4:5]
    for street in (flop, turn, river):
        deck += [next(spare), *street]
    deck += list(spare)
    assert sorted(deck) == sorted(FULL_DECK)
    return tuple(deck)
