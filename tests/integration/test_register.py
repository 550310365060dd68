"""The national register of excluded players at log-in (issue 30): a person the
register holds is refused; a register that does not answer, answers an error or
something it cannot read refuses too, never lets him play. The production client is
tried against a local fake server, never the internet."""

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from responsible.models import LocalRegisterEntry
from responsible.register import Answer, HttpRegister, LocalRegister
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
TOKEN = "room-token"


def person(username: str, national_id: str):
    user = UserFactory(username=username, national_id=national_id)
    user.set_password(PASSWORD)
    user.save()
    return user


def log_in(username: str, **settings):
    with override_settings(**settings):
        return Client().post("/accounts/login/", {"username": username, "password": PASSWORD})


def test_the_local_register_refuses_a_person_it_holds_until_his_exclusion_ends():
    person("lars", "0101901234")
    LocalRegisterEntry.objects.create(national_id="0101901234", excluded_until=timezone.now() + timedelta(days=90))
    assert LocalRegister().check("0101901234") == Answer.EXCLUDED
    assert LocalRegister().check("0202902345") == Answer.ALLOWED

    refused = log_in("lars")
    assert refused.status_code == 400
    assert "You are registered in ROFUS" in refused.text
    assert AuditEntry.objects.filter(action="responsible.register.excluded").count() == 1

    LocalRegisterEntry.objects.update(excluded_until=timezone.now() - timedelta(seconds=1))
    assert log_in("lars").status_code == 302
    assert AuditEntry.objects.filter(action="responsible.register.allowed").count() == 1


class FakeRegister(BaseHTTPRequestHandler):
    """The register's service as the tests want it to answer, by national id."""

    asked: list[tuple[str | None, dict]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeRegister.asked.append((self.headers.get("Authorization"), body))
        national_id = str(body.get("national_id")).lower()
        if national_id == "slow":
            time.sleep(2)
        status, answer = {
            "excluded": (200, b'{"excluded": true}'),
            "error": (500, b'{"excluded": false}'),
            "garbage": (200, b"<html>maintenance</html>"),
            "odd": (200, b'{"excluded": "no"}'),
        }.get(national_id, (200, b'{"excluded": false}'))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_register():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeRegister)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeRegister.asked = []
    yield f"http://127.0.0.1:{server.server_address[1]}/check"
    server.shutdown()
    server.server_close()


def test_the_http_client_answers_only_what_the_register_clearly_says(fake_register):
    register = HttpRegister(fake_register, TOKEN, timeout=0.3)
    assert register.check("0101901234") == Answer.ALLOWED
    assert FakeRegister.asked[-1] == (f"Bearer {TOKEN}", {"national_id": "0101901234"})
    assert register.check("excluded") == Answer.EXCLUDED
    for unclear in ("slow", "error", "garbage", "odd"):
        assert register.check(unclear) == Answer.UNAVAILABLE, unclear
    nobody = HttpRegister("http://127.0.0.1:9/check", TOKEN, timeout=0.3)  # nothing listens there
    assert nobody.check("0101901234") == Answer.UNAVAILABLE


def test_log_in_asks_the_register_and_a_silent_register_lets_nobody_play(fake_register):
    person("mads", "0101901234")
    person("nora", "slow")
    register = {"ROFUS_URL": fake_register, "ROFUS_TOKEN": TOKEN, "ROFUS_TIMEOUT_SECONDS": 0.3}

    assert log_in("mads", **register).status_code == 302
    silent = log_in("nora", **register)
    assert silent.status_code == 400
    assert "We cannot reach ROFUS" in silent.text
    api = None
    with override_settings(**register):
        api = Client().post(
            "/api/v1/auth/token/", {"username": "nora", "password": PASSWORD}, content_type="application/json"
        )
    assert api.status_code == 403
    assert "We cannot reach ROFUS" in api.json()["message"]
    staff = UserFactory(username="staff", national_id="")  # no national id: not asked
    staff.set_password(PASSWORD)
    staff.save()
    assert log_in("staff", **register).status_code == 302


def sign_up(username: str, country: str, national_id: str, **settings):
    form = {
        "username": username,
        "screen_name": username.title(),
        "email": f"{username}@example.com",
        "password": "queen of spades 42",
        "password_confirm": "queen of spades 42",
        "country": country,
        "national_id": national_id,
        "preferred_currency": "DKK",
        "language": "en",
    }
    with override_settings(**settings):
        return Client().post("/accounts/signup/", form)


def test_sign_up_asks_the_register_and_refuses_an_excluded_person_or_a_silent_register(fake_register):
    LocalRegisterEntry.objects.create(national_id="0101901234", excluded_until=None)

    excluded = sign_up("oskar", "DK", "010190-1234")
    assert excluded.status_code == 400
    assert "We cannot open an account for this national identity number" in excluded.text
    no_cpr = sign_up("oskar", "DK", "")
    assert no_cpr.status_code == 400
    assert "Enter your CPR number" in no_cpr.text
    not_a_date = sign_up("oskar", "DK", "3202901234")
    assert "Enter your CPR number" in not_a_date.text
    silent = sign_up("oskar", "SE", "slow", ROFUS_URL=fake_register, ROFUS_TOKEN=TOKEN, ROFUS_TIMEOUT_SECONDS=0.3)
    assert silent.status_code == 400
    assert "We cannot reach ROFUS" in silent.text
    assert not User.objects.filter(username="oskar").exists()

    assert sign_up("oskar", "DK", "0202 90 5678").status_code == 302
    assert User.objects.get(username="oskar").national_id == "0202905678"
    taken = sign_up("olga", "DK", "0202905678")
    assert taken.status_code == 400
    assert "An account with that national identity number already exists" in taken.text
    assert sign_up("pia", "SE", "", ROFUS_URL=fake_register).status_code == 302  # from abroad, none given: not asked
