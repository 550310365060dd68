"""A client's idempotency key names one request of one player for one purchase in one event."""

import pytest
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, rebuy_event
from tournaments.models import Entry
from tournaments.services.entries import entry_addon, entry_rebuy, entry_register
from wallet.services import deposit_create

pytestmark = pytest.mark.django_db


def rich(name):
    user = UserFactory(username=name)
    deposit_create(user=user, currency="EUR", amount=10_000, idempotency_key=f"d-{name}")
    return user


def test_a_key_used_in_one_event_registers_in_another():
    alice = rich("alice")
    first = TournamentFactory(blind_structure=BlindStructureFactory())
    second = TournamentFactory(blind_structure=BlindStructureFactory())
    now = timezone.now()
    entry_register(tournament_id=first.pk, player=alice, now=now, idempotency_key="k")
    entry = entry_register(tournament_id=second.pk, player=alice, now=now, idempotency_key="k")
    assert entry.tournament_id == second.pk


def test_another_players_key_does_not_block_a_registration():
    alice, bob = rich("alice"), rich("bob")
    event = TournamentFactory(blind_structure=BlindStructureFactory())
    now = timezone.now()
    entry_register(tournament_id=event.pk, player=alice, now=now, idempotency_key="k")
    entry_register(tournament_id=event.pk, player=bob, now=now, idempotency_key="k")
    assert Entry.objects.filter(player=bob).exists()


def test_a_rebuys_key_does_not_answer_an_addon():
    alice = rich("alice")
    event = rebuy_event()
    now = timezone.now()
    entry_register(tournament_id=event.pk, player=alice, now=now)
    entry_rebuy(tournament_id=event.pk, player=alice, now=now, idempotency_key="k")
    purchase = entry_addon(tournament_id=event.pk, player=alice, now=now, idempotency_key="k")
    assert purchase.kind == "addon"
