"""Rule 21: a seat moves to another account only by a staff decision with a reason,
audited; the new holder plays the hand in play, the old one no longer can."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tests.tables import in_play, started
from tournaments.models import Entry, EntryStatus
from tournaments.services.hands import entry_of
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import hand_act

pytestmark = pytest.mark.django_db


def transfer(client: Client, tournament, source, target, reason="Hospitalised; his brother plays on"):
    data = {"tournament": tournament.pk, "source": source.username, "target": target.username, "reason": reason}
    return client.post(reverse("support:seat_transfer"), data)


def test_staff_move_a_seat_with_a_reason_and_the_new_holder_plays_its_hand(staff):
    tournament, _ = started([1000, 1000, 1000])
    row = in_play(tournament)
    entry = Entry.objects.select_related("player").get(pk=entry_of(row, row.to_act))
    source, target = entry.player, UserFactory(username="brother")
    client = Client()
    client.force_login(staff)

    response = transfer(client, tournament, source, target)

    assert response.status_code == 302
    entry.refresh_from_db()
    assert (entry.player, entry.chips, entry.status) == (target, 1000, EntryStatus.ACTIVE)
    audit = AuditEntry.objects.get(action="tournaments.entry.transferred")
    assert (audit.actor, audit.reason, audit.data["from"], audit.data["to"]) == (
        staff,
        "Hospitalised; his brother plays on",
        source.pk,
        target.pk,
    )
    with pytest.raises(TournamentError, match="You are not in this hand"):
        hand_act(hand_id=row.pk, player_id=source.pk, at=0, kind="f", now=tournament.scheduled_start)
    played = hand_act(hand_id=row.pk, player_id=target.pk, at=0, kind="f", now=tournament.scheduled_start)
    assert len(played.hand.actions) == 1


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("no reason", "This field is required."),
        ("entered already", "entered in this tournament already"),
        ("no seat", "has no seat in play"),
        ("same", "only move to another account"),
    ],
)
def test_a_transfer_the_rules_forbid_is_refused_and_changes_nothing(staff, case, message):
    tournament, entries = started([1000, 1000, 1000])
    source = entries[0].player
    target = {
        "no reason": UserFactory(),
        "entered already": entries[1].player,
        "no seat": UserFactory(),
        "same": source,
    }[case]
    if case == "no seat":
        source = UserFactory()
    client = Client()
    client.force_login(staff)

    response = transfer(client, tournament, source, target, reason="  " if case == "no reason" else "Verified")

    assert response.status_code == 400
    assert message in response.text
    assert {entry.pk: entry.player_id for entry in Entry.objects.filter(tournament=tournament)} == {
        entry.pk: entry.player_id for entry in entries
    }
    assert not AuditEntry.objects.filter(action="tournaments.entry.transferred").exists()


@pytest.mark.parametrize(("language", "prefix"), [("en", ""), ("da", "/da")])
def test_moving_a_seat_in_a_tournament_that_does_not_exist_says_so(staff, language, prefix):
    _tournament, entries = started([1000, 1000, 1000])
    client = Client()
    client.force_login(staff)
    target = UserFactory(username="brother")
    data = {"tournament": 987654, "source": entries[0].player.username, "target": target.username, "reason": "Verified"}

    response = client.post(prefix + reverse("support:seat_transfer"), data)

    assert response.status_code == 400
    expected = {"en": "There is no tournament #987654.", "da": "Der findes ingen turnering #987654."}[language]
    assert expected in response.text
    assert "not in play" not in response.text
    assert Entry.objects.get(pk=entries[0].pk).player_id == entries[0].player_id


def test_moving_a_seat_in_a_tournament_not_under_way_says_it_is_not_in_play(staff):
    tournament = TournamentFactory(blind_structure=BlindStructureFactory())
    source, target = UserFactory(), UserFactory()
    client = Client()
    client.force_login(staff)

    response = transfer(client, tournament, source, target)

    assert response.status_code == 400
    assert "The tournament is not in play." in response.text


def test_a_player_cannot_move_a_seat(player):
    tournament, entries = started([1000, 1000, 1000])
    client = Client()
    client.force_login(player)

    response = transfer(client, tournament, entries[0].player, player)

    assert response.status_code == 403
    assert Entry.objects.get(pk=entries[0].pk).player_id == entries[0].player_id
