"""`manage.py play_bots --entrants N`: a whole tournament of bots through the real
services and database, from registration to the winner: real hands at every table
(tournaments.services.tables), eliminations, prizes paid through the wallet,
balancing, table breaks, hand-for-hand at the bubble, the final table. Its clock is
driven here, a few seconds of play per round of turns, so levels rise and it ends.

Reports entrants, tables, hands and wall time, and checks the books: the prize pool
paid out exactly, to the players placed, and the chips conserved.
"""

import secrets
import time
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Sum
from django.utils import timezone

from accounts.models import User
from tournaments.models import BlindLevel, BlindStructure, BreakPolicyKind, Entry, Hand, Status, Table, Tournament
from tournaments.selectors.payouts import tournament_payouts
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register
from tournaments.services.tables import hands_catch_up
from wallet.models import Currency
from wallet.services import deposit_create

BUY_IN, FEE = 1_000, 100
# Seconds of the tournament's clock between rounds of turns: bots act at once when
# their thinking time is nil, so each round plays a hand at every table.
STEP_SECONDS = 20


class Command(BaseCommand):
    help = "Play a tournament of bots from the seat draw to the winner, through the real services."

    def add_arguments(self, parser):
        parser.add_argument("--entrants", type=int, default=200)
        parser.add_argument("--table-size", type=int, default=9)

    def handle(self, *args, entrants: int, table_size: int, **options):
        if entrants < 2 or not 2 <= table_size <= 10:
            raise CommandError("At least 2 entrants, and 2 to 10 seats a table.")
        began = time.perf_counter()
        tournament = self._tournament(entrants, table_size)
        now = tournament.scheduled_start
        tournament_advance(tournament_id=tournament.pk, now=now)
        tables = Table.objects.filter(tournament=tournament).count()
        while Tournament.objects.filter(pk=tournament.pk).exclude(status=Status.FINISHED).exists():
            now += timedelta(seconds=STEP_SECONDS)
            tournament_advance(tournament_id=tournament.pk, now=now)
            if not hands_catch_up(now=now, before=now, tournament_id=tournament.pk, bots_wait=False):
                raise CommandError("Nothing is left to play, but the tournament has not finished.")
        wall = time.perf_counter() - began
        hands = Hand.objects.filter(tournament=tournament).count()
        tournament.refresh_from_db()
        if tournament.status != Status.FINISHED:
            raise CommandError(f"The tournament did not finish: {tournament.status}")
        pool = tournament_payouts(tournament, now=now).pool
        paid = Entry.objects.filter(tournament=tournament).aggregate(total=Sum("prize"))["total"]
        places = Entry.objects.filter(tournament=tournament, finish_best__isnull=False).count()
        winner = Entry.objects.select_related("player").get(tournament=tournament, finish_best=1)
        self.stdout.write(f"Tournament #{tournament.pk}: {entrants} entrants, {tables} tables of {table_size}")
        self.stdout.write(f"hands {hands}, wall {wall:.1f} s")
        self.stdout.write(
            f"places {places}, prizes paid {paid} of a pool of {pool}; winner {winner.player.screen_name}"
        )
        if paid != pool or places != entrants:
            raise CommandError("The books do not balance: every place and every prize must be paid.")

    def _tournament(self, entrants: int, table_size: int) -> Tournament:
        now = timezone.now()
        structure, created = BlindStructure.objects.get_or_create(name="Bot tournament")
        if created:
            BlindLevel.objects.bulk_create(
                BlindLevel(structure=structure, position=n, small_blind=10 * n, big_blind=20 * n, minutes=5)
                for n in range(1, 31)
            )
        tournament = Tournament.objects.create(
            name=f"Bot tournament ({entrants})",
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
        )
        tag = secrets.token_hex(3)
        players = User.objects.bulk_create(
            User(
                username=f"bot-{tag}-{n}",
                screen_name=f"Bot{tag}{n}",
                email=f"bot-{tag}-{n}@example.invalid",
                is_bot=True,
            )
            for n in range(entrants)
        )
        for player in players:
            deposit_create(user=player, currency=Currency.EUR, amount=BUY_IN + FEE, idempotency_key=f"bots:{player.pk}")
            entry_register(tournament_id=tournament.pk, player=player, now=now)
        return tournament
