"""The turn rules a table applies to a hand as it plays (rule 18): whose turn it is
and until when, and the move made for a player who does not choose (a bot's, a
player sitting out, a player out of time: rule 18.3).

They change the hand and its row in memory only: the caller stores them
(tournaments.services.hands) and writes what they did to the players
(`Turned.entries`) once the hand's row is stored.
"""

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings

from tournaments.models import Entry, Hand, HandStatus, Tournament
from tournaments.rules.bots import bot_action
from tournaments.rules.hands import PlayedHand
from tournaments.selectors.entries import entry_time_bank
from tournaments.selectors.replays import entry_of

# A player whose time runs out is sat out (rule 18.4) until he comes back, rather
# than holding every hand up for his whole allowance.
TIMED_OUT_SITS_OUT = True


@dataclass
class Turned:
    """What the turns played changed besides the hand: the entries to write (by id,
    their changed fields) and the players who timed out, for the audit log."""

    entries: dict[int, dict[str, object]] = field(default_factory=dict)
    timed_out: list[tuple[Entry, int]] = field(default_factory=list)  # (entry, seat)


def turn_start(
    row: Hand,
    hand: PlayedHand,
    *,
    players: Mapping[int, Entry],
    tournament: Tournament,
    now: datetime,
    bots_wait: bool = True,
) -> None:
    """Whose turn it is in `row` (played as `hand`) and until when; or the hand is over.
    A bot has the bots' thinking time (none unless `bots_wait`, or while the room
    waits for this table), a player sitting out none (rule 18.4), anyone else the
    action time and then his time bank (rule 18). `players`: the hand's entries by id."""
    row.actions = [action.to_json() for action in hand.actions]
    if hand.over:
        result = hand.result()
        row.status = HandStatus.FINISHED
        row.to_act = row.turn_started_at = row.deadline_at = None
        row.extra_time = False
        row.result = {
            "stacks": {str(seat): chips for seat, chips in result.stacks.items()},
            "board": list(result.board),
            "shown": {str(seat): list(cards) for seat, cards in result.shown.items()},
            "made": {str(seat): made for seat, made in result.made.items()},
            "pots": [
                {
                    "amount": pot.amount,
                    "eligible": list(pot.eligible),
                    "winners": {str(seat): chips for seat, chips in pot.winners.items()},
                    "high": list(pot.high_winners),
                    "low": list(pot.low_winners),
                }
                for pot in result.pots
            ],
        }
        row.ended_at = now
        return
    seat = hand.to_act
    assert seat is not None
    entry = players[entry_of(row, seat)]
    row.to_act, row.turn_started_at, row.extra_time = seat, now, False
    if entry.sitting_out:
        row.deadline_at = now
    elif entry.player.is_bot:
        thinks = bots_wait and not tournament.waits_for_tables
        row.deadline_at = now + timedelta(seconds=settings.TABLE_BOT_SECONDS if thinks else 0)
    else:
        bank = entry_time_bank(entry, tournament)
        row.deadline_at = now + timedelta(seconds=tournament.action_seconds, milliseconds=bank)


def turns_play_on(
    row: Hand,
    hand: PlayedHand,
    *,
    players: Mapping[int, Entry],
    tournament: Tournament,
    now: datetime,
    rng: random.Random,
    turned: Turned,
    bots_wait: bool = True,
) -> None:
    """After an action: the next turn, and every turn due by `now` played at once
    (players sitting out; bots when they need no thinking time)."""
    turn_start(row, hand, players=players, tournament=tournament, now=now, bots_wait=bots_wait)
    while row.status == HandStatus.PLAYING and row.deadline_at is not None and row.deadline_at <= now:
        turn_auto(row, hand, players, rng, timed_out=False, turned=turned)
        turn_start(row, hand, players=players, tournament=tournament, now=now, bots_wait=bots_wait)


def turn_auto(
    row: Hand,
    hand: PlayedHand,
    players: Mapping[int, Entry],
    rng: random.Random,
    *,
    timed_out: bool,
    turned: Turned,
) -> None:
    """The turn's player acts without choosing: a bot by its policy, anyone else by
    rule 18.3 (a player out of time is then sat out, and his time bank is spent)."""
    seat = hand.to_act
    assert seat is not None
    entry = players[entry_of(row, seat)]
    if entry.player.is_bot and not entry.sitting_out:
        action = bot_action(hand, rng)
        hand.act(action.seat, action.kind, action.amount)
        return
    action = hand.timeout_action()
    hand.act(action.seat, action.kind, action.amount)
    if timed_out and not entry.sitting_out:
        entry.time_bank_ms, entry.time_bank_level = 0, row.level
        entry.sitting_out = TIMED_OUT_SITS_OUT
        turned.entries.setdefault(entry.pk, {}).update(
            time_bank_ms=0, time_bank_level=row.level, sitting_out=TIMED_OUT_SITS_OUT
        )
        turned.timed_out.append((entry, seat))


def turn_bank_spend(row: Hand, entry: Entry, tournament: Tournament, now: datetime, turned: Turned) -> None:
    """What the player used of his time bank beyond the action time (rule 18)."""
    if row.turn_started_at is None:
        return
    over_ms = int((now - row.turn_started_at).total_seconds() * 1000) - tournament.action_seconds * 1000
    if over_ms <= 0:
        return
    left = entry_time_bank(entry, tournament)
    entry.time_bank_ms, entry.time_bank_level = max(0, left - over_ms), tournament.level
    turned.entries.setdefault(entry.pk, {}).update(
        time_bank_ms=entry.time_bank_ms, time_bank_level=entry.time_bank_level
    )
