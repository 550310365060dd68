"""The staff console's home at /support/ (the address the README gives): staff
only, linking every tool and listing the deals that wait for a mediator; and the
site's icon."""

import logging
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

from tests.integration.test_deals import agreed_to_negotiate, final_table

pytestmark = pytest.mark.django_db


def test_a_player_is_refused_the_console_and_a_visitor_sent_to_log_in(client, player):
    assert client.get("/support/")["Location"] == f"{settings.LOGIN_URL}?next=/support/"
    client.force_login(player)
    assert client.get("/support/").status_code == 403


@pytest.mark.parametrize("path", ["/support/", "/support/players/?q=bob", "/support/seats/"])
def test_a_refused_player_is_one_line_in_the_log_without_a_traceback(client, player, caplog, path):
    client.force_login(player)
    caplog.clear()

    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get(path).status_code == 403

    assert [record.getMessage() for record in caplog.records] == [
        f"Forbidden (Permission denied): {path.split('?')[0]}"
    ]
    assert caplog.records[0].exc_info is None
    assert "Traceback" not in caplog.text
    assert len(caplog.text.strip().splitlines()) == 1


def test_the_home_links_every_tool_and_the_deals_waiting_for_a_mediator(client, staff, admin):
    tournament, players = final_table(3, name="Sunday Final")
    negotiation = agreed_to_negotiate(tournament, players, staff)
    client.force_login(admin)  # the admin's event list is linked for whoever may see it

    response = client.get("/support/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Support console</h1>" in html
    assert 'href="/support/tickets/"' in html
    assert "1 open ticket" in html
    assert 'action="/support/players/"' in html
    assert re.search(
        rf'<a href="/deals/{negotiation.pk}/">URGENT Tournament #{tournament.pk} chop</a> \(Sunday Final\):'
        r"\s+mediated by Sam",
        html,
    )
    assert 'href="/admin/tournaments/tournament/"' in html


def test_no_deal_waiting_says_so(client, staff):
    client.force_login(staff)
    html = client.get("/support/").content.decode()
    assert "0 open tickets" in html
    assert "No deal is waiting for a mediator." in html


def test_every_page_has_an_icon_and_favicon_ico_answers(client, db):
    page = client.get("/").content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', page)
    assert icon
    follow = client.get("/favicon.ico")
    assert follow.status_code == 302
    assert follow["Location"] == icon.group(1)
    with open(finders.find("favicon.ico"), "rb") as file:
        assert file.read(4) == b"\x00\x00\x01\x00"  # an icon file
