"""Every wallet history line that concerns a tournament names it, linked: for the
player on /wallet/ and for staff in the support console, whatever the form paid
(cash, or T-Money, which goes through the house's account)."""

import re

import pytest
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.services.entries import entry_register, entry_unregister
from wallet.services import deposit_create, tmoney_issue

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(player, staff):
    """A T-Money entry taken back, then a cash one taken back, in "Sunday Warm-up"."""
    event = TournamentFactory(name="Sunday Warm-up", blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)
    tmoney_issue(user=player, amount=2500, reason="Welcome gift", actor=staff, idempotency_key="tm")
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="in")
    for form in ("tmoney", "cash"):
        entry_register(tournament_id=event.pk, player=player, now=timezone.now(), form=form)
        entry_unregister(tournament_id=event.pk, player=player, now=timezone.now())
    return event


def lines(html: str) -> list[str]:
    """The history table's "What" cells, tags stripped but links kept as [name](href)."""
    table = html[html.index('<table class="levels history">') :]
    table = table[: table.index("</table>")]
    cells = re.findall(r"<tr>\s*<td>.*?</td>\s*<td>(.*?)</td>", table, re.S)
    return [re.sub(r'<a href="([^"]+)">([^<]+)</a>', r"[\2](\1)", cell).strip() for cell in cells]


def expected(event) -> list[str]:
    named = f"[Sunday Warm-up](/tournaments/{event.pk}/)"
    return [
        f"Refund: {named}",  # the cash entry's fee and buy-in back
        f"Refund: {named}",
        f"Fee: {named}",
        f"Buy-in: {named}",
        f"Refund: {named}",  # the T-Money back
        f"T-Money conversion: {named}",  # the T-Money paid
        "Deposit",
        "Staff adjustment",
    ]


def test_the_player_sees_the_tournament_on_every_line_about_it(client, player, history):
    client.force_login(player)
    assert lines(client.get("/wallet/").content.decode()) == expected(history)


def test_staff_see_the_tournaments_name_not_its_ledger_reference(client, player, staff, history):
    client.force_login(staff)
    html = client.get(f"/support/players/{player.pk}/").content.decode()
    assert lines(html) == expected(history)
    assert "tournament:" not in html
