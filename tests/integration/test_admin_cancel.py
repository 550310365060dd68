"""Staff cancel (rule 22) and postpone (rule 2) events from the admin's event list."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.demo import demo_load
from tournaments.models import EntryStatus, Status
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register
from wallet.services import account_get, deposit_create, wallet_account_spec

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:tournaments_tournament_changelist"


def grant(user, *codenames):
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="tournaments", codename__in=codenames))
    return user


@pytest.fixture
def floor_client(client, staff):
    """Staff in the Support staff group, as the demo's staff login (not superusers)."""
    staff.groups.add(Group.objects.get(name="Support staff"))
    client.force_login(staff)
    return client


@pytest.fixture
def event(db):
    return TournamentFactory(blind_structure=BlindStructureFactory(), name="Nightly 11", buy_in=1_000, fee=100)


@pytest.fixture
def entrant(event, player):
    deposit_create(user=player, currency="EUR", amount=5_000, idempotency_key="alice")
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    return player


def run_action(client, action, events, **form):
    data = {"action": action, "_selected_action": [event.pk for event in events], **form}
    return client.post(reverse(CHANGELIST), data)


def confirm(client, action, events, **form):
    return run_action(client, action, events, post="yes", **form)


def shown_messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


# Cancel, rolling back


def test_the_cancel_action_asks_for_a_reason_before_doing_anything(floor_client, event, entrant):
    response = run_action(floor_client, "cancel_rollback", [event])

    assert response.status_code == 200
    assert "Cancel and refund everything" in response.text
    assert 'name="reason"' in response.text
    assert "Nightly 11" in response.text
    event.refresh_from_db()
    assert event.status == Status.REGISTERING


def test_cancelling_with_a_reason_refunds_everyone_and_records_who_and_why(floor_client, staff, event, entrant):
    response = confirm(floor_client, "cancel_rollback", [event], reason="Dealer servers down")

    assert response.status_code == 302
    event.refresh_from_db()
    assert event.status == Status.CANCELLED
    assert account_get(wallet_account_spec(entrant.pk, "EUR")).balance == 5_000
    assert event.entries.get().status == EntryStatus.REFUNDED
    audit = AuditEntry.objects.get(action="tournaments.tournament.cancelled")
    assert (audit.actor, audit.reason, audit.data["mode"]) == (staff, "Dealer servers down", "rollback")
    follow = floor_client.get(response.url)
    assert "Cancelled 1 event; every entrant was refunded." in shown_messages(follow)
    call_command("wallet_audit")


def test_a_cancellation_without_a_reason_shows_the_form_again(floor_client, event, entrant):
    response = confirm(floor_client, "cancel_rollback", [event], reason="  ")

    assert response.status_code == 200
    assert "This field is required." in response.text
    event.refresh_from_db()
    assert event.status == Status.REGISTERING
    assert account_get(wallet_account_spec(entrant.pk, "EUR")).balance == 3_900


def test_cancelling_a_cancelled_event_again_says_so(floor_client, event):
    confirm(floor_client, "cancel_rollback", [event], reason="First")

    response = confirm(floor_client, "cancel_rollback", [event], reason="Second")

    assert "Nightly 11: This tournament has already been cancelled." in shown_messages(floor_client.get(response.url))
    assert AuditEntry.objects.filter(action="tournaments.tournament.cancelled").count() == 1


# Cancel, rolling forward


def test_rolling_forward_an_event_not_started_is_refused_with_the_reason(floor_client, event, entrant):
    response = confirm(floor_client, "cancel_roll_forward", [event], reason="Crash")

    (message,) = shown_messages(floor_client.get(response.url))
    assert message.startswith("Nightly 11: Roll forward shares out a tournament in play")
    event.refresh_from_db()
    assert event.status == Status.REGISTERING
    assert account_get(wallet_account_spec(entrant.pk, "EUR")).balance == 3_900


def test_rolling_forward_an_event_in_play_shares_its_pool(floor_client, player, other_player):
    now = timezone.now()
    event = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=now - timedelta(minutes=5),
        status=Status.LATE_REGISTRATION,
    )
    for user in (player, other_player):
        deposit_create(user=user, currency="EUR", amount=5_000, idempotency_key=f"d{user.pk}")
        entry_register(tournament_id=event.pk, player=user, now=now)
    tournament_advance(tournament_id=event.pk, now=now)

    response = confirm(floor_client, "cancel_roll_forward", [event], reason="Crash")

    assert "Cancelled 1 event; its prize pool was rolled forward." in shown_messages(floor_client.get(response.url))
    # Equal stacks, two players, one place: each gets the fee and half the 2,000 pool.
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 5_000 - 1_100 + 100 + 1_000
    assert account_get(wallet_account_spec(other_player.pk, "EUR")).balance == 5_000
    call_command("wallet_audit")


# Postpone


def test_postponing_moves_the_start_and_keeps_the_entries(floor_client, staff, event, entrant):
    new_start = (event.scheduled_start + timedelta(days=1)).replace(second=0, microsecond=0)

    response = run_action(floor_client, "postpone", [event])
    assert response.status_code == 200
    assert 'name="new_start_0"' in response.text
    response = confirm(
        floor_client,
        "postpone",
        [event],
        new_start_0=new_start.date().isoformat(),
        new_start_1=new_start.strftime("%H:%M:%S"),
        reason="Clashes with the Sunday Million",
    )

    assert response.status_code == 302
    event.refresh_from_db()
    assert event.scheduled_start == new_start
    assert event.entries.get().status == EntryStatus.ACTIVE
    audit = AuditEntry.objects.get(action="tournaments.tournament.postponed")
    assert (audit.actor, audit.reason) == (staff, "Clashes with the Sunday Million")


def test_postponing_to_an_earlier_time_is_refused_with_the_reason(floor_client, event):
    earlier = event.scheduled_start - timedelta(minutes=30)

    response = confirm(
        floor_client,
        "postpone",
        [event],
        new_start_0=earlier.date().isoformat(),
        new_start_1=earlier.strftime("%H:%M:%S"),
        reason="Oops",
    )

    assert "Nightly 11: A postponement moves the start later than it is now." in shown_messages(
        floor_client.get(response.url)
    )


def test_postponing_several_events_at_once_is_refused(floor_client, event):
    other = TournamentFactory(blind_structure=BlindStructureFactory())

    response = run_action(floor_client, "postpone", [event, other])

    assert "Postpone one event at a time." in shown_messages(floor_client.get(response.url))


# Who may


def test_a_player_is_sent_to_the_login_and_nothing_changes(client, player, event, entrant):
    client.force_login(player)

    response = confirm(client, "cancel_rollback", [event], reason="Mine now")

    assert response.status_code == 302
    assert reverse("admin:login") in response.url
    event.refresh_from_db()
    assert event.status == Status.REGISTERING
    assert account_get(wallet_account_spec(entrant.pk, "EUR")).balance == 3_900


def test_staff_who_may_only_view_events_cannot_cancel_them(client, staff, event, entrant):
    client.force_login(grant(staff, "view_tournament"))

    page = client.get(reverse(CHANGELIST))
    response = confirm(client, "cancel_rollback", [event], reason="Curious")

    assert page.status_code == 200
    assert "cancel_rollback" not in page.text
    # With no action open to them the list ignores the post: no confirmation page.
    assert response.status_code == 200
    assert "Cancel and refund everything" not in response.text
    event.refresh_from_db()
    assert event.status == Status.REGISTERING
    assert not AuditEntry.objects.filter(action="tournaments.tournament.cancelled").exists()


def test_the_actions_are_on_the_list_for_support_staff(floor_client, event):
    page = floor_client.get(reverse(CHANGELIST))

    for action in ("cancel_rollback", "cancel_roll_forward", "postpone"):
        assert f'value="{action}"' in page.text


def test_support_staff_run_events_but_do_not_configure_them(floor_client, event):
    """The README's staff: pause, resume, cancel and postpone from the list; admins
    configure events."""
    page = floor_client.get(reverse(CHANGELIST))
    for action in (
        "pause_clock",
        "resume_clock",
        "roll_back_hands",
        "cancel_rollback",
        "cancel_roll_forward",
        "postpone",
    ):
        assert f'value="{action}"' in page.text
    assert 'value="clone_selected"' not in page.text

    change = reverse("admin:tournaments_tournament_change", args=[event.pk])
    assert floor_client.get(change).status_code == 200  # read only
    assert floor_client.post(change, {"name": "Renamed"}).status_code == 403
    assert floor_client.get(reverse("admin:tournaments_tournament_add")).status_code == 403
    assert floor_client.get(reverse("admin:tournaments_blindstructure_changelist")).status_code == 403
    event.refresh_from_db()
    assert event.name == "Nightly 11"


def test_the_demo_staff_login_is_support_staff(db):
    demo_load(now=timezone.now())

    staff = User.objects.get(username="staff")
    assert staff.is_staff
    assert not staff.is_superuser
    assert staff.has_perm("tournaments.run_tournament")
    assert staff.has_perm("tournaments.view_tournament")
    assert not staff.has_perm("tournaments.change_tournament")
