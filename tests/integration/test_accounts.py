"""Accounts: sign up, log in and out, change password; rate limits; one account per
person (rule 21) as far as unique names and addresses go."""

import itertools
import threading
from datetime import timedelta
from types import SimpleNamespace

import pytest
from axes.models import AccessAttempt
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models.functions import Now
from django.test import Client, RequestFactory

from accounts import rate_limit, services
from accounts.models import User
from accounts.rate_limit import SIGN_UP_LIMIT, client_address
from accounts.services import user_sign_up
from audit.models import AuditEntry
from tests.factories import UserFactory

# Requested by name (not the django_db mark) so that conftest clears the cache, and the
# rate limits' counts with it, around every test.
pytestmark = pytest.mark.usefixtures("db")

SIGNUP = "/accounts/signup/"
LOGIN = "/accounts/login/"
LOGOUT = "/accounts/logout/"
PASSWORD = "/accounts/password/"
GOOD_PASSWORD = "queen of spades 42"
PLAYER_PASSWORD = "correct horse battery"  # tests/factories.py


CPR_NUMBERS = itertools.count(1)


def cpr() -> str:
    """A CPR number no other account in the test has (born 1 January 1990)."""
    return f"010190{next(CPR_NUMBERS):04d}"


def sign_up_form(**overrides) -> dict:
    return {
        "username": "carla",
        "screen_name": "Carla",
        "email": "carla@example.com",
        "password": GOOD_PASSWORD,
        "password_confirm": GOOD_PASSWORD,
        "country": "DK",
        "national_id": cpr(),
        "preferred_currency": "DKK",
        "language": "en",
        **overrides,
    }


def who(client) -> str | None:
    """The name in the page header, or None for a visitor."""
    body = client.get("/").content.decode()
    start = body.find('<span class="who">')
    if start < 0:
        return None
    return body[start + len('<span class="who">') : body.index("</span>", start)]


@pytest.fixture
def clock(monkeypatch):
    """The rate limiter's clock, at a window's start, moved by hand."""
    now = SimpleNamespace(value=1_800_000_000.0)
    monkeypatch.setattr(rate_limit, "time", SimpleNamespace(time=lambda: now.value))
    return now


# Sign up


def test_sign_up_opens_the_account_logs_in_and_shows_the_screen_name(client):
    response = client.post(SIGNUP, sign_up_form())

    assert response.status_code == 302
    assert response["Location"] == "/"
    user = User.objects.get(username="carla")
    assert (user.screen_name, user.email, user.country, user.preferred_currency, user.language) == (
        "Carla",
        "carla@example.com",
        "DK",
        "DKK",
        "en",
    )
    assert user.check_password(GOOD_PASSWORD)
    assert not user.is_staff
    assert not user.is_superuser
    assert who(client) == "Carla"
    entry = AuditEntry.objects.get(action="accounts.user.signed_up")
    assert (entry.subject_id, entry.actor) == (str(user.pk), user)


def test_sign_up_in_danish_continues_in_danish(client):
    response = client.post(SIGNUP, sign_up_form(language="da"))

    assert response["Location"] == "/da/"
    assert response.cookies["django_language"].value == "da"
    assert User.objects.get(username="carla").language == "da"


def test_sign_up_continues_to_a_safe_next_page_only(client):
    response = client.post(SIGNUP + "?next=/tournaments/7/", sign_up_form())
    assert response["Location"] == "/tournaments/7/"

    other = Client()
    response = other.post(
        SIGNUP, sign_up_form(username="dora", screen_name="Dora", email="d@example.com", next="https://evil.example/")
    )
    assert response["Location"] == "/"


def test_sign_up_cannot_make_staff(client):
    client.post(SIGNUP, sign_up_form(is_staff="on", is_superuser="on"))

    user = User.objects.get(username="carla")
    assert not user.is_staff
    assert not user.is_superuser


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"username": "ALICE"}, "username", "A user with that username already exists."),
        ({"screen_name": "aLiCe"}, "screen_name", "That screen name is taken."),
        ({"screen_name": "  alice "}, "screen_name", "That screen name is taken."),
        ({"screen_name": "\uff21lice"}, "screen_name", "That screen name is taken."),  # fullwidth A
        ({"email": "Alice@Example.COM"}, "email", "An account with that email address already exists."),
    ],
)
def test_a_second_account_with_a_taken_name_or_address_is_refused(client, player, overrides, field, message):
    users, audit = User.objects.count(), AuditEntry.objects.count()

    response = client.post(SIGNUP, sign_up_form(**overrides))

    assert response.status_code == 400
    assert message in response.context["form"].errors[field]
    assert message in response.content.decode()
    assert (User.objects.count(), AuditEntry.objects.count()) == (users, audit)
    assert who(client) is None


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"password": "password", "password_confirm": "password"}, "password", "This password is too common."),
        (
            {"password": "12345678901", "password_confirm": "12345678901"},
            "password",
            "This password is entirely numeric.",
        ),
        ({"password": "carla1", "password_confirm": "carla1"}, "password", "This password is too short."),
        ({"password_confirm": "something else"}, "password_confirm", "The two passwords are not the same."),
        ({"screen_name": "_x_"}, "screen_name", "starting with a letter or a digit"),
        ({"screen_name": "Al"}, "screen_name", "at least 3 characters"),
        ({"username": "carla fox"}, "username", "Enter a valid username"),
        ({"country": "XX"}, "country", "Select a valid choice."),
        ({"preferred_currency": "TMY"}, "preferred_currency", "Select a valid choice."),
        ({"email": ""}, "email", "This field is required."),
    ],
)
def test_sign_up_with_bad_input_is_a_form_error_and_creates_nothing(client, overrides, field, message):
    response = client.post(SIGNUP, sign_up_form(**overrides))

    assert response.status_code == 400
    assert any(message in error for error in response.context["form"].errors[field])
    assert not User.objects.filter(username__iexact=overrides.get("username", "carla")).exists()
    assert not AuditEntry.objects.exists()


def test_a_logged_in_player_cannot_open_a_second_account(client, player):
    client.force_login(player)

    assert client.get(SIGNUP).status_code == 200
    response = client.post(SIGNUP, sign_up_form())

    assert response.status_code == 403
    assert "one account per person" in response.content.decode()
    assert not User.objects.filter(username="carla").exists()


def test_the_service_reports_every_problem_by_argument(player):
    with pytest.raises(ValidationError) as caught:
        user_sign_up(
            username="Alice",
            screen_name="ALICE",
            email="alice@EXAMPLE.com",
            password="alice",
            country="dk",
            preferred_currency="TMY",
            language="fr",
        )

    expected = {"username", "screen_name", "email", "password", "preferred_currency", "language", "national_id"}
    assert set(caught.value.message_dict) == expected


def test_sign_up_shows_a_weak_password_with_the_other_errors(client):
    response = client.post(SIGNUP, sign_up_form(screen_name="x", password="carla123", password_confirm="carla123"))

    errors = response.context["form"].errors
    assert set(errors) == {"screen_name", "password"}


def test_of_two_sign_ups_racing_for_one_screen_name_exactly_one_wins(transactional_db, monkeypatch):
    both_checked = threading.Barrier(2, timeout=10)
    check = services._sign_up_errors

    def check_then_wait(user, password):
        errors = check(user, password)
        both_checked.wait()  # each has found the name free; now both insert
        return errors

    monkeypatch.setattr(services, "_sign_up_errors", check_then_wait)
    outcomes = []

    def sign_up(username):
        try:
            user_sign_up(
                username=username,
                screen_name="Racer" if username == "racer1" else "RACER",
                email=f"{username}@example.com",
                password=GOOD_PASSWORD,
                country="DK",
                national_id=cpr(),
                preferred_currency="EUR",
                language="en",
            )
            outcomes.append("created")
        except ValidationError as error:
            outcomes.append(error.message_dict)
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=(name,)) for name in ("racer1", "racer2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes, key=str) == sorted(["created", {"screen_name": ["That screen name is taken."]}], key=str)
    assert User.objects.filter(screen_name__iexact="racer").count() == 1
    assert AuditEntry.objects.filter(action="accounts.user.signed_up").count() == 1


def test_the_database_refuses_names_and_addresses_that_differ_only_in_case(player):
    for clash in ({"username": "ALICE"}, {"screen_name": "ALICE"}, {"email": "ALICE@example.com"}):
        fields = {"username": "zed", "screen_name": "Zed", "email": "zed@example.com", **clash}
        with pytest.raises(IntegrityError), transaction.atomic():
            User.objects.create(**fields)
    # Staff accounts without an address do not clash with each other.
    User.objects.create(username="s1", screen_name="S1", email="")
    User.objects.create(username="s2", screen_name="S2", email="")


# Log in and out


def test_login_goes_to_the_lobby_and_logout_ends_the_session(client, player):
    response = client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert who(client) == "Alice"

    response = client.post(LOGOUT)

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert who(client) is None


def test_login_goes_to_next(client, player):
    response = client.post(LOGIN + "?next=/tournaments/3/", {"username": "alice", "password": PLAYER_PASSWORD})
    assert response["Location"] == "/tournaments/3/"


def test_login_in_danish_goes_to_the_danish_lobby(client, player):
    response = client.post("/da" + LOGIN, {"username": "alice", "password": PLAYER_PASSWORD})
    assert response["Location"] == "/da/"


def test_wrong_password_is_a_form_error(client, player):
    response = client.post(LOGIN, {"username": "alice", "password": "wrong horse battery"})

    assert response.status_code == 400
    assert "Please enter a correct username and password." in response.content.decode()
    assert who(client) is None


def test_logout_by_get_is_refused(client, player):
    client.force_login(player)

    response = client.get(LOGOUT)

    assert response.status_code == 405
    assert "a link cannot log you out" in response.content.decode()
    assert who(client) == "Alice"


def test_staff_see_the_admin_link_and_players_do_not(client, player, staff):
    client.post(LOGIN, {"username": "sam", "password": PLAYER_PASSWORD})
    assert 'href="/admin/"' in client.get("/").content.decode()

    client.post(LOGOUT)
    client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD})
    assert 'href="/admin/"' not in client.get("/").content.decode()


# Rate limits


FAILED_LOGIN_LIMIT = 10  # settings.AXES_FAILURE_LIMIT, as the README says
ADMIN_LOGIN = "/admin/login/"


def fail_logins(count: int, username: str, *, path: str = LOGIN, address: str | None = None) -> list[int]:
    """`count` wrong passwords for `username`, each from its own address unless one is given."""
    return [
        Client(REMOTE_ADDR=address or f"198.51.100.{number}")
        .post(path, {"username": username, "password": "wrong"})
        .status_code
        for number in range(count)
    ]


def test_login_is_limited_per_client_address(client, player):
    statuses = [
        client.post(LOGIN, {"username": f"guess{number}", "password": "x"}, REMOTE_ADDR="203.0.113.5").status_code
        for number in range(FAILED_LOGIN_LIMIT)
    ]
    assert statuses == [400] * (FAILED_LOGIN_LIMIT - 1) + [429]

    response = client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD}, REMOTE_ADDR="203.0.113.5")

    assert response.status_code == 429
    assert response["Retry-After"] == "300"
    body = response.content.decode()
    assert "Too many attempts" in body
    assert "Please wait 5 minutes and try again." in body
    assert who(client) is None
    # Another address is not held up.
    other = Client(REMOTE_ADDR="203.0.113.6")
    assert other.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD}).status_code == 302


def test_login_is_limited_per_username_from_any_address(client, player):
    assert fail_logins(FAILED_LOGIN_LIMIT, "alice")[-1] == 429

    response = client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD}, REMOTE_ADDR="192.0.2.1")

    assert response.status_code == 429
    assert who(client) is None
    # Another username is not held up.
    assert Client(REMOTE_ADDR="192.0.2.2").post(LOGIN, {"username": "bob", "password": "x"}).status_code == 400


@pytest.mark.parametrize(
    ("guessed_as", "logged_in_as"),
    [
        ("carla", "\uff43\uff41\uff52\uff4c\uff41"),  # fullwidth: NFKC makes it carla
        ("\uff43\uff41\uff52\uff4c\uff41", "carla"),
        ("CARLA ", "carla"),
    ],
)
def test_a_username_written_another_way_shares_the_usernames_limit(client, guessed_as, logged_in_as):
    """The limit is on the username as the login form normalises it: another
    spelling of the same name gets no tries of its own."""
    carla = UserFactory(username="carla", screen_name="Carla")
    # The spelling does log in as carla: that is why it must share her tries.
    assert Client().post(LOGIN, {"username": logged_in_as.strip(), "password": PLAYER_PASSWORD}).status_code == 302
    fail_logins(FAILED_LOGIN_LIMIT, guessed_as)

    response = client.post(LOGIN, {"username": logged_in_as, "password": PLAYER_PASSWORD}, REMOTE_ADDR="192.0.2.1")

    assert response.status_code == 429
    assert who(client) is None
    assert carla.username == "carla"


def test_the_admin_login_is_limited_and_shares_the_sites_limit(client, admin):
    # Half the tries on the site's login, half on the admin's: one limit.
    fail_logins(FAILED_LOGIN_LIMIT // 2, "ada")
    assert fail_logins(FAILED_LOGIN_LIMIT // 2, "ada", path=ADMIN_LOGIN)[-1] == 429

    response = client.post(ADMIN_LOGIN, {"username": "ada", "password": PLAYER_PASSWORD}, REMOTE_ADDR="192.0.2.1")

    assert response.status_code == 429
    assert "Please wait 5 minutes and try again." in response.content.decode()
    assert client.get("/admin/").status_code == 302  # still to the admin's login
    assert Client().post(LOGIN, {"username": "ada", "password": PLAYER_PASSWORD}).status_code == 429


def test_the_admin_login_alone_is_limited(client, admin):
    fail_logins(FAILED_LOGIN_LIMIT, "ada", path=ADMIN_LOGIN, address="203.0.113.9")

    response = client.post(ADMIN_LOGIN, {"username": "ada", "password": PLAYER_PASSWORD}, REMOTE_ADDR="192.0.2.1")

    assert response.status_code == 429
    assert client.get("/admin/").status_code == 302


def test_the_login_limit_ends_after_the_cool_off(client, player):
    fail_logins(FAILED_LOGIN_LIMIT, "alice", address="203.0.113.5")
    assert client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD}).status_code == 429

    # Five minutes after the last attempt.
    AccessAttempt.objects.update(attempt_time=Now() - timedelta(minutes=5, seconds=1))

    response = client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD})
    assert response.status_code == 302
    assert who(client) == "Alice"


def sign_up_as(number: int, **overrides) -> dict:
    return sign_up_form(
        username=f"carla{number}", screen_name=f"Carla {number}", email=f"c{number}@example.com", **overrides
    )


def test_sign_up_is_limited_per_client_address_and_resets_after_the_window(client, clock):
    for number in range(SIGN_UP_LIMIT.attempts):
        assert Client().post(SIGNUP, sign_up_as(number)).status_code == 302

    response = client.post(SIGNUP, sign_up_form())

    assert response.status_code == 429
    assert response["Retry-After"] == str(SIGN_UP_LIMIT.window_seconds)
    assert "Please wait 60 minutes and try again." in response.content.decode()
    assert not User.objects.filter(username="carla").exists()
    # Reading the page is not an attempt.
    assert client.get(SIGNUP).status_code == 200

    clock.value += SIGN_UP_LIMIT.window_seconds

    assert client.post(SIGNUP, sign_up_form()).status_code == 302
    assert User.objects.filter(username="carla").exists()


def test_forms_filled_in_wrong_do_not_count_against_the_sign_up_limit(client, clock):
    mistakes = [
        {"password_confirm": "typo"},
        {"password": "short", "password_confirm": "short"},
        {"email": "not an address"},
        {"country": ""},
        {"screen_name": "_x"},
    ]
    for mistake in mistakes * 3:
        assert client.post(SIGNUP, sign_up_form(**mistake)).status_code == 400

    for number in range(SIGN_UP_LIMIT.attempts):
        assert Client().post(SIGNUP, sign_up_as(number)).status_code == 302
    assert client.post(SIGNUP, sign_up_form()).status_code == 429


def test_asking_whether_a_name_is_taken_counts_against_the_sign_up_limit(client, player, clock):
    # Each answer says that an account exists: the limit is what keeps anyone from listing them.
    for _attempt in range(SIGN_UP_LIMIT.attempts):
        response = client.post(SIGNUP, sign_up_form(username="ALICE"))
        assert "A user with that username already exists." in response.content.decode()

    assert client.post(SIGNUP, sign_up_form()).status_code == 429
    assert not User.objects.filter(username="carla").exists()


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        ("203.0.113.5", "", "203.0.113.5"),
        # A client's own X-Forwarded-For is its word only.
        ("203.0.113.5", "192.0.2.1", "203.0.113.5"),
        # Through the trusted proxy: the address it appended, not what the client made up before it.
        ("127.0.0.1", "192.0.2.1, 203.0.113.5", "203.0.113.5"),
        ("127.0.0.1", "", "127.0.0.1"),
        ("127.0.0.1", "not-an-address", "127.0.0.1"),
        ("2001:db8:1:2:3:4:5:6", "", "2001:db8:1:2::"),
    ],
)
def test_the_client_address_is_the_one_a_trusted_proxy_saw(peer, forwarded, expected):
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().get("/", REMOTE_ADDR=peer, **headers)
    assert client_address(request) == expected


# Password


def test_changing_the_password_needs_a_login(client):
    response = client.get(PASSWORD)

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/password/"


def test_change_password_keeps_the_session_and_the_new_password_works(client, player):
    client.force_login(player)

    response = client.post(
        PASSWORD,
        {"old_password": PLAYER_PASSWORD, "new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/done/"
    assert "Your password has been changed." in client.get(response["Location"]).content.decode()
    assert who(client) == "Alice"
    client.post(LOGOUT)
    assert client.post(LOGIN, {"username": "alice", "password": PLAYER_PASSWORD}).status_code == 400
    assert client.post(LOGIN, {"username": "alice", "password": GOOD_PASSWORD}).status_code == 302


def test_change_password_with_a_wrong_old_password_is_a_form_error(client, player):
    client.force_login(player)

    response = client.post(
        PASSWORD, {"old_password": "nope", "new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD}
    )

    assert response.status_code == 400
    assert "Your old password was entered incorrectly." in response.content.decode()
    player.refresh_from_db()
    assert player.check_password(PLAYER_PASSWORD)


# Danish


def test_danish_sign_up_page(client):
    body = client.get("/da" + SIGNUP).content.decode()

    assert '<html lang="da">' in body
    assert "<title>Opret konto · Pokerrum</title>" in body
    assert "<h1>Opret konto</h1>" in body
    assert '<label for="id_screen_name">Skærmnavn:</label>' in body
    assert "Vises ved bordene og i stillingen." in body
    assert '<option value="DK">Danmark</option>' in body
    assert '<option value="da" selected>Dansk</option>' in body
    assert 'action="/da/accounts/signup/"' in body


def test_danish_errors_and_rate_limit_page(client, player, clock):
    response = client.post("/da" + SIGNUP, sign_up_form(screen_name="ALICE"))
    assert "Det skærmnavn er optaget." in response.content.decode()

    for _attempt in range(SIGN_UP_LIMIT.attempts - 1):
        client.post("/da" + SIGNUP, sign_up_form(username="ALICE"))
    body = client.post("/da" + SIGNUP, sign_up_form()).content.decode()
    assert "<h1>For mange forsøg</h1>" in body
