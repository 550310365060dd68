from datetime import timedelta

import factory
from django.utils import timezone

from accounts.models import User
from tournaments.models import BlindLevel, BlindStructure, Entry, Tournament
from tournaments.rules.pricing import ENTRANTS_PAY_BOUNTY


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    screen_name = factory.LazyAttribute(lambda u: u.username.capitalize())
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password("correct horse battery")


class BlindStructureFactory(factory.django.DjangoModelFactory):
    """Twelve 20-minute levels unless told otherwise."""

    class Meta:
        model = BlindStructure
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Structure {n}")

    @factory.post_generation
    def levels(self, create, extracted, **kwargs):
        if not create:
            return
        blinds = extracted or [(10 * 2**i, 20 * 2**i, 0, 20) for i in range(12)]
        for position, (small, big, ante, minutes, *seconds) in enumerate(blinds, start=1):
            BlindLevel.objects.create(
                structure=self,
                position=position,
                small_blind=small,
                big_blind=big,
                ante=ante,
                minutes=minutes,
                seconds=seconds[0] if seconds else 0,
            )


class TournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tournament

    name = factory.Sequence(lambda n: f"Daily Freezeout {n}")
    scheduled_start = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=2))
    blind_structure = factory.SubFactory(BlindStructureFactory)
    buy_in = 1000
    fee = 100
    status = "registering"


def entrants(tournament: Tournament, count: int = 2, *, now=None) -> list[User]:
    """`count` new players, each funded with one entry's price and registered: enough
    for an event to start (its minimum is 2 by default)."""
    from tournaments.services.entries import entry_register
    from wallet.services import deposit_create

    players = []
    for _ in range(count):
        player = UserFactory()
        price = (
            tournament.buy_in
            + tournament.fee
            + (tournament.bounty_amount if tournament.bounty_kind in ENTRANTS_PAY_BOUNTY else 0)
        )
        deposit_create(user=player, currency=tournament.currency, amount=price, idempotency_key=f"fund-{player.pk}")
        entry_register(tournament_id=tournament.pk, player=player, now=now or timezone.now())
        players.append(player)
    return players


# A rebuy event's terms: rebuys in the first level, then the add-on.
REBUY_TERMS = {
    "buy_in": 300,
    "fee": 30,
    "rebuy_price": 300,
    "rebuy_fee": 30,
    "rebuy_chips": 10_000,
    "rebuy_levels": 1,
    "addon_price": 500,
    "addon_fee": 50,
    "addon_chips": 15_000,
}


def rebuy_event(**fields) -> Tournament:
    """A rebuy event five minutes into its first level, in late registration."""
    return TournamentFactory(
        **{
            "blind_structure": BlindStructureFactory(),
            "scheduled_start": timezone.now() - timedelta(minutes=5),
            "status": "late_registration",
            **REBUY_TERMS,
            **fields,
        }
    )


def tables_finish(tournament_id: int, *, now) -> None:
    """The clock up to `now`, each break that waits for the hands in play (rule 17)
    getting them finished as it falls due: every player to act checks or folds (rule
    18.3's choice) at the break's instant, so the break begins on time."""
    from tournaments.models import Tournament
    from tournaments.services.clock import tournament_advance
    from tournaments.services.tables import hands_check_down

    tournament_advance(tournament_id=tournament_id, now=now)
    for _ in range(100):
        pending = Tournament.objects.get(pk=tournament_id).break_pending_since
        if pending is None:
            return
        hands_check_down(tournament_id=tournament_id, now=pending)
        tournament_advance(tournament_id=tournament_id, now=now)


def registered(tournament: Tournament, *players) -> None:
    """Each of `players` funded with €11 and registered (an event's default price)."""
    from tournaments.services.entries import entry_register
    from wallet.services import deposit_create

    for person in players:
        key = f"fund:{tournament.pk}:{person.pk}"
        deposit_create(user=person, currency="EUR", amount=1100, idempotency_key=key)
        entry_register(tournament_id=tournament.pk, player=person, now=timezone.now())


def under_way(*players, **fields) -> Tournament:
    """An event of `players`, started through the clock (its seat draw seats them all
    at table 1) and still in late registration."""
    from tournaments.services.clock import tournament_advance

    now = timezone.now()
    tournament = TournamentFactory(
        **{
            "blind_structure": BlindStructureFactory(),
            "scheduled_start": now + timedelta(minutes=5),
            "break_policy": "none",
            "late_registration_minutes": 60,
            **fields,
        }
    )
    registered(tournament, *players)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tournament.refresh_from_db()
    assert tournament.started_at is not None
    return tournament


def hand(tournament: Tournament, stacks: dict) -> None:
    """Table 1 finishes a hand with these stacks (by player; the others keep theirs)."""
    from tournaments.services.tables import floor_hand_finished

    entries = Entry.objects.filter(tournament=tournament, table__number=1, finish_best=None)
    after = {entry.pk: stacks.get(entry.player, entry.chips) for entry in entries.select_related("player")}
    floor_hand_finished(
        tournament_id=tournament.pk, table=1, stacks=after, now=tournament.scheduled_start + timedelta(minutes=1)
    )
