"""Breaks and self-exclusion (issue 30; BEK 1274/2019 section 23): while one runs the
player cannot log in (page or API), register, rebuy or deposit; his registrations in
events not started come back refunded in the form paid, his seat plays as an absent
player's (rule 18.4); the page names where to get help; the books stay clean."""

import threading
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from responsible.exclusions import exclusion_start
from responsible.models import Exclusion, PlayerSession
from responsible.services import ResponsibleRefusal
from tests.factories import TournamentFactory, UserFactory
from tests.tables import started
from tournaments.models import Entry, EntryStatus
from tournaments.services.entries import entry_register
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import entry_sit_out
from wallet.services import WalletError, account_get, deposit_create, wallet_account_spec

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def funded(username: str):
    player = UserFactory(username=username)
    player.set_password(PASSWORD)
    player.save()
    deposit_create(user=player, currency="EUR", amount=10_000, idempotency_key=f"fund:{username}")
    return player


def test_a_break_refuses_log_in_registration_and_deposit_and_refunds_his_registrations():
    player = funded("ida")
    event = TournamentFactory(buy_in=1000, fee=100)
    entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 8_900

    exclusion_start(player=player, kind="break", now=timezone.now())

    entry = Entry.objects.get(tournament=event, player=player)
    assert entry.status == EntryStatus.UNREGISTERED  # refunded in the form paid
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 10_000
    with pytest.raises(TournamentError) as refused:
        entry_register(tournament_id=TournamentFactory(buy_in=100).pk, player=player, now=timezone.now())
    assert refused.value.code == "self_excluded"
    assert "break from play until" in refused.value.message
    with pytest.raises(WalletError, match="break from play"):
        deposit_create(user=player, currency="EUR", amount=100, idempotency_key="after-break")
    page = Client().post("/accounts/login/", {"username": "ida", "password": PASSWORD})
    assert page.status_code == 400
    assert "You have chosen a break from play until" in page.text
    api = Client().post(
        "/api/v1/auth/token/", {"username": "ida", "password": PASSWORD}, content_type="application/json"
    )
    assert api.status_code == 403
    assert "break from play" in api.json()["message"]
    assert AuditEntry.objects.filter(action="responsible.exclusion.break", actor=player).exists()
    call_command("wallet_audit", stdout=StringIO())

    Exclusion.objects.filter(player=player).update(ends_at=timezone.now() - timedelta(seconds=1))  # 24 hours on
    assert Client().post("/accounts/login/", {"username": "ida", "password": PASSWORD}).status_code == 302


def test_a_seated_player_who_excludes_himself_is_sat_out_and_keeps_what_he_wins():
    _tournament, entries = started([1000, 1000, 1000])
    player = entries[0].player
    exclusion_start(player=player, kind="temporary", days=30, now=timezone.now())
    seated = Entry.objects.get(pk=entries[0].pk)
    assert seated.status == EntryStatus.ACTIVE  # his stack stays in play, as an absent player's
    assert seated.sitting_out
    with pytest.raises(TournamentError) as refused:  # he cannot sit back in
        entry_sit_out(tournament_id=seated.tournament_id, player_id=player.pk, sitting_out=False, now=timezone.now())
    assert refused.value.code == "self_excluded"
    assert Entry.objects.get(pk=entries[0].pk).sitting_out


def test_a_permanent_exclusion_closes_the_account_and_a_too_short_one_is_refused():
    player = funded("jon")
    with pytest.raises(ResponsibleRefusal, match="from 30 to"):
        exclusion_start(player=player, kind="temporary", days=7, now=timezone.now())
    exclusion_start(player=player, kind="permanent", now=timezone.now())
    page = Client().post("/accounts/login/", {"username": "jon", "password": PASSWORD})
    assert "this account is closed" in page.text
    api = Client().post(
        "/api/v1/auth/token/", {"username": "jon", "password": PASSWORD}, content_type="application/json"
    )
    assert api.status_code == 403
    assert "this account is closed" in api.json()["message"]


def test_the_player_takes_a_break_on_his_page_is_logged_out_and_told_where_to_get_help():
    player = funded("kim")
    client = Client()
    client.force_login(player)

    refused = client.post("/responsible-gaming/limits/", {"exclude": "1", "kind": "temporary", "sure": "on"})
    assert refused.status_code == 400
    assert "Choose how many days" in refused.text
    assert client.post("/responsible-gaming/limits/", {"exclude": "1", "kind": "break"}).status_code == 400  # not sure
    assert not Exclusion.objects.exists()

    page = client.post("/responsible-gaming/limits/", {"exclude": "1", "kind": "break", "sure": "on"})

    assert page.status_code == 200
    assert "StopSpillet" in page.text
    assert "Center for Ludomani" in page.text
    assert client.get("/wallet/").status_code == 302  # logged out
    assert Exclusion.objects.get(player=player).kind == "break"


def test_an_exclusion_ends_every_session_and_the_api_token_of_the_player_at_once():
    player = funded("lea")
    phone, desktop = Client(), Client()
    for browser in (phone, desktop):
        assert browser.post("/accounts/login/", {"username": "lea", "password": PASSWORD}).status_code == 302
    token = (
        Client()
        .post("/api/v1/auth/token/", {"username": "lea", "password": PASSWORD}, content_type="application/json")
        .json()["token"]
    )
    assert desktop.get("/wallet/").status_code == 200

    assert phone.post("/responsible-gaming/limits/", {"exclude": "1", "kind": "break", "sure": "on"}).status_code == 200

    assert desktop.get("/wallet/").status_code == 302  # logged out there too
    assert Client().get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 401
    assert not PlayerSession.objects.filter(player=player).exists()


def test_a_permanent_exclusion_closes_the_account_and_a_new_one_only_after_a_year():
    player = funded("max")
    User.objects.filter(pk=player.pk).update(national_id="0303905678")
    player.refresh_from_db()

    exclusion_start(player=player, kind="permanent", now=timezone.now())

    player.refresh_from_db()
    assert (player.national_id, Exclusion.objects.get(player=player).national_id) == ("", "0303905678")
    form = {
        "username": "max2",
        "screen_name": "Max Again",
        "email": "max2@example.com",
        "password": "queen of spades 42",
        "password_confirm": "queen of spades 42",
        "country": "DK",
        "national_id": "030390-5678",
        "preferred_currency": "EUR",
        "language": "en",
    }
    refused = Client().post("/accounts/signup/", form)
    assert refused.status_code == 400
    assert "We cannot open an account for this national identity number" in refused.text
    assert not User.objects.filter(username="max2").exists()

    Exclusion.objects.filter(player=player).update(starts_at=timezone.now() - timedelta(days=366))
    assert Client().post("/accounts/signup/", form).status_code == 302
    assert User.objects.get(username="max2").national_id == "0303905678"
    page = Client().post("/accounts/login/", {"username": "max", "password": PASSWORD})
    assert "this account is closed" in page.text  # the old one stays closed


def test_staff_lift_a_lock_set_by_mistake_with_a_reason_and_nobody_else_may():
    player = funded("nils")
    User.objects.filter(pk=player.pk).update(national_id="0404906789")
    exclusion = exclusion_start(player=player, kind="permanent", now=timezone.now())
    lift = f"/support/players/{player.pk}/exclusions/{exclusion.pk}/lift/"
    staff = Client()
    staff.force_login(UserFactory(username="sue", is_staff=True))
    nosy = Client()
    nosy.force_login(UserFactory(username="nosy"))

    assert Client().post(lift, {"reason": "mistake"}).status_code == 302  # to the log-in page
    assert nosy.post(lift, {"reason": "mistake"}).status_code == 403
    blank = staff.post(lift, {"reason": "  "}, follow=True)
    assert "Say why the lock is lifted" in blank.text
    assert Exclusion.objects.get(pk=exclusion.pk).lifted_at is None
    page = staff.get(f"/support/players/{player.pk}/").text
    assert f'id="exclusion-{exclusion.pk}"' in page
    assert "(running)" in page

    lifted = staff.post(lift, {"reason": "He chose it for a friend's account by mistake"}, follow=True)

    assert "The lock is lifted" in lifted.text
    assert "He chose it for a friend" in lifted.text
    exclusion.refresh_from_db()
    assert exclusion.lifted_at is not None
    assert User.objects.get(pk=player.pk).national_id == "0404906789"  # the account is open again
    entry = AuditEntry.objects.get(action="responsible.exclusion.lifted")
    assert (entry.actor.username, entry.reason) == ("sue", "He chose it for a friend's account by mistake")
    assert Client().post("/accounts/login/", {"username": "nils", "password": PASSWORD}).status_code == 302
    again = staff.post(lift, {"reason": "twice"}, follow=True)
    assert "This break or exclusion is over already" in again.text


def test_a_session_that_outlived_the_break_is_still_refused_registration_through_the_api_and_pages():
    player = funded("olav")
    event = TournamentFactory(buy_in=1000, fee=100)
    exclusion_start(player=player, kind="break", now=timezone.now())
    client = Client()
    client.force_login(player)  # as if a session had slipped past the log-out

    api = client.post(f"/api/v1/tournaments/{event.pk}/registration/", {}, content_type="application/json")

    assert api.status_code in (400, 403, 409)
    assert api.json()["code"] == "self_excluded"
    assert "break from play until" in api.json()["message"]
    page = client.post(f"/tournaments/{event.pk}/register/", follow=True)  # back to the event, told why
    assert "break from play until" in page.text
    assert not Entry.objects.filter(player=player).exists()
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 10_000


def test_a_session_whose_password_was_changed_still_ends_with_the_break():
    player = funded("pelle")
    laptop = Client()
    assert laptop.post("/accounts/login/", {"username": "pelle", "password": PASSWORD}).status_code == 302
    new_password = "a brand new passphrase 7"
    changed = laptop.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": new_password, "new_password2": new_password},
    )
    assert changed.status_code == 302
    assert laptop.get("/wallet/").status_code == 200  # still logged in, under the session's new key

    exclusion_start(player=player, kind="break", now=timezone.now())  # from his phone, say

    assert laptop.get("/wallet/").status_code == 302


def test_a_registration_whose_check_passed_before_a_break_began_is_taken_back_once_it_commits(
    django_capture_on_commit_callbacks,
):
    player = funded("rune")
    event = TournamentFactory(buy_in=1000, fee=100)

    with django_capture_on_commit_callbacks(execute=True):
        entry_register(tournament_id=event.pk, player=player, now=timezone.now())  # its check passed
        # The break began meanwhile, and looked for his entries before this one committed.
        now = timezone.now()
        Exclusion.objects.create(player=player, kind="break", starts_at=now, ends_at=now + timedelta(hours=24))

    assert Entry.objects.get(tournament=event, player=player).status == EntryStatus.UNREGISTERED
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 10_000
    call_command("wallet_audit", stdout=StringIO())


@pytest.mark.django_db(transaction=True)
def test_a_deposit_made_while_a_break_is_beginning_waits_for_it_and_is_refused():
    player = funded("sune")
    began, release = threading.Event(), threading.Event()
    outcome: dict[str, str] = {}

    def take_break() -> None:
        try:
            with transaction.atomic():  # the break's transaction, held open until released
                exclusion_start(player=player, kind="break", now=timezone.now())
                began.set()
                release.wait(timeout=60)
        finally:
            connection.close()

    def deposit() -> None:
        try:
            deposit_create(user=player, currency="EUR", amount=500, idempotency_key="during-the-break")
            outcome["deposit"] = "landed"
        except WalletError as refused:
            outcome["deposit"] = str(refused)
        finally:
            connection.close()

    breaking = threading.Thread(target=take_break)
    breaking.start()
    assert began.wait(timeout=60)
    depositing = threading.Thread(target=deposit)
    depositing.start()
    # The deposit waits on PostgreSQL for the break's transaction (without the lock it would land now).
    deadline = time.monotonic() + 60  # a failure's deadline only
    while not waiting_on_a_lock():
        assert depositing.is_alive(), f"the deposit did not wait for the break: {outcome}"
        assert time.monotonic() < deadline, "the deposit never waited for the break"
        time.sleep(0.05)
    release.set()
    breaking.join(timeout=60)
    depositing.join(timeout=60)

    assert "break" in outcome["deposit"]
    assert account_get(wallet_account_spec(player.pk, "EUR")).balance == 10_000
    call_command("wallet_audit", stdout=StringIO())


def waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0
