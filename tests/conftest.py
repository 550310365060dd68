from pathlib import Path

import pytest
from django.core.cache import cache

from lobby.fresh_cache import forget_local_copies
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    # The cache is a real Redis database: tests that serve pages start without
    # anything cached by an earlier test. Pure unit tests never touch it.
    if request.path.is_relative_to(Path(__file__).parent / "unit"):
        yield
        return
    cache.clear()
    forget_local_copies()
    yield
    cache.clear()
    forget_local_copies()


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
