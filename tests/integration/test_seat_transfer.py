"""Rule 21: a seat moves to another account only by a staff decision with a reason,
audited; the new holder plays the hand in play, the old one no longer can."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from lobby.templatetags.poker import card
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tests.tables import act, in_play, prepare, started
from tournaments.models import Entry, EntryStatus, HandStatus
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import entry_of
from tournaments.services.refusals import TournamentError
from tournaments.services.seats import entry_transfer
from tournaments.services.tables import hand_act, hand_report

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


def test_the_transfer_service_itself_refuses_an_actor_without_staff_rights(player):
    tournament, entries = started([1000, 1000, 1000])
    target = UserFactory()

    with pytest.raises(TournamentError, match="Only staff may move a seat") as refused:
        entry_transfer(
            tournament_id=tournament.pk,
            source=entries[0].player,
            target=target,
            actor=player,
            reason="I say so",
            now=timezone.now(),
        )

    assert refused.value.code == "transfer_staff_only"
    assert Entry.objects.get(pk=entries[0].pk).player_id == entries[0].player_id
    assert not AuditEntry.objects.filter(action="tournaments.entry.transferred").exists()


def folded_round(row):
    """Everyone folds to the big blind; the floor has the result and deals again."""
    while row.status == HandStatus.PLAYING:
        row = act(row, ActionKind.FOLD)
    assert hand_report(hand_id=row.pk, now=timezone.now())
    return row


def test_a_transferred_seat_is_the_new_account_s_from_then_on_and_its_earlier_hands_stay_the_old_one_s(staff):
    tournament, entries = started([1000, 1000, 1000])
    alice, brother = entries[0].player, UserFactory(username="brother")
    before = in_play(tournament)
    prepare(before, {entries[0]: "AsKd"})
    before = folded_round(before)
    at_transfer = in_play(tournament)  # the hand in play when staff decide
    prepare(at_transfer, {entries[0]: "QhQd"})
    entry_transfer(
        tournament_id=tournament.pk, source=alice, target=brother, actor=staff, reason="Verified", now=timezone.now()
    )
    at_transfer = folded_round(at_transfer)
    as_brother, as_alice = Client(), Client()
    as_brother.force_login(brother)
    as_alice.force_login(alice)
    earlier = reverse("lobby:hand", args=[tournament.pk, before.pk])
    later = reverse("lobby:hand", args=[tournament.pk, at_transfer.pk])

    # The new holder's lists and files: the hand he played on, never the one before.
    his_list = as_brother.get(reverse("lobby:my_hands")).text
    assert later in his_list
    assert earlier not in his_list
    his_file = as_brother.get(reverse("lobby:own_history", args=[tournament.pk])).text
    assert "QhQd" in his_file
    assert "AsKd" not in his_file
    for page in (as_brother.get(earlier).text, as_brother.get(earlier, {"format": "phh"}).text):
        assert card("As") not in page
        assert "<code>As</code>" not in page
        assert "AsKd" not in page
    assert card("Qh") not in as_alice.get(later).text
    # The old holder keeps the history of the hands he was dealt, under his name.
    her_list = as_alice.get(reverse("lobby:my_hands")).text
    assert earlier in her_list
    assert later not in her_list
    her_page = as_alice.get(earlier).text
    assert card("As") in her_page
    assert alice.screen_name in her_page
    assert "AsKd" in as_alice.get(reverse("lobby:own_history", args=[tournament.pk])).text
