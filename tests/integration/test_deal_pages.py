"""The deal pages as a player and the mediator use them: what a proposal form
refuses, and what the confirmation of an agreed deal shows."""

from zoneinfo import ZoneInfo

import pytest

from deals.models import Deal, Negotiation
from deals.services import proposal_answer, proposal_create
from tests.integration.test_deals import agreed_to_negotiate, final_table, now
from tournaments.models import Entry
from wallet.money import format_money as money

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("typed", ["Infinity", "-Infinity", "1e40", "sNaN", "NaN", "12.345", "-1", "ten"])
def test_an_amount_that_is_not_a_finite_number_in_range_is_a_form_error(client, staff, typed):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    client.force_login(staff)

    as_play_for = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "icm", "play_for": typed}, follow=True)
    fields = {f"amount-{p.entry_id}": "10" for p in negotiation.participants.all()}
    first = negotiation.participants.first()
    fields[f"amount-{first.entry_id}"] = typed
    client.force_login(players[1])
    as_custom = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "custom", **fields}, follow=True)

    for response in (as_play_for, as_custom):
        assert response.status_code == 200
        assert "Amounts are written like 12.50, with no more than two decimals." in response.content.decode()
    assert not Negotiation.objects.get().proposals.exists()


def agreed_deal(staff, count: int = 3):
    tournament, players = final_table(count)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    chop = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="chip_chop", now=now())
    for player in players:
        proposal_answer(proposal_id=chop.pk, player=player, accept=True, now=now())
    return tournament, players, Deal.objects.get()


def test_the_confirmation_lists_each_players_amount_and_what_is_left_to_play_for(client, staff):
    tournament, players, deal = agreed_deal(staff)
    client.force_login(players[1])

    html = client.get(f"/deals/{deal.negotiation_id}/").content.decode()

    confirmation = html[html.index('<div class="confirmation"') :]
    entries = Entry.objects.filter(tournament=tournament).select_related("player")
    for entry in entries:
        amount = money(deal.amount_for(entry.pk), "EUR")
        assert f'<td>{entry.player.screen_name}</td><td class="money">{amount}</td>' in confirmation
    assert f'<th scope="row">Left to play for</th><td class="money">{money(100, "EUR")}</td>' in confirmation


def test_deal_times_are_in_the_viewers_zone(client, staff):
    tournament, players, deal = agreed_deal(staff)
    client.force_login(players[0])
    client.cookies["tz"] = "Europe%2FCopenhagen"  # as static/js/portal.js stores it
    local = deal.agreed_at.astimezone(ZoneInfo("Europe/Copenhagen"))
    instant = deal.agreed_at.isoformat()

    page = client.get(f"/deals/{deal.negotiation_id}/").content.decode()
    info = client.get(f"/tournaments/{tournament.pk}/").content.decode()

    # In the viewer's zone from the server, and marked for the browser to localise
    # where the cookie is not there yet (a first visit).
    assert f'accepted at <time datetime="{instant}" data-local>{local:%Y-%m-%d %H:%M}</time>' in page
    assert f'A deal was made at <time datetime="{instant}" data-local>{local:%H:%M}</time>;' in info
