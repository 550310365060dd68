"""Pages anyone can use by keyboard and screen reader (issue 28): axe-core in Chromium
finds no violation of serious or critical impact on the lobby, Tournament Info, a
seated player's table, a finished hand's page and the wallet."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from tests.e2e.test_live import log_in
from tests.integration.test_hand_history import showdown
from tests.tables import in_play, prepare, started
from wallet.services import deposit_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SERIOUS = ("serious", "critical")


def serious_violations(page) -> list[str]:
    """Each serious or critical violation axe-core finds on the page, with where."""
    found = []
    for violation in Axe().run(page).response["violations"]:
        if violation["impact"] in SERIOUS:
            where = "; ".join(str(node["target"]) for node in violation["nodes"][:3])
            found.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {where}")
    return found


@pytest.fixture
def room(transactional_db):
    tournament, (alice, bob, carol) = started([1000, 1000, 1000])
    alice.player.set_password("correct horse battery")
    alice.player.save()
    deposit_create(user=alice.player, currency="EUR", amount=5000, idempotency_key="a11y")
    row = in_play(tournament)
    prepare(row, {alice: "AsAh", bob: "KsKh", carol: "QsQh"}, "2c7d9hJs3d")
    return tournament, (alice, bob, carol), row


def test_the_players_pages_have_no_serious_accessibility_violation(page, room):
    tournament, (alice, _bob, carol), row = room
    pages = {
        "lobby": "/",
        "tournament info": reverse("lobby:tournament", args=[tournament.pk]),
    }
    found = {}
    for name, url in pages.items():
        page.goto(url)
        found[name] = serious_violations(page)
    log_in(page, alice.player.username)
    signed_in = {
        "lobby, signed in": "/",
        "table": reverse("lobby:table", args=[tournament.pk, row.table.number]),
        "wallet": reverse("lobby:wallet"),
        "my tables": reverse("lobby:my_tables"),
    }
    for name, url in signed_in.items():
        page.goto(url)
        found[name] = serious_violations(page)
    finished = showdown(row, folder=carol)
    page.goto(reverse("lobby:hand", args=[tournament.pk, finished.pk]))
    found["hand"] = serious_violations(page)
    page.goto(reverse("lobby:my_hands"))
    found["my hands"] = serious_violations(page)
    assert found == {name: [] for name in found}
