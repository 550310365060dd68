"""A realistic room to browse: people with money, blind structures and 40+ events.

Everything goes through the services (deposits through the ledger, entries through
registration), so the demo's books balance like production's.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from tournaments.models import (
    ENTERED,
    UNDER_WAY,
    AnteKind,
    BettingStructure,
    BlindLevel,
    BlindStructure,
    BountyKind,
    BreakPolicyKind,
    Entry,
    EntryKind,
    EntryStatus,
    ExtraTimeStage,
    Game,
    Hand,
    HandStatus,
    PrizeStructure,
    SitAndGo,
    Speed,
    Status,
    Tournament,
)
from tournaments.services.cancellation import CancelMode, tournament_cancel
from tournaments.services.clock import tournament_advance, tournament_pause
from tournaments.services.entries import entry_register
from tournaments.services.refusals import TournamentError
from tournaments.services.sit_and_go import sit_and_gos_open
from tournaments.services.tables import hand_due, hands_catch_up, hands_check_down
from wallet.models import Currency
from wallet.services import deposit_create


@dataclass(frozen=True)
class Login:
    username: str
    password: str
    role: str
    balances: dict[str, int] = field(default_factory=dict)


LOGINS = [
    Login("admin", "admin-demo", "admin"),
    Login("staff", "staff-demo", "staff"),
    Login("alice", "alice-demo", "player", {"EUR": 50_000, "TMY": 2_500}),
    Login("bob", "bob-demo", "player", {"EUR": 12_000, "USD": 30_000}),
    Login("carla", "carla-demo", "player", {"DKK": 250_000, "EUR": 2_000}),
    Login("dmitri", "dmitri-demo", "player", {"USD": 100_000, "TMY": 10_000}),
]
BOTS = 300
# Minutes before the demo's start.
REBUY_MADNESS_BEGAN = 10
SPRINT_EXTRA_SECONDS = 60


# Big blinds as rooms print them: each step roughly 25% above the last.
BIG_BLINDS = [
    20,
    30,
    40,
    50,
    60,
    80,
    100,
    120,
    150,
    200,
    250,
    300,
    400,
    500,
    600,
    800,
    1000,
    1200,
    1500,
    2000,
    2500,
    3000,
    4000,
    5000,
    6000,
    8000,
    10000,
    12000,
    15000,
    20000,
]


def _levels(count: int, minutes: int, ante_from: int = 4) -> list[tuple[int, int, int, int]]:
    levels = []
    for number, big in enumerate(BIG_BLINDS[:count], start=1):
        ante = max(5, big // 40 * 5) if number >= ante_from else 0
        levels.append((big // 2, big, ante, minutes))
    return levels


# Structures whose big blind posts the ante for the table (the others: every player).
BIG_BLIND_ANTE = {"Deepstack 20-minute"}
STRUCTURES: dict[str, tuple[str, Sequence[tuple[int, ...]]]] = {
    "Regular 12-minute": ("Standard online structure, 12-minute levels.", _levels(24, 12)),
    "Deepstack 20-minute": (
        "Slow structure for deep stacks, 20-minute levels, a big-blind ante of one big blind from level 4.",
        [(small, big, big if ante else 0, minutes) for small, big, ante, minutes in _levels(24, 20)],
    ),
    "Turbo 6-minute": ("Turbo: 6-minute levels.", _levels(20, 6)),
    "Hyper-turbo 3-minute": ("Hyper-turbo: 3-minute levels, antes from level 3.", _levels(20, 3, ante_from=3)),
    "Heads-up 10-minute": ("Heads-up matches, 10-minute levels, no antes.", _levels(16, 10, ante_from=99)),
    "Fixed Limit 10-minute": ("Fixed Limit: blinds are half the small bet.", _levels(18, 10, ante_from=99)),
    # To watch the clock in the demo: levels of 30 seconds.
    "Demo 30-second": (
        "For the demo only: 30-second levels.",
        [(small, big, ante, 0, 30) for small, big, ante, _ in _levels(24, 0)],
    ),
}


def demo_load(*, now: datetime) -> None:
    """Create the demo room. Call on an empty database only."""
    began = timezone.now()
    with transaction.atomic():
        people = _create_people()
        structures = _create_structures()
        events = _create_events(now=now, structures=structures)
        _register_bots(events=events, bots=people["bots"], now=now)
        for event in events:
            _catch_up(event.pk, now=now)
        _played_out(now=now, structures=structures, bots=people["bots"])
        _final_table(now=now, structure=structures["Regular 12-minute"])
        # Made last, so that it starts within a minute of the room being ready,
        # however long catching up the earlier events took.
        ready = now + (timezone.now() - began)
        sprint = _create_sprint(now=ready, structures=structures)
        _register_bots(events=[sprint], bots=people["bots"], now=ready)
        _create_sit_and_gos(now=ready, structures=structures)


def demo_deal_load(*, now: datetime) -> Tournament:
    """The demo's logins and its *Final Table Deal Demo* alone, as demo_load makes them."""
    with transaction.atomic():
        _create_people(bot_count=0)
        return _final_table(now=now, structure=_create_structures()["Regular 12-minute"])


def demo_finished_load(*, now: datetime) -> Tournament:
    """The demo's logins and its *Early Bird Freezeout*, played out by 18 bots, as demo_load makes it."""
    with transaction.atomic():
        people = _create_people(bot_count=18)
        finished = _finished(now=now, structures=_create_structures(), bots=people["bots"])
        finished.refresh_from_db()
        return finished


def demo_sprint_load(*, now: datetime, bots: int = 12) -> Tournament:
    """The demo's logins and its *Clock Sprint* alone, with `bots` bots in it, as demo_load makes them."""
    with transaction.atomic():
        people = _create_people(bot_count=bots)
        sprint = _create_sprint(now=now, structures=_create_structures())
        for bot in people["bots"]:
            entry_register(tournament_id=sprint.pk, player=bot, now=now)
        return sprint


def _catch_up(tournament_id: int, *, now: datetime) -> None:
    """The clock up to `now`, as if the bots had been playing all along: a break that
    waits for the hands in play (rule 17) gets them played out by the bots as it
    falls due, instead of holding an event that began earlier at that break until now."""
    tournament_advance(tournament_id=tournament_id, now=now)
    for _ in range(100):
        pending = Tournament.objects.get(pk=tournament_id).break_pending_since
        if pending is None:
            return
        hands = Hand.objects.filter(tournament_id=tournament_id, status=HandStatus.PLAYING)
        for hand_id, actions, deadline in hands.values_list("pk", "actions", "deadline_at"):
            at = max(pending, deadline or pending)
            hand_due(hand_id=hand_id, at=len(actions), now=at, bots_wait=False)
        hands_catch_up(now=pending, before=now, tournament_id=tournament_id)
        tournament_advance(tournament_id=tournament_id, now=now)


def _create_people(bot_count: int | None = None) -> dict:
    for login in LOGINS:
        user = User(
            username=login.username,
            screen_name=login.username.capitalize(),
            email=f"{login.username}@demo.example",
            is_staff=login.role in ("staff", "admin"),
            is_superuser=login.role == "admin",
            country="DK" if login.username in ("carla", "staff") else "GB",
        )
        user.set_password(login.password)
        user.save()
        if login.role == "staff":
            # What the README says staff do (support's migration makes the group).
            user.groups.add(Group.objects.get(name="Support staff"))
        for currency, amount in login.balances.items():
            deposit_create(
                user=user, currency=currency, amount=amount, idempotency_key=f"demo:{login.username}:{currency}"
            )
    bots = []
    for number in range(1, (BOTS if bot_count is None else bot_count) + 1):
        bot = User(
            username=f"bot{number:03d}",
            screen_name=_bot_name(number),
            email=f"bot{number:03d}@demo.example",
            is_bot=True,
        )
        bot.set_unusable_password()
        bots.append(bot)
    bots = User.objects.bulk_create(bots)
    for bot in bots:
        for currency in (Currency.EUR, Currency.USD, Currency.DKK, Currency.TMONEY):
            deposit_create(
                user=bot, currency=currency, amount=500_000, idempotency_key=f"demo:{bot.username}:{currency}"
            )
    return {"bots": bots}


NAMES = ["Ace", "River", "Nuts", "Fish", "Shark", "Bluff", "Flop", "Turn", "Kicker", "Donk", "Grinder", "Rounder"]


def _bot_name(number: int) -> str:
    return f"{NAMES[number % len(NAMES)]}{NAMES[(number // len(NAMES)) % len(NAMES)]}{number}"


def _create_structures() -> dict[str, BlindStructure]:
    structures = {}
    for name, (description, levels) in STRUCTURES.items():
        structure = BlindStructure.objects.create(name=name, description=description)
        BlindLevel.objects.bulk_create(
            BlindLevel(
                structure=structure,
                position=i,
                small_blind=sb,
                big_blind=bb,
                ante=ante,
                ante_kind=AnteKind.BIG_BLIND if name in BIG_BLIND_ANTE else AnteKind.EACH,
                minutes=minutes,
                seconds=seconds[0] if seconds else 0,
            )
            for i, (sb, bb, ante, minutes, *seconds) in enumerate(levels, start=1)
        )
        structures[name] = structure
    return structures


def _create_sprint(*, now: datetime, structures: dict[str, BlindStructure]) -> Tournament:
    """An event starting within a minute, with a clock that moves fast enough to watch."""
    return _event(
        dict(
            name="Clock Sprint €0.50",
            scheduled_start=now.replace(microsecond=0) + timedelta(seconds=45),
            blind_structure=structures["Demo 30-second"],
            buy_in=50,
            fee=5,
            speed=Speed.HYPER,
            break_policy=BreakPolicyKind.INTERVAL,
            break_interval_minutes=2,
            break_minutes=0,
            break_seconds=20,
            late_registration_minutes=3,
            unregistration_deadline_minutes=0,
            # Rule 18.2 from the start: whoever registers late and is dealt in before
            # his page is at the table has a minute more for his first turn.
            disconnect_extra_seconds=SPRINT_EXTRA_SECONDS,
            disconnect_extra_from=ExtraTimeStage.START,
        )
    )


def _create_events(*, now: datetime, structures: dict[str, BlindStructure]) -> list[Tournament]:
    base = now.replace(second=0, microsecond=0)

    def at(minutes: int) -> datetime:
        return base + timedelta(minutes=minutes)

    regular, deep = structures["Regular 12-minute"], structures["Deepstack 20-minute"]
    turbo, hyper = structures["Turbo 6-minute"], structures["Hyper-turbo 3-minute"]
    heads_up, fixed = structures["Heads-up 10-minute"], structures["Fixed Limit 10-minute"]
    sunday = _event(
        dict(
            name="Sunday Major €50,000 GTD",
            scheduled_start=at(2 * 24 * 60 + 60),
            blind_structure=deep,
            buy_in=10_000,
            fee=900,
            guarantee=5_000_000,
            max_entrants=5000,
            starting_stack=50_000,
            deepstack=True,
            late_registration_minutes=20,
            extended_late_registration_minutes=120,
            unregistration_deadline_minutes=10,
            deal_leave_for_winner=250_000,
        )
    )
    specs = [
        # Starting within minutes of the demo's start, to watch the clock move.
        dict(name="Kick-off Freezeout €5", scheduled_start=at(3), blind_structure=regular, buy_in=500, fee=50),
        dict(
            name="Early Turbo €2",
            scheduled_start=at(5),
            blind_structure=turbo,
            buy_in=200,
            fee=20,
            speed=Speed.TURBO,
            break_policy=BreakPolicyKind.NONE,
        ),
        dict(
            name="Hyper Sprint €1",
            scheduled_start=at(8),
            blind_structure=hyper,
            buy_in=100,
            fee=10,
            speed=Speed.HYPER,
            break_policy=BreakPolicyKind.NONE,
            max_entrants=180,
        ),
        dict(
            name="Knockout Starter €10+€10",
            scheduled_start=at(12),
            blind_structure=regular,
            buy_in=1000,
            bounty_kind=BountyKind.KNOCKOUT,
            bounty_amount=1000,
            fee=200,
        ),
        # Already under way.
        dict(name="Morning Freezeout €10", scheduled_start=at(-9), blind_structure=regular, buy_in=1000, fee=100),
        dict(
            name="Deepstack Marathon €20",
            scheduled_start=at(-75),
            blind_structure=deep,
            buy_in=2000,
            fee=180,
            deepstack=True,
            starting_stack=30_000,
        ),
        # Its last rebuy level, when the add-on opens, begins two minutes after the
        # demo does: long before its bots could have finished it.
        dict(
            name="Rebuy Madness €3",
            scheduled_start=at(-REBUY_MADNESS_BEGAN),
            blind_structure=regular,
            buy_in=300,
            fee=30,
            rebuy_price=300,
            rebuy_fee=30,
            rebuy_chips=10_000,
            rebuy_levels=2,
            addon_price=300,
            addon_fee=30,
            addon_chips=15_000,
            addon_break_minutes=3,
            late_registration_minutes=20,
        ),
        # Announced: registration opens later.
        dict(
            name="Monday Warm-up €20",
            scheduled_start=at(3 * 24 * 60),
            blind_structure=regular,
            buy_in=2000,
            fee=200,
            registration_opens_at=at(24 * 60),
        ),
    ]
    events = [sunday, *(_event(spec) for spec in specs)]
    for hours, buy_in, fee in [(2, 1000, 100), (6, 500, 50), (26, 1000, 100), (30, 2200, 200)]:
        events.append(
            _event(
                dict(
                    name=f"Sunday Major Satellite €{buy_in // 100}",
                    scheduled_start=at(hours * 60),
                    blind_structure=turbo,
                    buy_in=buy_in,
                    fee=fee,
                    speed=Speed.TURBO,
                    satellite_target=sunday,
                    satellite_seats=3,
                    prize_structure=PrizeStructure.SATELLITE,
                    break_policy=BreakPolicyKind.NONE,
                    unregistration_allowed=hours > 6,
                )
            )
        )
    # A day-and-a-half of the regular schedule, in three currencies and every game.
    variations: list[dict[str, Any]] = [
        dict(name="Hold'em Classic €{b}", game=Game.HOLDEM, betting=BettingStructure.NO_LIMIT),
        dict(name="PLO Grind €{b}", game=Game.OMAHA, betting=BettingStructure.POT_LIMIT),
        dict(name="Omaha Hi/Lo 8 or Better €{b}", game=Game.OMAHA_HILO, betting=BettingStructure.POT_LIMIT),
        dict(name="Fixed Limit Hold'em €{b}", game=Game.HOLDEM, betting=BettingStructure.FIXED_LIMIT, structure=fixed),
        dict(name="Turbo Knockout €{b}", bounty_kind=BountyKind.KNOCKOUT, speed=Speed.TURBO, structure=turbo),
        dict(
            name="Heads-up Duel €{b}",
            heads_up=True,
            table_size=2,
            max_entrants=64,
            structure=heads_up,
            break_policy=BreakPolicyKind.NONE,
            deals_allowed=False,
        ),
        dict(
            name="Nordic Deepstack {b} kr.",
            currency=Currency.DKK,
            deepstack=True,
            structure=deep,
            break_policy=BreakPolicyKind.INTERVAL,
            break_interval_minutes=60,
        ),
        dict(name="Dollar Daily ${b}", currency=Currency.USD),
        dict(name="T-Money Tuesday T${b}", entry_kind=EntryKind.TMONEY, currency=Currency.TMONEY),
        dict(name="Freeroll €{g} added", entry_kind=EntryKind.FREEROLL, guarantee=10_000, max_entrants=2000),
        dict(name="Shootout €{b}", shootout=True, table_size=6, max_entrants=36, deals_allowed=False),
        dict(
            name="6-Max Hyper €{b}", table_size=6, speed=Speed.HYPER, structure=hyper, break_policy=BreakPolicyKind.NONE
        ),
    ]
    buy_ins = [100, 250, 500, 1100, 2200, 5500]
    for number in range(30):
        variation = dict(variations[number % len(variations)])
        structure = variation.pop("structure", regular)
        buy_in = buy_ins[number % len(buy_ins)]
        if variation.get("currency") == Currency.DKK:
            buy_in *= 75
        if variation.get("entry_kind") == EntryKind.FREEROLL:
            buy_in = 0
        name = variation.pop("name").format(b=f"{buy_in / 100:.2f}".removesuffix(".00"), g=100)
        spec = {
            "guarantee": buy_in * 50 if number % 4 == 0 else 0,
            **variation,
        }
        spec.update(
            name=name,
            scheduled_start=at(25 + number * 55),
            blind_structure=structure,
            buy_in=buy_in,
            fee=buy_in // 10,
        )
        if spec.get("bounty_kind") == BountyKind.KNOCKOUT:
            spec["bounty_amount"] = buy_in
        events.append(_event(spec))
    return events


# Over before the demo begins, played by bots through the services as the demo
# loads: their history, standings, prizes and every hand's replay are there at once.
FINISHED_EVENT = "Early Bird Freezeout €2"
CANCELLED_EVENT = "Night Owl Turbo €1"
CANCELLED_REASON = "Server problem: the room could not go on with this event (rule 22)."
# The clock's step between rounds of turns: the bots act at once, so a round plays a
# hand at every table (as `play_bots` does).
PLAY_STEP = timedelta(seconds=20)


def _played_out(*, now: datetime, structures: dict[str, BlindStructure], bots: list[User]) -> None:
    """An event played to its winner, and one cancelled after some hands (rule 22:
    rolled forward, the prize pool shared among the players left), both before `now`."""
    _finished(now=now, structures=structures, bots=bots[-18:])
    cancelled = _event(
        dict(
            name=CANCELLED_EVENT,
            scheduled_start=_base(now) - timedelta(hours=2),
            buy_in=100,
            fee=10,
            **_played(structures),
        )
    )
    for bot in bots[-45:-18]:
        entry_register(tournament_id=cancelled.pk, player=bot, now=cancelled.scheduled_start - timedelta(minutes=30))
    stopped = _play(cancelled.pk, since=cancelled.scheduled_start, until=now, players_left=18)
    staff = User.objects.get(username="staff")
    tournament_cancel(
        tournament_id=cancelled.pk, actor=staff, reason=CANCELLED_REASON, now=stopped, mode=CancelMode.ROLL_FORWARD
    )


def _base(now: datetime) -> datetime:
    return now.replace(second=0, microsecond=0)


def _played(structures: dict[str, BlindStructure]) -> dict[str, Any]:
    """The terms of the events played out before the demo begins."""
    return dict(
        blind_structure=structures["Hyper-turbo 3-minute"],
        speed=Speed.HYPER,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
    )


def _finished(*, now: datetime, structures: dict[str, BlindStructure], bots: list[User]) -> Tournament:
    """The event played to its winner by `bots` (18) before `now`."""
    finished = _event(
        dict(
            name=FINISHED_EVENT,
            scheduled_start=_base(now) - timedelta(hours=3),
            buy_in=200,
            fee=20,
            **_played(structures),
        )
    )
    for bot in bots:
        entry_register(tournament_id=finished.pk, player=bot, now=finished.scheduled_start - timedelta(minutes=30))
    _play(finished.pk, since=finished.scheduled_start, until=now)
    return finished


def _play(tournament_id: int, *, since: datetime, until: datetime, players_left: int = 1) -> datetime:
    """The event's clock and its bots' hands from `since`, a step at a time, until no
    more than `players_left` are left (1: it has finished) or the clock reaches
    `until`; the instant it stopped at."""
    at = since
    tournament_advance(tournament_id=tournament_id, now=at)
    left = Entry.objects.filter(tournament_id=tournament_id, status=EntryStatus.ACTIVE)
    while (
        at + PLAY_STEP <= until
        and Tournament.objects.filter(pk=tournament_id, status__in=UNDER_WAY).exists()
        and left.count() > players_left
    ):
        at += PLAY_STEP
        tournament_advance(tournament_id=tournament_id, now=at)
        hands_catch_up(now=at, before=at, tournament_id=tournament_id, bots_wait=False)
    return at


# The players of the deal demo: every one must be a demo login, since each must consent.
FINAL_TABLE_PLAYERS = ["alice", "bob", "carla", "dmitri"]
DEAL_DEMO_WAIT = "Waiting for the players to ask for a deal"


def _final_table(*, now: datetime, structure: BlindStructure) -> Tournament:
    """An event already at its final table, with demo logins only in it, its clock
    stopped until they ask for a deal: the place to try a deal (rule 23) as each
    player and as staff, to the prizes paid."""
    start = now.replace(microsecond=0) - timedelta(minutes=10)
    event = Tournament.objects.create(
        name="Final Table Deal Demo €5",
        status=Status.REGISTERING,
        scheduled_start=start,
        blind_structure=structure,
        buy_in=500,
        fee=50,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
        prize_structure=PrizeStructure.FLAT,
        deal_leave_for_winner=100,
    )
    for player in User.objects.filter(username__in=FINAL_TABLE_PLAYERS).order_by("username"):
        deposit_create(user=player, currency=Currency.EUR, amount=550, idempotency_key=f"demo:final:{player.username}")
        entry_register(tournament_id=event.pk, player=player, now=start - timedelta(minutes=30))
    tournament_advance(tournament_id=event.pk, now=now)
    tournament_pause(tournament_id=event.pk, actor=None, reason=DEAL_DEMO_WAIT, now=now)
    # The hand dealt at the start, folded round to the big blind: nobody is out, and
    # the table waits for the clock.
    hands_check_down(tournament_id=event.pk, now=now)
    event.refresh_from_db()
    return event


def _event(spec: dict) -> Tournament:
    # Every event takes its registrations first; the clock then sets the status due.
    return Tournament.objects.create(status=Status.REGISTERING, **spec)


def _register_bots(*, events: list[Tournament], bots: list[User], now: datetime) -> None:
    for index, event in enumerate(events):
        if event.scheduled_start > now + timedelta(hours=30):
            share = 0.02
        elif event.scheduled_start > now + timedelta(hours=3):
            share = 0.05
        else:
            share = 0.25
        wanted = min(event.max_entrants, max(2, int(len(bots) * share * (1 + index % 3) / 2)))
        if event.registration_opens_at and event.registration_opens_at > now:
            continue
        currency = event.pool_currency
        for bot in bots[index : index + wanted] + bots[: max(0, index + wanted - len(bots))]:
            # Idempotent: a bot's first entry in a currency brings its bankroll.
            deposit_create(
                user=bot, currency=currency, amount=500_000, idempotency_key=f"demo:{bot.username}:{currency}"
            )
            # Events already under way took these entries before they started.
            entry_register(
                tournament_id=event.pk, player=bot, now=min(now, event.scheduled_start - timedelta(minutes=30))
            )


# The demo's Sit & Gos: (name, seats a table, tables, buy-in, fee, heads-up, shootout, structure).
SIT_AND_GOS = [
    ("Turbo 6-max €5", 6, 1, 500, 50, False, False, "Turbo 6-minute"),
    ("Hyper 9-max €10", 9, 1, 1_000, 100, False, False, "Hyper-turbo 3-minute"),
    ("Heads-up Hyper €20", 2, 1, 2_000, 100, True, False, "Hyper-turbo 3-minute"),
    ("Shootout 18 €10", 6, 3, 1_000, 100, False, True, "Turbo 6-minute"),
]


def _create_sit_and_gos(*, now: datetime, structures: dict[str, BlindStructure]) -> None:
    for name, size, tables, buy_in, fee, heads_up, shootout, structure in SIT_AND_GOS:
        SitAndGo.objects.create(
            name=name,
            table_size=size,
            tables=tables,
            buy_in=buy_in,
            fee=fee,
            starting_stack=1_500,
            heads_up=heads_up,
            shootout=shootout,
            blind_structure=structures[structure],
        )
    sit_and_gos_open(now=now)


def sit_and_go_bots_join(*, now: datetime) -> int:
    """A bot takes a seat in each open Sit & Go event (the demo's beat does this every
    DEMO_SIT_AND_GO_BOT_SECONDS): they fill, start and open the next while a person
    watches, and a person can take a seat as well. How many bots joined."""
    joined = 0
    waiting = Tournament.objects.filter(sit_and_go__isnull=False, started_at__isnull=True).exclude(
        status=Status.CANCELLED
    )
    for event in waiting:
        if event.entries_count >= event.max_entrants or event.scheduled_start <= now:
            continue
        seated = Entry.objects.filter(tournament=event, status__in=ENTERED).values("player")
        bot = User.objects.filter(is_bot=True).exclude(pk__in=seated).order_by("?").first()
        if bot is None:
            continue
        deposit_create(
            user=bot,
            currency=event.pool_currency,
            amount=500_000,
            idempotency_key=f"demo:{bot.username}:{event.pool_currency}",
        )
        try:
            entry_register(tournament_id=event.pk, player=bot, now=now)
        except TournamentError:
            continue  # filled by someone else meanwhile
        joined += 1
    return joined
