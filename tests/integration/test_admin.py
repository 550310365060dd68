"""The admin where events are configured (rule 3): blind structures, tournaments,
cloning, and the read-only ledger and audit log."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.db import models
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.models import BlindLevel, BlindStructure, Entry, Tournament
from wallet.models import Currency, TransferReason
from wallet.services import account_get, external_account_spec, transfer_create, wallet_account_spec

pytestmark = pytest.mark.django_db

# Kept by the clock and the registration services, never posted by the admin form.
NOT_IN_FORM = {"id", "status", "entries_count", "prize_contributions"}


@pytest.fixture
def admin_client(client, admin):
    client.force_login(admin)
    return client


@pytest.fixture
def structure():
    return BlindStructureFactory(name="Regular 20")


def on_the_minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def tournament_form(tournament: Tournament, **overrides) -> dict:
    """What the admin's change form posts for `tournament`, with `overrides`."""
    values = {**model_to_dict(tournament), **overrides}
    data = {}
    for name, value in values.items():
        if name in NOT_IN_FORM or value is False:
            continue
        if isinstance(Tournament._meta.get_field(name), models.DateTimeField):
            local = timezone.localtime(value) if value else None
            data[f"{name}_0"] = local.date().isoformat() if local else ""
            data[f"{name}_1"] = local.strftime("%H:%M:%S") if local else ""
        elif value is None:
            data[name] = ""
        elif value is True:
            data[name] = "on"
        else:
            data[name] = value
    return data


def levels_form(levels: list[tuple[int, int, int, int, int]]) -> dict:
    """The blind level inline's POST data: (position, small, big, ante, minutes) rows."""
    data = {
        "levels-TOTAL_FORMS": str(len(levels)),
        "levels-INITIAL_FORMS": "0",
        "levels-MIN_NUM_FORMS": "0",
        "levels-MAX_NUM_FORMS": "1000",
    }
    for index, (position, small, big, ante, minutes) in enumerate(levels):
        data |= {
            f"levels-{index}-position": position,
            f"levels-{index}-small_blind": small,
            f"levels-{index}-big_blind": big,
            f"levels-{index}-ante": ante,
            f"levels-{index}-ante_kind": "each",
            f"levels-{index}-minutes": minutes,
        }
    return data


def add_structure(client, levels):
    return client.post(
        reverse("admin:tournaments_blindstructure_add"), {"name": "Turbo 10", "description": "", **levels_form(levels)}
    )


# Blind structures


def test_valid_blind_structure_is_saved_with_its_levels_and_audited(admin_client, admin):
    response = add_structure(admin_client, [(1, 10, 20, 0, 10), (2, 15, 30, 0, 10), (3, 25, 50, 5, 10)])

    assert response.status_code == 302
    structure = BlindStructure.objects.get(name="Turbo 10")
    assert [level.as_rule().big_blind for level in structure.levels.all()] == [20, 30, 50]
    entry = AuditEntry.objects.get(action="tournaments.blind_structure.created")
    assert entry.actor == admin
    assert entry.subject_id == str(structure.pk)
    assert entry.data["levels"][2] == [3, 25, 50, 5, "each", 10, 0]


def test_blinds_that_do_not_increase_are_refused_and_nothing_is_saved(admin_client):
    response = add_structure(admin_client, [(1, 10, 20, 0, 10), (2, 10, 20, 0, 10)])

    assert response.status_code == 200
    assert "Level 2: blinds must increase from one level to the next." in response.text
    assert not BlindStructure.objects.exists()
    assert not BlindLevel.objects.exists()
    assert not AuditEntry.objects.exists()


def test_big_blind_not_above_small_blind_is_shown_on_its_row(admin_client):
    response = add_structure(admin_client, [(1, 20, 20, 0, 10)])

    assert response.status_code == 200
    assert "The big blind must be larger than the small blind." in response.text
    # The row's own message replaces the database constraint's bare name.
    assert "big_blind_above_small" not in response.text
    assert not BlindStructure.objects.exists()


def test_a_blind_structure_without_levels_is_refused(admin_client):
    response = add_structure(admin_client, [])

    assert response.status_code == 200
    assert "A blind structure needs at least one level." in response.text
    assert not BlindStructure.objects.exists()


def test_level_numbers_used_twice_are_refused(admin_client):
    response = add_structure(admin_client, [(1, 10, 20, 0, 10), (1, 15, 30, 0, 10)])

    assert response.status_code == 200
    assert "Number the levels 1 to 2, each number once." in response.text
    assert not BlindStructure.objects.exists()


# Tournaments


def test_admin_creates_an_event_and_the_creation_is_audited(admin_client, admin, structure):
    start = on_the_minute(timezone.now() + timedelta(days=2))
    draft = TournamentFactory.build(name="Sunday Warm-up", blind_structure=structure, scheduled_start=start)

    response = admin_client.post(reverse("admin:tournaments_tournament_add"), tournament_form(draft))

    assert response.status_code == 302, response.context["adminform"].form.errors
    tournament = Tournament.objects.get(name="Sunday Warm-up")
    assert tournament.scheduled_start == start
    assert tournament.status == "announced"
    entry = AuditEntry.objects.get(action="tournaments.tournament.created")
    assert (entry.actor, entry.subject_id) == (admin, str(tournament.pk))
    assert "buy_in" in entry.data["fields"]


def test_admin_change_is_audited_with_the_changed_fields(admin_client, admin, structure):
    tournament = TournamentFactory(
        blind_structure=structure, scheduled_start=on_the_minute(timezone.now() + timedelta(days=1))
    )

    response = admin_client.post(
        reverse("admin:tournaments_tournament_change", args=[tournament.pk]), tournament_form(tournament, buy_in=2500)
    )

    assert response.status_code == 302, response.context["adminform"].form.errors
    tournament.refresh_from_db()
    assert tournament.buy_in == 2500
    entry = AuditEntry.objects.get(action="tournaments.tournament.changed")
    assert (entry.actor, entry.subject_id, entry.data) == (admin, str(tournament.pk), {"fields": ["buy_in"]})


def test_an_invalid_event_shows_the_problem_and_is_not_saved(admin_client, structure):
    start = on_the_minute(timezone.now() + timedelta(days=2))
    draft = TournamentFactory.build(
        name="Free for all", blind_structure=structure, scheduled_start=start, entry_kind="freeroll"
    )

    response = admin_client.post(reverse("admin:tournaments_tournament_add"), tournament_form(draft))

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "buy_in": ["A freeroll has no buy-in."],
        "fee": ["A freeroll has no fee."],
    }
    assert not Tournament.objects.exists()
    assert not AuditEntry.objects.exists()


def test_money_fields_say_they_are_in_minor_units(admin_client):
    response = admin_client.get(reverse("admin:tournaments_tournament_add"))

    assert response.status_code == 200
    form = response.context["adminform"].form
    for name in ("buy_in", "fee", "rebuy_price", "addon_price", "guarantee", "bounty_amount"):
        assert "in cents (minor units)" in str(form.fields[name].help_text).lower()


def test_entry_terms_are_read_only_once_players_have_entered(admin_client, structure, player):
    start = on_the_minute(timezone.now() + timedelta(days=1))
    tournament = TournamentFactory(blind_structure=structure, scheduled_start=start, entries_count=1)
    Entry.objects.create(tournament=tournament, player=player)
    url = reverse("admin:tournaments_tournament_change", args=[tournament.pk])

    page = admin_client.get(url)
    response = admin_client.post(url, {**tournament_form(tournament), "buy_in": 1, "name": "Renamed"})

    assert "buy_in" not in page.context["adminform"].form.fields
    assert "10.00 + 1.00 EUR" in page.text
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.name, tournament.buy_in) == ("Renamed", 1000)


def test_a_rule_broken_by_a_read_only_term_is_shown_above_the_form(admin_client, structure, player):
    # Stored before the rule existed: a bounty amount without a bounty, and entrants paid it.
    start = on_the_minute(timezone.now() + timedelta(days=1))
    tournament = TournamentFactory(blind_structure=structure, scheduled_start=start, bounty_amount=500, entries_count=1)
    Entry.objects.create(tournament=tournament, player=player)

    response = admin_client.post(
        reverse("admin:tournaments_tournament_change", args=[tournament.pk]), tournament_form(tournament)
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [
        "Bounty amount: Without a bounty the bounty amount must be 0; or choose the bounty type."
    ]


def test_changelist_searches_and_filters_events(admin_client, structure):
    TournamentFactory(name="Sunday Million", blind_structure=structure, game="holdem")
    TournamentFactory(name="Omaha Sunday", blind_structure=structure, game="omaha")
    TournamentFactory(name="Daily Turbo", blind_structure=structure, game="omaha")
    url = reverse("admin:tournaments_tournament_changelist")

    searched = admin_client.get(url, {"q": "sunday"}).context["cl"].result_list
    filtered = admin_client.get(url, {"q": "sunday", "game__exact": "omaha"}).context["cl"].result_list

    assert sorted(t.name for t in searched) == ["Omaha Sunday", "Sunday Million"]
    assert [t.name for t in filtered] == ["Omaha Sunday"]


def test_changelist_shows_buy_in_and_entrants(admin_client, structure):
    TournamentFactory(name="Nightly", blind_structure=structure, buy_in=1000, fee=100, entries_count=12)

    response = admin_client.get(reverse("admin:tournaments_tournament_changelist"))

    assert "10.00 + 1.00 EUR" in response.text
    assert "12 / 1000" in response.text


# Cloning


def clone_url(tournament) -> str:
    return reverse("admin:tournaments_tournament_clone", args=[tournament.pk])


@pytest.fixture
def weekly(structure, player):
    start = on_the_minute(timezone.now() + timedelta(days=1))
    tournament = TournamentFactory(
        name="Weekly Bounty",
        blind_structure=structure,
        scheduled_start=start,
        registration_opens_at=start - timedelta(hours=6),
        entries_count=1,
        prize_contributions=1000,
    )
    Entry.objects.create(tournament=tournament, player=player)
    return tournament


def test_change_page_has_a_clone_button_posting_to_the_clone_url(admin_client, weekly):
    response = admin_client.get(reverse("admin:tournaments_tournament_change", args=[weekly.pk]))

    assert f'formaction="{clone_url(weekly)}" formmethod="post"' in response.text


def test_clone_button_copies_the_event_one_week_later_without_entries(admin_client, admin, weekly):
    response = admin_client.post(clone_url(weekly), follow=True)

    clone = Tournament.objects.exclude(pk=weekly.pk).get()
    assert response.redirect_chain == [(reverse("admin:tournaments_tournament_change", args=[clone.pk]), 302)]
    assert f"Cloned “Weekly Bounty”: the copy starts {clone.scheduled_start:%Y-%m-%d %H:%M} UTC." in response.text
    assert clone.name == "Weekly Bounty"
    assert clone.scheduled_start == weekly.scheduled_start + timedelta(weeks=1)
    assert clone.registration_opens_at == weekly.registration_opens_at + timedelta(weeks=1)
    assert (clone.status, clone.entries_count, clone.prize_contributions) == ("announced", 0, 0)
    assert not clone.entries.exists()
    assert weekly.entries.count() == 1
    audit = AuditEntry.objects.get(action="tournaments.tournament.cloned")
    assert (audit.actor, audit.subject_id, audit.data) == (admin, str(clone.pk), {"from": weekly.pk})


def test_a_clone_of_a_past_event_starts_at_the_next_weekly_repeat(admin_client, structure):
    past = TournamentFactory(blind_structure=structure, scheduled_start=timezone.now() - timedelta(days=10))

    admin_client.post(clone_url(past))

    clone = Tournament.objects.exclude(pk=past.pk).get()
    assert clone.scheduled_start == past.scheduled_start + timedelta(weeks=2)


def test_a_clone_keeps_the_local_start_time_across_daylight_saving(admin_client, structure):
    # Copenhagen moves to summer time on 25 March 2040: 19:00 local is 18:00 UTC
    # before and 17:00 UTC after.
    before = TournamentFactory(blind_structure=structure, scheduled_start=datetime(2040, 3, 19, 18, 0, tzinfo=UTC))
    admin_client.cookies["tz"] = "Europe/Copenhagen"

    admin_client.post(clone_url(before))

    clone = Tournament.objects.exclude(pk=before.pk).get()
    assert clone.scheduled_start == datetime(2040, 3, 26, 17, 0, tzinfo=UTC)


def test_clone_action_copies_the_selected_events_one_week_later(admin_client, structure):
    first, second, _other = TournamentFactory.create_batch(3, blind_structure=structure)

    response = admin_client.post(
        reverse("admin:tournaments_tournament_changelist"),
        {"action": "clone_selected", "_selected_action": [first.pk, second.pk]},
        follow=True,
    )

    assert "Cloned 2 events." in response.text
    clones = Tournament.objects.exclude(pk__in=[first.pk, second.pk, _other.pk]).order_by("scheduled_start")
    assert [c.scheduled_start for c in clones] == [
        first.scheduled_start + timedelta(weeks=1),
        second.scheduled_start + timedelta(weeks=1),
    ]
    assert AuditEntry.objects.filter(action="tournaments.tournament.cloned").count() == 2


def test_clone_url_refuses_get(admin_client, weekly):
    response = admin_client.get(clone_url(weekly))

    assert response.status_code == 405
    assert Tournament.objects.count() == 1


def test_clone_url_sends_a_player_to_the_admin_login(client, player, weekly):
    client.force_login(player)

    response = client.post(clone_url(weekly))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert Tournament.objects.count() == 1


def test_clone_url_is_forbidden_to_staff_without_permission(client, staff, weekly):
    client.force_login(staff)

    response = client.post(clone_url(weekly))

    assert response.status_code == 403
    assert Tournament.objects.count() == 1


def test_staff_allowed_to_add_and_change_events_can_clone(client, staff, weekly):
    staff.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="tournaments", codename__in=["add_tournament", "change_tournament"]
        )
    )
    client.force_login(staff)

    response = client.post(clone_url(weekly))

    assert response.status_code == 302
    assert Tournament.objects.count() == 2


def test_clone_url_needs_the_csrf_token(admin, weekly):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)

    response = client.post(clone_url(weekly))

    assert response.status_code == 403
    assert Tournament.objects.count() == 1


# The ledger and the audit log are append-only


@pytest.fixture
def deposit(player):
    cash = account_get(wallet_account_spec(player.pk, Currency.EUR))
    return transfer_create(
        source=account_get(external_account_spec(Currency.EUR)),
        destination=cash,
        amount=5000,
        reason=TransferReason.DEPOSIT,
        idempotency_key="deposit:test",
    )


@pytest.mark.parametrize("model", ["wallet_account", "wallet_transfer", "audit_auditentry"])
def test_ledger_and_audit_log_can_be_read_but_not_changed(admin_client, deposit, model):
    obj = {"wallet_account": deposit.destination, "wallet_transfer": deposit}.get(model) or AuditEntry.objects.first()
    obj.refresh_from_db()
    before = model_to_dict(obj)

    listing = admin_client.get(reverse(f"admin:{model}_changelist"))
    detail = admin_client.get(reverse(f"admin:{model}_change", args=[obj.pk]))
    add = admin_client.get(reverse(f"admin:{model}_add"))
    change = admin_client.post(reverse(f"admin:{model}_change", args=[obj.pk]), {"memo": "edited", "balance": 1})
    delete = admin_client.post(reverse(f"admin:{model}_delete", args=[obj.pk]), {"post": "yes"})

    assert (listing.status_code, detail.status_code) == (200, 200)
    assert (add.status_code, change.status_code, delete.status_code) == (403, 403, 403)
    obj.refresh_from_db()
    assert model_to_dict(obj) == before


def test_transfers_are_searchable_by_player_and_show_the_amount(admin_client, deposit):
    response = admin_client.get(reverse("admin:wallet_transfer_changelist"), {"q": "alice"})

    assert list(response.context["cl"].result_list) == [deposit]
    assert "50.00 EUR" in response.text


def test_audit_entries_link_to_their_subject(admin_client, weekly):
    admin_client.post(clone_url(weekly))
    clone = Tournament.objects.exclude(pk=weekly.pk).get()

    response = admin_client.get(
        reverse("admin:audit_auditentry_changelist"), {"action__exact": "tournaments.tournament.cloned"}
    )

    assert reverse("admin:tournaments_tournament_change", args=[clone.pk]) in response.text
