"""A 1,000-player bot tournament played to the winner by a real Celery worker (with
beat) on PostgreSQL and Redis, through the services people's tables use: beat's
sweep starts it, the clock draws the seats, the worker's tasks play every hand and
report it to the floor, which places, pays, balances and breaks tables. Then the
books: one winner holding every chip, every place paid what the payouts say (the
ledger's transfers included), `wallet_audit` clean, chips conserved by every hand and
carried from each player's hand to his next, and every stored hand replaying to its
stored result. Only the wait for the end has a deadline, a failure's; nothing
asserted depends on how fast the machine is."""

import time
from collections import Counter, defaultdict
from datetime import timedelta
from io import StringIO

import pytest
import redis
from django.conf import settings
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from accounts.models import User
from tests.bot_mtt import LEVEL_SECONDS, LEVELS, STACK
from tests.factories import BlindStructureFactory, TournamentFactory
from tests.worker import Worker
from tournaments.models import BreakPolicyKind, Entry, EntryStatus, Hand, HandStatus, Status, Tournament
from tournaments.rules.standings import Finish, prizes
from tournaments.selectors.payouts import tournament_payouts
from tournaments.selectors.replays import replay
from tournaments.services.editing import tournament_save
from tournaments.services.entries import entry_register
from tournaments.services.prizes import prize_pool_spec
from wallet.models import Transfer, TransferReason
from wallet.services import account_get, deposit_create, wallet_account_spec

pytestmark = pytest.mark.django_db(transaction=True)

ENTRANTS = 1_000
# Seconds from the worker being up to the start: beat's sweep queues it first.
LEAD = 10
# How long the test waits for the winner before it calls the tournament stuck: a
# failure's deadline only, never a measure of the worker.
PATIENCE = 30 * 60


@pytest.fixture
def worker(tmp_path):
    # Tasks queued by earlier tests name tournaments of theirs: start from an empty broker.
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    # Bots act at once (the tests' settings) and the next hand follows the last at once.
    worker = Worker(tmp_path, env={"TABLE_HAND_GAP_SECONDS": "0"})
    yield worker
    worker.kill()


def bots_registered(tournament: Tournament, count: int) -> None:
    """`count` bots, each funded with the price of an entry and registered."""
    bots = User.objects.bulk_create(
        User(username=f"bot{n}", screen_name=f"Bot{n}", email=f"bot{n}@example.invalid", is_bot=True)
        for n in range(count)
    )
    price = tournament.buy_in + tournament.fee
    for bot in bots:
        deposit_create(user=bot, currency=tournament.currency, amount=price, idempotency_key=f"fund-{bot.pk}")
        entry_register(tournament_id=tournament.pk, player=bot, now=timezone.now())


def test_a_bot_tournament_of_a_thousand_plays_to_the_winner_on_a_real_worker(worker):
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(levels=[(*blinds, 0, LEVEL_SECONDS) for blinds in LEVELS]),
        scheduled_start=timezone.now() + timedelta(days=1),
        max_entrants=ENTRANTS,
        starting_stack=STACK,
        table_size=9,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
    )
    bots_registered(tournament, ENTRANTS)
    worker.start()
    # The start moves near through the admin's edit; nothing else tells the worker: its
    # sweep finds the start and the tasks do the rest.
    tournament = Tournament.objects.get(pk=tournament.pk)
    tournament.scheduled_start = timezone.now() + timedelta(seconds=LEAD)
    tournament_save(tournament=tournament, actor=None, changed=["scheduled_start"], created=False)
    deadline = time.monotonic() + LEAD + PATIENCE
    while not Tournament.objects.filter(pk=tournament.pk, status=Status.FINISHED).exists():
        assert worker.alive(), f"the worker exited\n{worker.log()}"
        assert time.monotonic() < deadline, f"no winner after {PATIENCE} s\n{worker.log()}"
        time.sleep(1)
    worker.kill()
    log = worker.log_path().read_text(errors="replace")
    assert "ERROR/" not in log, worker.log()  # no task failed

    tournament.refresh_from_db()
    tables = list(tournament.tables.all())
    assert len(tables) >= ENTRANTS // 9
    assert [table.broken_at for table in tables].count(None) == 1  # broken down to the final table
    entries = list(Entry.objects.filter(tournament=tournament).select_related("player"))
    total = ENTRANTS * STACK
    # One winner, holding every chip; everyone else out and placed, each place once.
    (winner,) = [entry for entry in entries if entry.finish_best == 1]
    assert (winner.status, winner.chips) == (EntryStatus.ACTIVE, total)
    out = [entry for entry in entries if entry is not winner]
    assert all(entry.status == EntryStatus.ELIMINATED and entry.chips == 0 for entry in out)
    shared = Counter((entry.finish_best, entry.finish_worst) for entry in entries)  # a tie shares its places
    assert all(count == worst - best + 1 for (best, worst), count in shared.items())
    assert sorted(place for best, worst in shared for place in range(best, worst + 1)) == list(range(1, ENTRANTS + 1))

    # Every place paid what the payouts say, through the ledger, and the pool emptied.
    payouts = tournament_payouts(tournament, now=tournament.finished_at)
    assert not payouts.provisional
    due = prizes([Finish(entry.pk, entry.finish_best, entry.finish_worst) for entry in entries], payouts.places)
    assert {entry.pk: entry.prize for entry in entries} == {entry.pk: due.get(entry.pk, 0) for entry in entries}
    paid = Transfer.objects.filter(
        reason=TransferReason.PRIZE, idempotency_key__startswith=f"tournament:{tournament.pk}:prize:"
    )
    assert paid.aggregate(total=Sum("amount"))["total"] == payouts.pool == ENTRANTS * tournament.buy_in
    for entry in entries:
        if entry.prize:
            transfer = paid.get(idempotency_key=f"tournament:{tournament.pk}:prize:{entry.pk}")
            assert transfer.amount == entry.prize
            assert transfer.destination == account_get(wallet_account_spec(entry.player_id, tournament.currency))
    assert account_get(prize_pool_spec(tournament)).balance == 0
    call_command("wallet_audit", stdout=StringIO())  # raises on any discrepancy

    # Every hand reported; each conserves its chips and replays to its stored result;
    # each player's stack carries from one of his hands to the next, from the
    # starting stack: so the chips in play never changed.
    hands = list(Hand.objects.filter(tournament=tournament).order_by("pk"))
    assert hands
    assert all(row.status == HandStatus.REPORTED for row in hands)
    carried: dict[int, list[tuple[int, int]]] = defaultdict(list)  # entry: (stack dealt, stack after), by hand
    for row in hands:
        start = {seat: int(chips) for seat, chips in row.setup["stacks"].items()}
        end = {seat: int(chips) for seat, chips in row.result["stacks"].items()}
        assert sum(start.values()) == sum(end.values()), f"hand {row.pk} created or lost chips"
        result = replay(row).result()
        assert {str(seat): chips for seat, chips in result.stacks.items()} == row.result["stacks"], row.pk
        assert list(result.board) == row.result["board"]
        for seat, entry_id in row.seats.items():
            carried[int(entry_id)].append((start[seat], end[seat]))
    assert set(carried) == {entry.pk for entry in entries}
    for entry in entries:
        dealt = [stack for stack, _ in carried[entry.pk]]
        after = [stack for _, stack in carried[entry.pk]]
        assert dealt == [STACK, *after[:-1]], f"entry {entry.pk}'s chips changed between hands"
        assert after[-1] == entry.chips
