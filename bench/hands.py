"""How fast do our tables play hands, against PokerKit alone, and how long does a
1,000-player bot tournament take from the seat draw to the winner?

(a) Raw PokerKit: nine-handed No Limit Hold'em hands built directly with
`NoLimitTexasHoldem.create_state` (every automation on: PokerKit deals, shows down
and pushes the chips itself), 10,000 chips each at 50/100, each player to act
choosing as our bots do (tournaments.rules.bots: a bet or raise one time in five,
a fold likelier the bigger the call against his stack, else a check or call).
Hands a second in this process, for PLAY_SECONDS.

(b) The full stack: a throwaway PostgreSQL database (migrated), Redis database 12
(flushed) as the cache the live updates read, and a tournament of `--entrants` (2,000)
bots (funded with deposit_create, entered with entry_register, seated by the
clock's seat draw) on nine-seat tables, 10,000 chips at 50/100 for the whole run.
The services are called in this process, as the worker calls them, on a clock of
our own: each round moves it 20 s on and calls `hands_catch_up` (the worker's
sweep), which gives every due turn its `hand_due`, and then each tournament with
hands finished its `hands_report` (the floor: chips, places, prizes, balancing,
the next hand dealt; every finished hand of the tournament under one lock, the
floor read once). The bots do not think (`bots_wait=False`): a whole hand is one
`hand_due` transaction. Counted: hands reported to the floor over PLAY_SECONDS of
wall time, after the draw, and the players a hand. Printed beside it, for
information only: bots that think (one action a transaction, each round one
bot's thinking time, TABLE_BOT_SECONDS=1), as a table of people acting through
`hand_act` costs, over half as long.

`RESULT hands_ratio`: (b) over (a), target at least 0.25.

(c) The 1,000-player bot tournament through a real worker: the Procfile's
`worker` and `beat` lines as written, on Redis database 12 and the throwaway
database, with config.settings (DEBUG=0) and the bots acting at once with no pause
between hands (TABLE_BOT_SECONDS=0, TABLE_HAND_GAP_SECONDS=0). Nothing but the
worker moves it: beat's sweep finds the start, the clock draws the seats, and the
tasks play every hand to the winner. Turbo structure (MTT_LEVELS): 5,000 chips,
20-second levels from 25/50 going up about half a level each time, antes from
level 5, no breaks, no late registration, the standard payouts. Measured:
`finished_at - started_at` (the scheduled start, when the seats were drawn, to
the last hand's report), read from the database; then the books, the places and
the chips are checked (a failed check fails the run).

    uv run python bench/hands.py [--entrants 2000] [--skip-mtt] [--profile]

Ends with `RESULT hands_ratio` and `RESULT bot_mtt_1000_s` (the latter only for
1,000 entrants). --profile prints a cProfile of (b). About 5 minutes.
"""

import argparse
import cProfile
import os
import pstats
import random
import secrets
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import redis  # noqa: E402
from pokerkit import Automation, Mode, NoLimitTexasHoldem  # noqa: E402

from bench.clock import Processes  # noqa: E402
from bench.harness import production_environment  # noqa: E402
from tests.bot_mtt import LEVEL_SECONDS as MTT_LEVEL_SECONDS  # noqa: E402
from tests.bot_mtt import LEVELS as MTT_LEVELS  # noqa: E402
from tests.bot_mtt import STACK as MTT_STACK  # noqa: E402

REDIS_URL = os.environ.get("BENCH_HANDS_REDIS_URL", "redis://127.0.0.1:6379/12")
PLAY_SECONDS = 20.0
SEATS = 9
STACK, SMALL_BLIND, BIG_BLIND = 10_000, 50, 100
BUY_IN, FEE = 1_000, 100
ENTRANTS = 1_000  # (c)'s field
# (b)'s: a field big enough that its tournament outlasts the run on a quiet machine.
STACK_ENTRANTS = 2_000
BOOT_SECONDS = 60
# How long the tournament may take before the run gives up on it: a failure's deadline.
MTT_PATIENCE = 3_600


# --- (a) PokerKit alone.


def raw_hand(rng: random.Random) -> int:
    """One nine-handed hand on PokerKit's own state, to the end; returns its actions."""
    state = NoLimitTexasHoldem.create_state(
        tuple(Automation),
        False,
        0,
        (SMALL_BLIND, BIG_BLIND),
        BIG_BLIND,
        (STACK,) * SEATS,
        SEATS,
        mode=Mode.TOURNAMENT,
    )
    actions = 0
    while state.status:
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        call = state.checking_or_calling_amount or 0
        left = state.stacks[state.actor_index]
        if low is not None and high is not None and rng.random() < 0.2:
            roll = rng.random()
            state.complete_bet_or_raise_to(low if roll < 0.5 else high if roll < 0.65 else rng.randint(low, high))
        elif call and rng.random() < 0.05 + 0.6 * min(1.0, call / left):
            state.fold()
        else:
            state.check_or_call()
        actions += 1
    return actions


def raw_pokerkit(seconds: float, rng: random.Random) -> dict:
    hands = actions = 0
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        actions += raw_hand(rng)
        hands += 1
    return {"hands_per_s": hands / elapsed, "actions_per_hand": actions / hands}


# --- Set-up on the database.


def bot_tournament(entrants: int, *, name: str, start, levels: list[tuple], seconds: int, stack: int):
    """A registering tournament of `entrants` funded bots on nine-seat tables."""
    from accounts.models import User
    from tournaments.models import BlindLevel, BlindStructure, BreakPolicyKind, Status, Tournament
    from tournaments.services.entries import entry_register
    from wallet.services import deposit_create

    structure = BlindStructure.objects.create(name=name)
    BlindLevel.objects.bulk_create(
        BlindLevel(structure=structure, position=n, small_blind=sb, big_blind=bb, ante=ante, minutes=0, seconds=seconds)
        for n, (sb, bb, ante) in enumerate(levels, start=1)
    )
    tournament = Tournament.objects.create(
        name=name,
        scheduled_start=start,
        status=Status.REGISTERING,
        blind_structure=structure,
        buy_in=BUY_IN,
        fee=FEE,
        max_entrants=entrants,
        table_size=SEATS,
        starting_stack=stack,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
    )
    tag = f"t{tournament.pk}"
    bots = User.objects.bulk_create(
        User(
            username=f"bot-{tag}-{n}", screen_name=f"Bot{tag}x{n}", email=f"bot-{tag}-{n}@example.invalid", is_bot=True
        )
        for n in range(entrants)
    )
    for bot in bots:
        deposit_create(user=bot, currency=tournament.currency, amount=BUY_IN + FEE, idempotency_key=f"bench:{bot.pk}")
        entry_register(tournament_id=tournament.pk, player=bot, now=start - timedelta(minutes=1))
    return tournament


def room_with_people(
    tables: int, *, name: str, blinds: tuple[int, int], stack: int, action_seconds: int
) -> tuple[int, dict[int, int]]:
    """A started tournament of `tables` nine-seat tables of bots at `blinds` for a day,
    and at each table one seat, not the one to act in its table's first hand (that
    turn's deadline is a bot's), made a person whose turns last `action_seconds`:
    the tournament, and each person's player by entry."""
    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import Entry, Hand, HandStatus, Status, Tournament
    from tournaments.selectors.replays import entry_of
    from tournaments.services.clock import tournament_advance

    tournament = bot_tournament(
        tables * SEATS,
        name=name,
        start=timezone.now() + timedelta(days=1),
        levels=[(*blinds, 0)],
        seconds=24 * 3600,
        stack=stack,
    )
    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(
        scheduled_start=now, next_transition_at=now, action_seconds=action_seconds
    )
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())  # the seat draw, the first hands dealt
    status = Tournament.objects.values_list("status", flat=True).get(pk=tournament.pk)
    if status not in (Status.RUNNING, Status.LATE_REGISTRATION):
        raise RuntimeError(f"the tournament did not start: {status}")
    people: dict[int, int] = {}
    for row in Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).order_by("table__number"):
        entry_id = next(entry_of(row, int(seat)) for seat in sorted(row.seats, key=int) if int(seat) != row.to_act)
        people[entry_id] = Entry.objects.values_list("player_id", flat=True).get(pk=entry_id)
    User.objects.filter(pk__in=people.values()).update(is_bot=False)
    return tournament.pk, people


# --- (b) The full stack, in this process.


def full_stack(entrants: int, seconds: float, *, profile: bool = False) -> dict:
    """The services called in turn on our own clock (see the module's docstring), in
    one tournament: first bots that do not think for `seconds` of wall time (hands
    reported to the floor a second), then bots that think for half as long (the
    actions taken a second over the actions a finished hand took)."""
    from django.conf import settings
    from django.utils import timezone

    from tournaments.models import Hand, HandStatus, Status, Tournament
    from tournaments.services.clock import tournament_advance
    from tournaments.services.tables import hands_catch_up

    start = timezone.now() + timedelta(days=1)  # its hands fall due for nobody but this process
    tournament = bot_tournament(
        entrants,
        name="Bench hands",
        start=start,
        levels=[(SMALL_BLIND, BIG_BLIND, 0)],
        seconds=24 * 3600,
        stack=STACK,
    )
    tournament_advance(tournament_id=tournament.pk, now=start)
    hands = Hand.objects.filter(tournament=tournament)
    clock = {"now": start}

    def play(seconds: float, *, step: float, bots_wait: bool, profiler: cProfile.Profile | None = None) -> float:
        """Rounds of turns for `seconds`; returns the wall time they took."""
        began = time.perf_counter()
        while (elapsed := time.perf_counter() - began) < seconds:
            clock["now"] += timedelta(seconds=step)
            if profiler:
                profiler.enable()
            tournament_advance(tournament_id=tournament.pk, now=clock["now"])
            hands_catch_up(now=clock["now"], before=clock["now"], tournament_id=tournament.pk, bots_wait=bots_wait)
            if profiler:
                profiler.disable()
            if Tournament.objects.filter(pk=tournament.pk, status=Status.FINISHED).exists():
                raise RuntimeError(f"the tournament finished within {elapsed:.1f} s: give it more entrants")
        return elapsed

    def played() -> tuple[int, int]:
        """Hands reported, and actions taken in any hand."""
        rows = hands.values_list("status", "actions")
        return sum(status == HandStatus.REPORTED for status, _ in rows), sum(len(actions) for _, actions in rows)

    profiler = cProfile.Profile() if profile else None
    whole = play(seconds, step=20, bots_wait=False, profiler=profiler)
    reported, actions_before = played()
    finished = hands.filter(status=HandStatus.REPORTED).values_list("seats", "actions")
    actions_per_hand = sum(len(taken) for _, taken in finished) / len(finished)
    each = play(seconds / 2, step=settings.TABLE_BOT_SECONDS, bots_wait=True)
    actions = played()[1] - actions_before
    return {
        "hands": reported,
        "seconds": whole,
        "hands_per_s": reported / whole,
        "actions_per_hand": actions_per_hand,
        "players_per_hand": sum(len(seats) for seats, _ in finished) / len(finished),
        "actions_per_s": actions / each,
        "thinking_hands_per_s": actions / each / actions_per_hand,
        "profile": profiler,
    }


# --- (c) The bot tournament through a real worker.


def bot_mtt(entrants: int, tmp: Path) -> dict:
    """From the seat draw to the winner, on the Procfile's worker and beat; returns
    the tournament's wall time and what the run found."""
    from django.db import connections
    from django.db.models import Sum
    from django.utils import timezone

    from tournaments.models import Entry, Hand, HandStatus, Status, Tournament
    from tournaments.services.editing import tournament_save

    lead = timedelta(seconds=15)  # the worker boots, beat's sweep queues the start
    redis.Redis.from_url(REDIS_URL).flushdb()  # (b)'s tasks, queued for nobody
    processes = Processes(tmp, {**os.environ, "TABLE_BOT_SECONDS": "0", "TABLE_HAND_GAP_SECONDS": "0"})
    setup_began = time.perf_counter()
    tournament = bot_tournament(
        entrants,
        name="Bench bot tournament",
        start=timezone.now() + timedelta(days=1),
        levels=MTT_LEVELS,
        seconds=MTT_LEVEL_SECONDS,
        stack=MTT_STACK,
    )
    print(f"(c) {entrants} bots registered in {time.perf_counter() - setup_began:.1f} s")
    try:
        from bench.clock import start_celery

        start_celery(processes)
        # The start moves near once the worker is up (its boot is not the tournament's
        # time), through the admin's edit, which has the clock's sweep look at it.
        tournament = Tournament.objects.get(pk=tournament.pk)
        tournament.scheduled_start = timezone.now() + lead
        tournament_save(tournament=tournament, actor=None, changed=["scheduled_start"], created=False)
        connections.close_all()
        deadline = time.monotonic() + lead.total_seconds() + MTT_PATIENCE
        while not Tournament.objects.filter(pk=tournament.pk, status=Status.FINISHED).exists():
            processes.check_alive()
            if time.monotonic() > deadline:
                raise RuntimeError(f"the tournament did not finish in {MTT_PATIENCE} s\n{processes.log('worker')}")
            time.sleep(1)
    finally:
        processes.stop()
    tournament.refresh_from_db()
    hands = Hand.objects.filter(tournament=tournament)
    problems = []
    if hands.exclude(status=HandStatus.REPORTED).exists():
        problems.append("hands left unreported")
    total = entrants * MTT_STACK
    winner = Entry.objects.filter(tournament=tournament, finish_best=1)
    if winner.count() != 1 or winner.get().chips != total:
        problems.append("not one winner with every chip")
    placed = Entry.objects.filter(tournament=tournament, finish_best__isnull=False).count()
    if placed != entrants:
        problems.append(f"{placed} of {entrants} placed")
    paid = Entry.objects.filter(tournament=tournament).aggregate(total=Sum("prize"))["total"]
    if paid != entrants * BUY_IN:
        problems.append(f"{paid} paid of a pool of {entrants * BUY_IN}")
    return {
        "seconds": (tournament.finished_at - tournament.started_at).total_seconds(),
        "hands": hands.count(),
        "tables": tournament.tables.count(),
        "problems": problems,
    }


def bench(args: argparse.Namespace, tmp: Path) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    rng = random.Random(args.seed)
    # Half before (b) and half after: a load that comes or goes meanwhile weighs on both sides alike.
    raw = raw_pokerkit(args.seconds / 2, rng)
    call_command("migrate", interactive=False, verbosity=0)
    redis.Redis.from_url(REDIS_URL).flushdb()
    stack = full_stack(args.entrants, args.seconds, profile=args.profile)
    if stack["profile"]:
        pstats.Stats(stack["profile"]).sort_stats("cumulative").print_stats(60)
    after = raw_pokerkit(args.seconds / 2, rng)
    raw = {key: (raw[key] + after[key]) / 2 for key in raw}
    print(
        f"(a) raw PokerKit: {raw['hands_per_s']:.1f} nine-handed hands/s ({raw['actions_per_hand']:.1f} actions a hand)"
    )
    print(
        f"(b) full stack, {args.entrants} entrants: {stack['hands']} hands in {stack['seconds']:.1f} s ="
        f" {stack['hands_per_s']:.2f} hands/s, bots that do not think (a hand a transaction);"
        f" {stack['actions_per_hand']:.1f} actions, {stack['players_per_hand']:.2f} players a hand"
    )
    thinking = stack["thinking_hands_per_s"]
    print(
        f"    bots that think, or people (an action a transaction): {stack['actions_per_s']:.1f} actions/s ="
        f" {thinking:.2f} hands/s, ratio {thinking / raw['hands_per_s']:.3f} (information only)"
    )
    ratio = stack["hands_per_s"] / raw["hands_per_s"]
    print(f"ratio {ratio:.3f} (target at least 0.25)")
    print(f"RESULT hands_ratio {ratio:.3f}")
    if args.skip_mtt:
        return 0
    mtt = bot_mtt(args.mtt_entrants, tmp)
    print(
        f"(c) bot tournament of {args.mtt_entrants} through the worker: {mtt['seconds']:.1f} s from the draw to"
        f" the winner, {mtt['hands']} hands at {mtt['tables']} tables"
    )
    if mtt["problems"]:
        print("CORRECTNESS FAILED: " + "; ".join(mtt["problems"]))
        return 1
    print("correct: one winner with every chip, every entrant placed, the prize pool paid out")
    if args.mtt_entrants == ENTRANTS:
        print(f"RESULT bot_mtt_1000_s {mtt['seconds']:.1f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=STACK_ENTRANTS, help="(b)'s field")
    parser.add_argument("--mtt-entrants", type=int, default=ENTRANTS, help="(c)'s field")
    parser.add_argument("--seconds", type=float, default=PLAY_SECONDS, help="of play for (a) and (b)")
    parser.add_argument("--seed", type=int, default=secrets.randbelow(10**6))
    parser.add_argument("--skip-mtt", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with production_environment(
        "portal_benchhands", REDIS_URL, TABLE_BOT_SECONDS="1", TABLE_HAND_GAP_SECONDS="0"
    ) as tmp:
        return bench(args, tmp)


if __name__ == "__main__":
    sys.exit(main())
