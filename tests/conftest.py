from pathlib import Path

import pytest
from django.core.cache import caches
from django.utils import translation

from tests.factories import UserFactory
from tournaments import nodes
from tournaments.selectors import replays
from tournaments.services import hands, ticks


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    # The shared cache is a real Redis database: tests that serve pages start without
    # anything cached by an earlier test, here or in this process. Pure unit tests
    # never touch them.
    if request.path.is_relative_to(Path(__file__).parent / "unit"):
        yield
        return
    for alias in ("default", "local"):
        caches[alias].clear()
    _forget_hands()
    yield
    for alias in ("default", "local"):
        caches[alias].clear()
    _forget_hands()


def _forget_hands():
    # Hands kept warm by this process belong to the test that played them: another
    # test's database may give a new hand the same id (SQLite does).
    with hands._live_lock:
        hands._live.clear()
    with replays._shown_lock:
        replays._shown.clear()
        replays._paged.clear()
    nodes._nodes.read_at = float("-inf")  # the live nodes read again from the (cleared) cache
    with ticks._queued_lock:
        ticks._queued.clear()  # the ticks queued, as the cleared cache knew them


@pytest.fixture(autouse=True)
def _english():
    # A request to a Danish page leaves Danish active in the test's thread (the
    # locale middleware activates it and nothing deactivates it): every test starts
    # in English, the site's default, whatever ran before it.
    with translation.override("en"):
        yield


@pytest.fixture
def player(db):
    return UserFactory(username="alice", screen_name="Alice")


@pytest.fixture
def other_player(db):
    return UserFactory(username="bob", screen_name="Bob")


@pytest.fixture
def staff(db):
    return UserFactory(username="sam", screen_name="Sam", is_staff=True)


@pytest.fixture
def admin(db):
    return UserFactory(username="ada", screen_name="Ada", is_staff=True, is_superuser=True)
