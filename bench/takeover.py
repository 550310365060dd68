"""How long do a killed table node's tables stand still before another node plays
them on, and does the room lose anything?

The Procfile's `worker` (TABLE_NODES 2: two table nodes, each one process), `clock`
and `beat`, with the production settings, on a throwaway PostgreSQL database and
Redis (database 12, flushed; BENCH_TAKEOVER_REDIS_URL). One tournament of `--tables`
(40) nine-seat tables of bots thinking production's 1.5 s (`--bot-seconds`), its
seats drawn in this process. After `--warm-up` (20 s) the node that plays the most
tables is killed with SIGKILL, in the middle of whatever it was doing; the room
then plays on for `--after` (30 s) and is stopped.

Every turn is timed in the database (bench/table_latency.py's trigger: each stored
turn, with the deadline it was due at and the moment it was stored). A table of
the killed node stood still from the kill until the first turn stored after it;
what counts is how late that turn was: the moment it was stored less the later of
its deadline and the kill (a bot thinking meanwhile was not held up). `RESULT
takeover_s` is the most late of those tables' first turns. Printed beside it: the
same for the other node's tables (the room's lateness without a kill), every hand
finished, in play from its record, or rolled back (rule 22), the chips on the
floor's books against the tournament's, and `wallet_audit`.

    uv run python bench/takeover.py [--tables 40] [--warm-up 20] [--after 30] [--bot-seconds 1.5]

About a minute and a half.
"""

import argparse
import os
import signal
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path and bench/lobby.py would hide the `lobby` app.
    sys.path[0] = str(ROOT)

import redis  # noqa: E402

from bench.clock import Processes, start_celery  # noqa: E402
from bench.hands import bot_tournament  # noqa: E402
from bench.harness import production_environment  # noqa: E402
from bench.table_latency import BENCH_SESSION, played_turns, turn_log  # noqa: E402

REDIS_URL = os.environ.get("BENCH_TAKEOVER_REDIS_URL", "redis://127.0.0.1:6379/12")
TABLES, SEATS = 40, 9
STACK, SMALL_BLIND, BIG_BLIND = 10_000, 50, 100
BOT_SECONDS = 1.5


def seed(tables: int) -> int:
    """The started tournament: its seats drawn, its first hands dealt (their turns are
    queued once the nodes are alive: the sweep finds them)."""
    from django.utils import timezone

    from tournaments.models import Tournament
    from tournaments.services.clock import tournament_advance

    tournament = bot_tournament(
        tables * SEATS,
        name="Bench takeover",
        start=timezone.now(),
        levels=[(SMALL_BLIND, BIG_BLIND, 0)],
        seconds=24 * 3600,
        stack=STACK,
    )
    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(scheduled_start=now, next_transition_at=now)
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    return tournament.pk


def node_pids(processes: Processes) -> dict[int, int]:
    """The table nodes' processes, by index: the children of the Procfile's `worker`."""
    shell = processes.procs["worker"].pid
    found = {}
    for child in Path(f"/proc/{shell}/task/{shell}/children").read_text().split():
        line = Path(f"/proc/{child}/cmdline").read_text().split("\0")
        queues = line[line.index("--queues") + 1]
        found[int(queues.split(",")[0].removeprefix("tables-"))] = int(child)
    return found


def bench(args: argparse.Namespace, tmp: Path) -> int:
    """The room started, warmed up, a node killed, the room played on: then the report."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    settings.DATABASES["default"]["OPTIONS"].update(BENCH_SESSION)
    call_command("migrate", interactive=False, verbosity=0)
    from tournaments.models import Table
    from tournaments.nodes import table_node

    database_url = os.environ["DATABASE_URL"]
    turn_log(database_url)
    tournament_id = seed(args.tables)
    tables = list(Table.objects.filter(tournament_id=tournament_id).values_list("pk", flat=True))
    owners = {table: table_node(table, tuple(range(settings.TABLE_NODES))) for table in tables}
    connections.close_all()
    processes = Processes(tmp, dict(os.environ))
    try:
        start_celery(processes)
        time.sleep(args.warm_up)
        pids = node_pids(processes)
        killed = max(pids, key=lambda index: list(owners.values()).count(index))
        os.kill(pids[killed], signal.SIGKILL)
        killed_at = datetime.now(UTC)
        print(
            f"node {killed} (pid {pids[killed]}, {list(owners.values()).count(killed)} of {len(tables)} tables) killed"
        )
        time.sleep(args.after)
    finally:
        processes.stop()
    return report(args, tournament_id, owners, killed, killed_at)


def report(args: argparse.Namespace, tournament_id: int, owners: dict[int, int], killed: int, killed_at) -> int:
    """The killed node's tables' takeover, and the room's books, printed; 0 if nothing was lost."""
    from django.core.management import call_command

    from tournaments.models import Entry, EntryStatus, Hand, HandStatus
    from tournaments.selectors.replays import replay

    database_url = os.environ["DATABASE_URL"]
    tables = list(owners)
    # The first turn each table stored after the kill, and how late it was then.
    first: dict[int, tuple[datetime, datetime]] = {}
    for _hand, table, _taken, _played, deadline, applied in sorted(played_turns(database_url), key=lambda t: t[5]):
        if applied > killed_at and table not in first:
            first[table] = (applied, max(deadline or killed_at, killed_at))
    orphans = [table for table, owner in owners.items() if owner == killed]
    standing = [table for table in orphans if table not in first]
    late = {table: (applied - due).total_seconds() for table, (applied, due) in first.items()}
    others = [late[table] for table in tables if owners[table] != killed and table in late]
    print(
        f"the killed node's tables: {len(orphans)}, each played on after the kill: {len(orphans) - len(standing)};"
        f" their first turn late by at most {max((late.get(t, 0) for t in orphans), default=0):.2f} s"
        f" (median {sorted(late.get(t, 0) for t in orphans)[len(orphans) // 2]:.2f} s);"
        f" the other node's tables at most {max(others, default=0):.2f} s"
    )

    statuses: dict[str, int] = defaultdict(int)
    broken = 0
    for row in Hand.objects.filter(tournament_id=tournament_id):
        statuses[row.status] += 1
        if row.status == HandStatus.VOIDED:
            broken += not row.voided_reason
            continue
        played = replay(row)  # every record replays: a hand in play goes on from it
        if row.status in (HandStatus.FINISHED, HandStatus.REPORTED):
            broken += {str(s): c for s, c in played.result().stacks.items()} != row.result["stacks"]
    chips = sum(
        Entry.objects.filter(tournament_id=tournament_id, status=EntryStatus.ACTIVE).values_list("chips", flat=True)
    )
    audit = StringIO()
    call_command("wallet_audit", stdout=audit)
    total = args.tables * SEATS * STACK
    print(
        f"hands: {dict(statuses)}, {broken} whose record does not replay to what is stored;"
        f" chips on the floor's books {chips:,} of {total:,}; wallet_audit: {audit.getvalue().strip()}"
    )
    if standing:
        print(f"NOTE: {len(standing)} of the killed node's tables never played on")
    print(f"RESULT takeover_s {max((late.get(t, float('inf')) for t in orphans), default=0):.2f}")
    return 0 if not standing and not broken and chips == total else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TABLES)
    parser.add_argument("--warm-up", type=float, default=20.0, help="seconds from the nodes' start to the kill")
    parser.add_argument("--after", type=float, default=30.0, help="seconds the room plays on after the kill")
    parser.add_argument("--bot-seconds", type=float, default=BOT_SECONDS)
    args = parser.parse_args()
    redis.Redis.from_url(REDIS_URL).flushdb()
    with production_environment(
        "portal_benchtakeover",
        REDIS_URL,
        TABLE_BOT_SECONDS=str(args.bot_seconds),
        TABLE_HAND_GAP_SECONDS="1",
    ) as tmp:
        return bench(args, tmp)


if __name__ == "__main__":
    sys.exit(main())
