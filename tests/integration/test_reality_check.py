"""The reality check (issue 30): a reminder the player chooses, every N minutes of a
session, of how long he has been logged in and his net result since."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from responsible.reality import reality_check_set
from responsible.signals import SIGNED_IN_AT
from tests.factories import TournamentFactory, UserFactory
from tournaments.services.entries import entry_register
from wallet.services import deposit_create

pytestmark = pytest.mark.django_db

REALITY_CHECK = "/responsible-gaming/reality-check/"


def delay(html: str) -> int:
    return int(re.search(r'hx-trigger="load delay:(\d+)s"', html).group(1))


def logged_in_minutes_ago(client: Client, minutes: int) -> None:
    session = client.session
    session[SIGNED_IN_AT] = (timezone.now() - timedelta(minutes=minutes)).isoformat()
    session.save()


def test_the_player_chooses_a_reminder_and_it_tells_his_time_and_net_result_when_due():
    player = UserFactory(username="ole")
    deposit_create(user=player, currency="EUR", amount=10_000, idempotency_key="fund:ole")
    client = Client()
    client.force_login(player)
    assert client.get(REALITY_CHECK).status_code == 204  # none chosen
    assert 'id="reality-check"' not in client.get("/wallet/").text

    bad = client.post("/responsible-gaming/limits/", {"reality": "1", "every": "7"})
    assert bad.status_code == 400
    assert "Select a valid choice" in bad.text
    chosen = client.post("/responsible-gaming/limits/", {"reality": "1", "every": "15"}, follow=True)
    assert "You will be reminded every 15 minutes of play" in chosen.text
    assert AuditEntry.objects.get(action="responsible.reality_check.changed").data == {"every": 15}
    assert 14 * 60 < delay(client.get("/wallet/").text) <= 15 * 60  # the page asks for it when due

    entry_register(tournament_id=TournamentFactory(buy_in=1000, fee=100).pk, player=player, now=timezone.now())
    logged_in_minutes_ago(client, 16)
    shown = client.get(REALITY_CHECK)

    assert shown.status_code == 200
    assert "<dialog" in shown.text
    assert "You have been logged in for 16 min" in shown.text
    assert "\N{MINUS SIGN}€11" in shown.text  # the buy-in and fee; the deposit before is not play
    following = client.get(REALITY_CHECK)  # dismissed: the next at 30 minutes
    assert "<dialog" not in following.text
    assert 13 * 60 < delay(following.text) <= 14 * 60

    assert client.post("/responsible-gaming/limits/", {"reality": "1", "every": ""}).status_code == 302
    assert client.get(REALITY_CHECK).status_code == 204
    assert Client().get(REALITY_CHECK).status_code == 204  # a visitor


def test_a_new_log_in_counts_its_reminders_from_itself():
    player = UserFactory(username="per")
    player.set_password("correct horse battery")
    player.save()
    reality_check_set(player=player, minutes=15)
    client = Client()
    client.post("/accounts/login/", {"username": "per", "password": "correct horse battery"})
    logged_in_minutes_ago(client, 100)
    assert "<dialog" in client.get(REALITY_CHECK).text  # the sixth, shown once

    client.post("/accounts/logout/")
    client.post("/accounts/login/", {"username": "per", "password": "correct horse battery"})

    assert 14 * 60 < delay(client.get("/wallet/").text) <= 15 * 60  # 15 minutes on, not 105


def test_a_page_made_when_the_reminder_is_due_shows_it_open_once():
    player = UserFactory(username="kaj")
    reality_check_set(player=player, minutes=15)
    client = Client()
    client.force_login(player)
    logged_in_minutes_ago(client, 31)  # the second is due: one is shown, not two

    page = client.get("/wallet/").text
    dialog = re.search(r"<dialog [^>]*>", page).group(0)
    assert " open" in dialog  # seen without a script; the script makes it modal
    assert "You have been logged in for 31 min" in page
    assert 'name="csrfmiddlewaretoken"' in page.split("<dialog", 1)[1]  # its Log out button posts
    following = client.get("/wallet/").text  # shown: the next at 45 minutes
    assert "<dialog" not in following
    assert 13 * 60 < delay(following) <= 14 * 60
