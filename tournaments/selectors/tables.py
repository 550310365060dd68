"""What a table shows (rules 5, 14, 15, 18): its seats, the hand in play replayed
from its record, the last hands' results, and for one player his own cards and
what he may do.

Privacy: `table_hand` is what everybody may see (hole cards only once shown down);
`table_own` adds one player's own hole cards and choices, and is only ever rendered
for that player.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from live.presence import connected
from tournaments.models import BountyKind, Entry, EntryStatus, Hand, HandStatus, Table, Tournament
from tournaments.rules.hands import GAMES, Legal, LogLine, ShownHand
from tournaments.selectors.bounties import bounty_heads
from tournaments.selectors.replays import entry_of, replay_shown

RECENT_HANDS = 5
NOTHING_SAID = ("", None)  # a seat that has not acted on this street


@dataclass(frozen=True)
class SeatState:
    seat: int
    player: str = ""
    stack: int = 0
    bet: int = 0
    role: str = ""  # "button", "small_blind", "big_blind" or ""
    in_hand: bool = False
    folded: bool = False
    all_in: bool = False
    sitting_out: bool = False
    to_act: bool = False
    cards: tuple[str, ...] = ()  # shown down only
    won: int = 0
    away: bool = False  # a person seated here with no page open at the table (rule 18)
    bounty: int = 0  # the bounty on his head (knockout events)
    said: str = ""  # his last action on this street: "check", "call", "bet", "raise", "fold", "all_in"
    said_to: int | None = None  # what he bet or raised to
    backs: int = 0  # his hole cards as everyone else sees them: face down while he is in the hand

    @property
    def face_down(self) -> tuple[str, ...]:
        """His cards face down, as cards with no face ("")."""
        return ("",) * self.backs


@dataclass(frozen=True)
class HandResultView:
    hand_id: int
    number: int
    board: tuple[str, ...]
    winners: list[tuple[str, int, tuple[str, ...], str]]  # screen name, chips won, cards shown, hand made
    voided_reason: str | None = None  # rolled back (rule 22), and why
    # Winner, knocked-out player, amount in cash, amount added to the winner's head (rules 24-26).
    bounties: tuple[tuple[str, str, int, int], ...] = ()


@dataclass(frozen=True)
class InPlayView:
    """A hand in play as anyone watching sees it, with no words in it (every language
    renders the same): the seats dealt in, the board and the pot, whose turn until
    when. `people`: each seat's player who is a person, by seat (the seat shows
    whether his page is open: `connected` is read when it is shown)."""

    seats: tuple[SeatState, ...]
    board: tuple[str, ...]
    pot: int
    deadline_at: datetime | None
    extra_time: bool
    people: Mapping[int, int]
    currency: str  # the event's money: a bounty's
    action_ends_at: datetime | None = None  # then the time bank runs until deadline_at (turn_clock)
    bank_ms: int = 0
    log: tuple[LogLine, ...] = ()  # the hand's story so far

    def changed_seats(self, before: "InPlayView") -> list[SeatState]:
        """The seats that show something else than in `before` (the one to act: his
        countdown too)."""
        earlier = {seat.seat: seat for seat in before.seats}
        clock = (self.deadline_at, self.extra_time) != (before.deadline_at, before.extra_time)
        return [seat for seat in self.seats if earlier.get(seat.seat) != seat or (seat.to_act and clock)]

    def felt_changed(self, before: "InPlayView") -> bool:
        return (self.board, self.pot) != (before.board, before.pot)


def hand_in_play_view(
    row: Hand,
    shown: ShownHand,
    *,
    players: Mapping[int, Entry],
    table: Table,
    heads: Mapping[int, int],
) -> InPlayView:
    """The hand in play at `table` (its row locked: its button and blinds) as anyone
    watching sees it, from the hand as it stands (`shown`) and its players (by entry
    id, with their users); `heads`: the bounty on each entry's head."""
    roles = {table.big_blind: "big_blind", table.small_blind: "small_blind", table.button: "button"}
    seats = []
    people = {}
    for seat in sorted(int(number) for number in row.seats):
        entry = players[entry_of(row, seat)]
        if not entry.player.is_bot:
            people[seat] = entry.player_id
        seats.append(
            SeatState(
                seat,
                entry.player.screen_name,
                shown.stack(seat),
                shown.bet(seat),
                roles.get(seat, ""),
                in_hand=True,
                folded=shown.folded(seat),
                all_in=shown.all_in(seat),
                sitting_out=entry.sitting_out,
                to_act=row.to_act == seat,
                bounty=heads.get(entry.pk, 0),
                said=shown.said.get(seat, NOTHING_SAID)[0],
                said_to=shown.said.get(seat, NOTHING_SAID)[1],
                backs=0 if shown.folded(seat) else GAMES[table.tournament.game][0],
            )
        )
    currency = table.tournament.pool_currency
    action_ends_at, bank_ms = turn_clock(row, table.tournament.action_seconds)
    return InPlayView(
        tuple(seats),
        shown.board,
        shown.pot_total,
        row.deadline_at,
        row.extra_time,
        people,
        currency,
        action_ends_at,
        bank_ms,
        shown.log,
    )


def turn_clock(row: Hand, action_seconds: int) -> tuple[datetime | None, int]:
    """When the turn's action time ends, and the time bank (milliseconds) that runs
    after it until the deadline (rule 18.3): the table shows them apart. A bot's
    turn, a disconnected player's extra time or no turn: the deadline alone."""
    if row.deadline_at is None or row.turn_started_at is None or row.extra_time:
        return row.deadline_at, 0
    action_ends_at = min(row.deadline_at, row.turn_started_at + timedelta(seconds=action_seconds))
    return action_ends_at, int((row.deadline_at - action_ends_at) / timedelta(milliseconds=1))


def seats_shown(seats: list[SeatState], people: Mapping[int, int]) -> list[SeatState]:
    """`seats` as the table shows them now: a person's seat says whether his page is open."""
    here = connected(people[seat.seat] for seat in seats if seat.seat in people)
    return [replace(seat, away=seat.seat in people and people[seat.seat] not in here) for seat in seats]


def hand_heads(tournament: Tournament, row: Hand) -> dict[int, int]:
    """The bounty on each head dealt in `row` (entry ids): none in an event without bounties."""
    if tournament.bounty_kind == BountyKind.NONE:
        return {}
    return bounty_heads(tournament, [int(pk) for pk in row.seats.values()])


@dataclass
class TableState:
    tournament: Tournament
    table: Table
    seats: list[SeatState]
    hand: Hand | None = None  # the hand in play, or the last one
    played: ShownHand | None = None
    board: tuple[str, ...] = ()
    pot: int = 0
    deadline_at: datetime | None = None
    extra_time: bool = False  # the countdown is a disconnected player's extra time (rule 18.2)
    recent: list[HandResultView] = field(default_factory=list)
    action_ends_at: datetime | None = None  # then the time bank runs until deadline_at (turn_clock)
    bank_ms: int = 0
    log: tuple[LogLine, ...] = ()  # the story of the hand in play, or of the last one

    @property
    def in_play(self) -> bool:
        return self.hand is not None and self.hand.status == HandStatus.PLAYING


@dataclass(frozen=True)
class OwnSeat:
    """One player's view of his seat: his cards and what he may do."""

    entry: Entry
    hand: Hand | None
    cards: tuple[str, ...]
    legal: Legal | None  # his turn: what he may do
    at: int  # the actions so far, sent back with his choice
    pot: int
    bet: int
    stack: int
    time_bank_s: int
    presets: tuple[tuple[str, int], ...] = ()  # bet sizes offered beside the slider
    action_ends_at: datetime | None = None  # his turn: then his time bank runs (turn_clock)
    bank_ms: int = 0
    # Not his turn, still in the hand with chips: he may choose what to do when it
    # comes (pre-actions), facing `to_call` as things stand.
    waiting: bool = False
    to_call: int = 0

    @property
    def refresh_key(self) -> str:
        """What the part shows, in short: fetched again with the same key, the page
        keeps the part it has, with the amount the player may be choosing in it."""
        hand = self.hand
        shown = (hand.pk, hand.status, self.at) if hand else ()
        entry = self.entry
        return ":".join(
            map(str, (*shown, self.stack, self.time_bank_s, entry.table_id, entry.sitting_out, entry.status))
        )


def table_hand(tournament: Tournament, table: Table, *, recent: bool = True) -> TableState:
    """The table as anyone watching sees it: the hand in play (or the last one) with
    nobody's hole cards but those shown down; and unless not `recent`, the results
    of the last hands."""
    rows = Entry.objects.filter(table=table, status=EntryStatus.ACTIVE).values_list(
        "seat", "player__screen_name", "chips", "sitting_out", "player_id", "player__is_bot", "pk"
    )
    seated = {seat: (name, chips, sitting_out) for seat, name, chips, sitting_out, *_ in rows}
    people = {seat: player for seat, _, _, _, player, is_bot, _ in rows if not is_bot}
    here = connected(people.values())
    away = {seat for seat, player in people.items() if player not in here}
    entries = {seat: entry for seat, *_, entry in rows}
    owed = bounty_heads(tournament, entries.values()) if tournament.bounty_kind != BountyKind.NONE else {}
    heads = {seat: owed.get(entry, 0) for seat, entry in entries.items()}
    hands = list(Hand.objects.filter(table=table).order_by("-pk")[: RECENT_HANDS + 1 if recent else 1])
    current, played = _current(hands)
    names = _names(hands, known={entry: name for _, name, *_, entry in rows})
    roles = {}
    if table.button is not None and len(seated) > 1:
        roles = {table.big_blind: "big_blind", table.small_blind: "small_blind", table.button: "button"}
    seats = []
    shown = _shown(current)
    won = _won(current)
    for number in range(1, tournament.table_size + 1):
        in_hand = played is not None and current is not None and str(number) in current.seats
        if in_hand and current is not None and played is not None:
            name = names.get(int(current.seats[str(number)]), "")
            sitting_out = seated.get(number, ("", 0, False))[2]
            seats.append(
                SeatState(
                    number,
                    name,
                    played.stack(number),
                    played.bet(number),
                    roles.get(number, ""),
                    in_hand=True,
                    folded=played.folded(number),
                    all_in=played.all_in(number),
                    sitting_out=sitting_out,
                    to_act=current.status == HandStatus.PLAYING and current.to_act == number,
                    cards=shown.get(number, ()),
                    won=won.get(number, 0),
                    away=number in away,
                    bounty=heads.get(number, 0),
                    said=played.said.get(number, NOTHING_SAID)[0],
                    said_to=played.said.get(number, NOTHING_SAID)[1],
                    backs=0
                    if played.folded(number) or number in shown or current.status != HandStatus.PLAYING
                    else GAMES[tournament.game][0],
                )
            )
        elif number in seated:
            name, chips, sitting_out = seated[number]
            seats.append(
                SeatState(
                    number,
                    name,
                    chips,
                    role=roles.get(number, ""),
                    sitting_out=sitting_out,
                    away=number in away,
                    bounty=heads.get(number, 0),
                )
            )
        else:
            seats.append(SeatState(number))
    results = [_result_view(hand, names) for hand in hands if hand.status != HandStatus.PLAYING][:RECENT_HANDS]
    playing = current is not None and current.status == HandStatus.PLAYING
    action_ends_at, bank_ms = turn_clock(current, tournament.action_seconds) if playing and current else (None, 0)
    return TableState(
        tournament=tournament,
        table=table,
        seats=seats,
        hand=current,
        played=played,
        board=played.board if played else (),
        pot=played.pot_total if played and current and current.status == HandStatus.PLAYING else 0,
        deadline_at=current.deadline_at if current and current.status == HandStatus.PLAYING else None,
        extra_time=bool(current and current.status == HandStatus.PLAYING and current.extra_time),
        recent=results if recent else [],
        action_ends_at=action_ends_at,
        bank_ms=bank_ms,
        log=played.log if played else (),
    )


def table_current(table: Table) -> tuple[Hand | None, ShownHand | None]:
    """The table's hand in play, or its last (as table_hand shows it), replayed: all
    a player's own part needs, without the rest of the table."""
    return _current(list(Hand.objects.filter(table=table).order_by("-pk")[:1]))


def table_own(
    hand: Hand | None, played: ShownHand | None, entry: Entry, *, time_bank_ms: int, action_seconds: int
) -> OwnSeat:
    """`entry`'s own seat at a table whose hand in play (or last) is `hand`, replayed
    as `played`: his hole cards in it, if he was dealt in, and his choices when it is
    his turn."""
    seat = None
    if hand is not None:
        seat = next((int(s) for s, pk in hand.seats.items() if int(pk) == entry.pk), None)
    if hand is None or played is None or seat is None:
        return OwnSeat(entry, None, (), None, 0, 0, 0, entry.chips, time_bank_ms // 1000)
    legal = played.legal() if hand.status == HandStatus.PLAYING and played.to_act == seat else None
    action_ends_at, bank_ms = turn_clock(hand, action_seconds) if legal else (None, 0)
    waiting = (
        hand.status == HandStatus.PLAYING
        and legal is None
        and not played.folded(seat)
        and seat not in played.all_ins
        and not entry.sitting_out
    )
    to_call = min(max(played.bets.values()) - played.bet(seat), played.stack(seat)) if waiting else 0
    return OwnSeat(
        entry,
        hand,
        played.hole_cards(seat),
        legal,
        len(hand.actions),
        played.pot_total,
        played.bet(seat),
        played.stack(seat),
        time_bank_ms // 1000,
        _presets(legal, played.pot_total, played.bet(seat), played.stack(seat)),
        action_ends_at,
        bank_ms,
        waiting,
        to_call,
    )


def _presets(legal: Legal | None, pot: int, bet: int, stack: int) -> tuple[tuple[str, int], ...]:
    """The bet sizes offered beside the slider, as raise-to amounts within the limits
    (a pot limit caps them at the pot): the smallest ("min"); facing a bet, 2.5 and 3
    times it ("x2.5", "x3"); half, three quarters of and the whole pot ("half",
    "three_quarters", "pot": a pot-sized raise calls first, then raises by the pot as
    it then is); all in ("max", when the limit allows it). Two that come to the same
    amount are offered once; all in keeps its name."""
    if legal is None or legal.min_to is None or legal.max_to is None or legal.min_to == legal.max_to:
        return ()
    facing = bet + legal.call  # the largest bet on this street
    after_call = pot + legal.call
    sizes = [("min", legal.min_to)]
    if legal.call:
        sizes += [("x2.5", facing * 5 // 2), ("x3", facing * 3)]
    sizes += [
        ("half", facing + after_call // 2),
        ("three_quarters", facing + after_call * 3 // 4),
        ("pot", facing + after_call),
    ]
    chosen: dict[int, str] = {}
    for label, size in sizes:
        chosen.setdefault(max(legal.min_to, min(legal.max_to, size)), label)
    if legal.max_to == stack + bet:
        chosen[legal.max_to] = "max"
    return tuple(sorted(((label, to) for to, label in chosen.items()), key=lambda preset: preset[1]))


def _current(hands: list[Hand]) -> tuple[Hand | None, ShownHand | None]:
    """The hand in play or the last of `hands` (newest first), replayed. A rolled-back
    hand is not shown as the one in play: nothing it did stands."""
    current = hands[0] if hands and hands[0].status != HandStatus.VOIDED else None
    return current, replay_shown(current) if current is not None else None


def _names(hands: list[Hand], known: dict[int, str]) -> dict[int, str]:
    """The screen names of the entries dealt in `hands`: `known` (those seated), and
    the others (out, or moved) read."""
    ids = {int(pk) for hand in hands for pk in hand.seats.values()} - known.keys()
    return known | dict(Entry.objects.filter(pk__in=ids).values_list("pk", "player__screen_name")) if ids else known


def _shown(hand: Hand | None) -> dict[int, tuple[str, ...]]:
    if hand is None or not hand.result:
        return {}
    return {int(seat): tuple(cards) for seat, cards in hand.result.get("shown", {}).items()}


def _won(hand: Hand | None) -> dict[int, int]:
    won: dict[int, int] = {}
    if hand is None or not hand.result:
        return won
    for pot in hand.result.get("pots", []):
        for seat, chips in pot["winners"].items():
            won[int(seat)] = won.get(int(seat), 0) + chips
    return won


def _result_view(hand: Hand, names: dict[int, str]) -> HandResultView:
    shown = _shown(hand)
    made = (hand.result or {}).get("made", {})
    winners = [
        (names.get(int(hand.seats[str(seat)]), ""), chips, shown.get(seat, ()), made.get(str(seat), ""))
        for seat, chips in sorted(_won(hand).items())
    ]
    voided = hand.voided_reason if hand.status == HandStatus.VOIDED else None
    bounties = []
    for award in hand.bounties:
        won, added = award["won"], award.get("added", {})
        victim = names.get(int(award["victim"]), "")
        for winner in dict.fromkeys([*won, *added]):  # a winner may have won cash, head, or both
            bounties.append((names.get(int(winner), ""), victim, won.get(winner, 0), added.get(winner, 0)))
    board = tuple((hand.result or {}).get("board", ()))
    return HandResultView(hand.pk, hand.number, board, winners, voided, tuple(bounties))
