"""Breaks and self-exclusion (issue 30; BEK 1274/2019 section 23): while one runs the
player cannot log in (page or API), register, rebuy or deposit; his registrations in
events not started come back refunded in the form paid, his seat plays as an absent
player's (rule 18.4); the page names where to get help; the books stay clean."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from responsible.exclusions import exclusion_start
from responsible.models import Exclusion
from responsible.services import DepositRefused
from tests.factories import TournamentFactory, UserFactory
from tests.tables import started
from tournaments.models import Entry, EntryStatus
from tournaments.services.entries import entry_register
from tournaments.services.refusals import TournamentError
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


def test_a_permanent_exclusion_closes_the_account_and_a_too_short_one_is_refused():
    player = funded("jon")
    with pytest.raises(DepositRefused, match="from 30 to"):
        exclusion_start(player=player, kind="temporary", days=7, now=timezone.now())
    exclusion_start(player=player, kind="permanent", now=timezone.now())
    page = Client().post("/accounts/login/", {"username": "jon", "password": PASSWORD})
    assert "this account is closed" in page.text


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
