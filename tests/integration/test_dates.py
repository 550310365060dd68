"""Dates as the site writes them (tournaments.dates, the `moment` filter): one format
everywhere, in the viewer's zone, with the year when it is not this year's; a
ticket valid through a day reads as that day's last minute; the admin says the zone
it shows and reads times in."""

import re
from datetime import UTC, date, datetime
from urllib.parse import quote
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone, translation

from tests.tables import started
from tournaments.dates import moment_text
from tournaments.models import Entry
from tournaments.services.chat import chat_mute, chat_post
from tournaments.services.refusals import TournamentError
from wallet.models import Ticket

COPENHAGEN = "Europe/Copenhagen"
# A day and a time in the site's format, English: "Thu 31 Dec, 23:59", the year optional.
SITE_FORMAT = r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}( \d{4})?, \d\d:\d\d"


def in_zone(client: Client, zone: str) -> Client:
    client.cookies["tz"] = quote(zone, safe="")
    return client


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2026, 12, 31, 22, 59, tzinfo=UTC), "Thu 31 Dec, 23:59"),
        (datetime(2026, 12, 31, 23, 0, tzinfo=UTC), "Fri 1 Jan 2027, 00:00"),
        (datetime(2025, 3, 4, 12, 0, tzinfo=UTC), "Tue 4 Mar 2025, 13:00"),
    ],
)
def test_the_year_is_written_only_when_it_is_not_this_years(moment, expected):
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    with timezone.override(ZoneInfo(COPENHAGEN)):
        assert moment_text(moment, now=now) == expected


def test_danish_writes_the_same_instant_its_own_way():
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    with timezone.override(ZoneInfo(COPENHAGEN)), translation.override("da"):
        assert moment_text(datetime(2026, 12, 31, 22, 59, tzinfo=UTC), now=now) == "tor 31. dec, 23:59"
        assert moment_text(datetime(2027, 1, 1, 12, 0, tzinfo=UTC), now=now) == "fre 1. jan 2027, 13:00"


def issue_ticket(client: Client, player, last_day: date):
    form = {
        "ticket-value": "11",
        "ticket-currency": "EUR",
        "ticket-expires_on": last_day.isoformat(),
        "ticket-tournament": "",
        "ticket-reason": "Satellite",
        "ticket-idempotency_key": "2b0c4c5e-8f5a-4d1e-9a47-1f3f1f0f9a11",
    }
    return client.post(f"/support/players/{player.pk}/tickets/", form)


def test_a_ticket_valid_through_new_years_eve_reads_as_its_last_minute_in_the_viewers_zone(db, staff, player):
    last_day = date(timezone.localdate().year + 1, 12, 31)
    weekday = last_day.strftime("%a")
    desk = in_zone(Client(), COPENHAGEN)
    desk.force_login(staff)
    assert issue_ticket(desk, player, last_day).status_code == 302
    ticket = Ticket.objects.get()
    assert ticket.expires_at == datetime(last_day.year + 1, 1, 1, tzinfo=ZoneInfo(COPENHAGEN))

    viewer = in_zone(Client(), COPENHAGEN)
    viewer.force_login(player)
    page = viewer.get("/wallet/").text
    assert '<th scope="col">Valid until</th>' in page
    assert f">{weekday} 31 Dec {last_day.year}, 23:59</time>" in page
    assert "1 Jan" not in page

    # The same instant in another zone, and in Danish.
    elsewhere = in_zone(Client(), "America/New_York")
    elsewhere.force_login(player)
    assert f">{weekday} 31 Dec {last_day.year}, 17:59</time>" in elsewhere.get("/wallet/").text
    danish = viewer.get("/da/wallet/").text
    assert re.search(rf">\w{{3}} 31\. dec {last_day.year}, 23:59</time>", danish)

    # Staff see it as the player does.
    assert f">{weekday} 31 Dec {last_day.year}, 23:59</time>" in desk.get(f"/support/players/{player.pk}/").text


def test_the_mute_notices_write_the_time_in_the_sites_format(db, staff):
    tournament, _ = started([1000, 1000, 1000])
    player = Entry.objects.filter(table__tournament=tournament).first().player
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    chat_mute(player=player, minutes=90, reason="Abuse at table 1", staff=staff, now=now)

    with timezone.override(ZoneInfo(COPENHAGEN)), pytest.raises(TournamentError) as refused:
        chat_post(tournament_id=tournament.pk, table=1, player=player, text="Hello?", now=now)
    assert refused.value.message == "Support has muted you in the chat until Mon 1 Jun, 13:30: Abuse at table 1"

    desk = in_zone(Client(), COPENHAGEN)
    desk.force_login(staff)
    done = desk.post(f"/support/players/{player.pk}/mute/", {"minutes": "30", "reason": "Abuse"}, follow=True)
    assert re.search(rf"is muted until {SITE_FORMAT}\.<", done.text)
    assert re.search(rf"Muted until <time datetime=\"[^\"]+\" data-local>{SITE_FORMAT}</time>: Abuse", done.text)


def test_the_admin_says_which_zone_it_shows_and_reads_times_in(db, admin):
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/").text
    assert "Times are in UTC." in page
    # The script that stores the browser's zone, as the site's pages do.
    assert re.search(r'<script src="/static/js/admin_zone\.js" defer></script>', page)

    in_zone(client, COPENHAGEN)
    assert "Times are in Europe/Copenhagen." in client.get("/admin/tournaments/tournament/").text
