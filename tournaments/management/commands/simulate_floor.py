"""`manage.py simulate_floor --entrants N`: a whole tournament through the real
services and database, from registration to the winner, with random hands
(tournaments.simulator) at random tables: eliminations, prizes paid through the
wallet, balancing, table breaks, hand-for-hand at the bubble, the final table.

Reports entrants, tables, hands, moves, table breaks and wall time, and checks the
books: the prize pool paid out exactly, to the players placed.
"""

import random
import secrets
import time
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Sum
from django.utils import timezone

from accounts.models import User
from tournaments.models import BlindLevel, BlindStructure, BreakPolicyKind, Entry, Status, Table, Tournament
from tournaments.selectors import tournament_payouts
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register
from tournaments.simulator import playing_tables, simulate_hand
from wallet.models import Currency
from wallet.services import deposit_create

BUY_IN, FEE = 1_000, 100


class Command(BaseCommand):
    help = "Simulate a tournament's floor from the seat draw to the winner, through the real services."

    def add_arguments(self, parser):
        parser.add_argument("--entrants", type=int, default=200)
        parser.add_argument("--table-size", type=int, default=9)
        parser.add_argument("--seed", type=int, default=None, help="Repeatable hands (the seat draw stays secure).")

    def handle(self, *args, entrants: int, table_size: int, seed: int | None, **options):
        if entrants < 2 or not 2 <= table_size <= 10:
            raise CommandError("At least 2 entrants, and 2 to 10 seats a table.")
        seed = seed if seed is not None else secrets.randbelow(10**6)
        rng = random.Random(seed)
        began = time.perf_counter()
        tournament = self._tournament(entrants, table_size)
        start = tournament.scheduled_start
        tournament_advance(tournament_id=tournament.pk, now=start)
        tables = Table.objects.filter(tournament=tournament).count()
        hands = moves = breaks = 0
        now = start
        while True:
            playing = playing_tables(tournament.pk)
            if not playing:
                break
            now += timedelta(seconds=1)
            report = simulate_hand(tournament.pk, rng.choice(playing), now=now, rng=rng)
            assert report is not None  # nothing else plays this tournament's hands
            hands += 1
            moves += report.moves
            breaks += report.broken
            if report.finished:
                break
        wall = time.perf_counter() - began
        tournament.refresh_from_db()
        if tournament.status != Status.FINISHED:
            raise CommandError(f"The tournament did not finish: {tournament.status}")
        pool = tournament_payouts(tournament, now=now).pool
        paid = Entry.objects.filter(tournament=tournament).aggregate(total=Sum("prize"))["total"]
        places = Entry.objects.filter(tournament=tournament, finish_best__isnull=False).count()
        winner = Entry.objects.select_related("player").get(tournament=tournament, finish_best=1)
        self.stdout.write(
            f"Tournament #{tournament.pk} (seed {seed}): {entrants} entrants, {tables} tables of {table_size}"
        )
        self.stdout.write(f"hands {hands}, moves {moves}, tables broken {breaks}, wall {wall:.1f} s")
        self.stdout.write(
            f"places {places}, prizes paid {paid} of a pool of {pool}; winner {winner.player.screen_name}"
        )
        if paid != pool or places != entrants:
            raise CommandError("The books do not balance: every place and every prize must be paid.")

    def _tournament(self, entrants: int, table_size: int) -> Tournament:
        now = timezone.now()
        structure, created = BlindStructure.objects.get_or_create(name="Simulator")
        if created:
            BlindLevel.objects.bulk_create(
                BlindLevel(structure=structure, position=n, small_blind=10 * n, big_blind=20 * n, minutes=60)
                for n in range(1, 31)
            )
        tournament = Tournament.objects.create(
            name=f"Floor simulation ({entrants})",
            scheduled_start=now + timedelta(minutes=1),
            status=Status.REGISTERING,
            blind_structure=structure,
            buy_in=BUY_IN,
            fee=FEE,
            currency=Currency.EUR,
            max_entrants=entrants,
            table_size=table_size,
            starting_stack=1_000,
            break_policy=BreakPolicyKind.NONE,
            late_registration_minutes=0,
            simulated=True,
        )
        tag = secrets.token_hex(3)
        players = User.objects.bulk_create(
            User(username=f"sim-{tag}-{n}", screen_name=f"Sim{tag}{n}", email=f"sim-{tag}-{n}@example.invalid")
            for n in range(entrants)
        )
        for player in players:
            deposit_create(user=player, currency=Currency.EUR, amount=BUY_IN + FEE, idempotency_key=f"sim:{player.pk}")
            entry_register(tournament_id=tournament.pk, player=player, now=now)
        return tournament
