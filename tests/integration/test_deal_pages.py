"""The deal pages as a player and the mediator use them: what a proposal form
refuses, and what the confirmation of an agreed deal shows."""

from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from deals.models import Deal, Negotiation, NegotiationStatus, ProposalStatus
from deals.services import chop_consent, chop_request, proposal_answer, proposal_create
from tests.integration.test_deals import agreed_to_negotiate, final_table, now
from tournaments.dates import moment_text
from tournaments.models import Entry
from wallet.money import format_money as money

pytestmark = pytest.mark.django_db


NOT_A_NUMBER = "is not an amount: write a number, like 12.50."
TOO_LARGE = "is too large: an amount is at most €9,999,999,999.99."


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("abc", NOT_A_NUMBER),
        ("ten", NOT_A_NUMBER),
        ("Infinity", NOT_A_NUMBER),
        ("-Infinity", NOT_A_NUMBER),
        ("sNaN", NOT_A_NUMBER),
        ("NaN", NOT_A_NUMBER),
        ("-1", "is negative: an amount is 0 or more."),
        ("99999999999999", TOO_LARGE),
        ("1e40", TOO_LARGE),
        ("12.345", "has more than two decimals: write it like 12.50."),
    ],
)
def test_an_amount_that_is_not_one_is_refused_saying_what_is_wrong(client, staff, typed, problem):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    client.force_login(staff)

    as_play_for = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "icm", "play_for": typed})
    fields = {f"amount-{p.entry_id}": "10" for p in negotiation.participants.all()}
    first = negotiation.participants.select_related("entry__player").first()
    fields[f"amount-{first.entry_id}"] = typed
    client.force_login(players[1])
    as_custom = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "custom", **fields})

    assert as_play_for.status_code == as_custom.status_code == 400
    assert f"Left to play for: “{typed}” {problem}" in as_play_for.text
    assert f"{first.entry.player.screen_name}: “{typed}” {problem}" in as_custom.text
    # What the player typed is still in the form, to correct.
    assert f'name="amount-{first.entry_id}" inputmode="decimal" value="{typed}"' in as_custom.text
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
    assert "Leader Board points are never part of it (rule 23)" in html  # only money is divided
    assert "points" not in confirmation.lower()


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
    with timezone.override(ZoneInfo("Europe/Copenhagen")):
        written = moment_text(deal.agreed_at)  # the site's one format for a day and a time
    assert f'accepted at <time datetime="{instant}" data-local>{written}</time>' in page
    assert f"{local:%H:%M}" in written
    assert f'A deal was made at <time datetime="{instant}" data-local>{local:%H:%M}</time>;' in info


def test_asking_for_a_deal_in_a_tournament_that_does_not_exist_is_a_404(client, player):
    client.force_login(player)

    response = client.post("/deals/tournaments/987654/request/")

    assert response.status_code == 404
    assert not Negotiation.objects.exists()


@pytest.mark.parametrize("action", ["withdraw", "end"])
def test_a_mediators_reason_with_a_nul_is_refused_and_changes_nothing(client, staff, action):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", now=now())
    client.force_login(staff)
    url = {
        "withdraw": f"/deals/{negotiation.pk}/proposals/{proposal.pk}/withdraw/",
        "end": f"/deals/{negotiation.pk}/end/",
    }[action]

    page = client.post(url, {"reason": "Lopsided\x00"}, HTTP_REFERER=f"http://testserver/deals/{negotiation.pk}/")

    # A page of the site that says why, with the way back to the negotiation.
    assert page.status_code == 400
    assert "a NUL character or bytes that are not UTF-8" in page.text
    assert "<header" in page.text  # the site's header: not a bare fragment
    assert f'href="http://testserver/deals/{negotiation.pk}/"' in page.text
    negotiation.refresh_from_db()
    proposal.refresh_from_db()
    assert (negotiation.status, proposal.status) == (NegotiationStatus.NEGOTIATING, ProposalStatus.OPEN)


@pytest.mark.parametrize("value", ["", "maybe", "YES", "true"])
def test_a_consent_that_is_neither_yes_nor_no_is_a_400_and_ends_nothing(client, staff, value):
    tournament, players = final_table(3)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    client.force_login(players[1])

    response = client.post(f"/deals/{negotiation.pk}/consent/", {"wants": value})

    assert response.status_code == 400
    assert "Answer yes or no: do you want to negotiate a deal?" in response.text
    negotiation.refresh_from_db()
    assert negotiation.status == NegotiationStatus.ASKING
    assert negotiation.participants.get(entry__player=players[1]).wants_to_negotiate is None


def test_an_answer_that_is_neither_accept_nor_reject_is_a_400_and_rejects_nothing(client, staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", now=now())
    client.force_login(players[1])

    response = client.post(f"/deals/{negotiation.pk}/proposals/{proposal.pk}/answer/", {"answer": "perhaps"})

    assert response.status_code == 400
    assert "Answer the proposal: accept it or reject it." in response.text
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.OPEN
    assert not proposal.answers.exists()


def test_custom_amounts_that_do_not_add_up_are_refused_in_the_events_money(client, staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    client.force_login(players[1])
    fields = {f"amount-{p.entry_id}": "5" for p in negotiation.participants.all()}

    response = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "custom", **fields})

    assert response.status_code == 400
    assert "The amounts add up to €15, €14 short of the €29 the deal shares" in response.text
    assert not negotiation.proposals.exists()


def test_a_players_own_proposal_is_her_acceptance_and_the_page_says_so(client, staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    author = players[1]
    participants = list(negotiation.participants.order_by("entry_id"))
    fields = {f"amount-{p.entry_id}": amount for p, amount in zip(participants, ["10", "10", "9"], strict=True)}
    client.force_login(author)

    done = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "custom", **fields}, follow=True)

    assert "Your proposal is on every player&#x27;s screen; it counts as your acceptance." in done.text
    proposal = negotiation.proposals.get()
    assert list(proposal.answers.values_list("entry__player", "accepted")) == [(author.pk, True)]
    # She has nothing left to answer; the others see whose proposal it is, and its acceptance.
    assert "Accept this deal" not in done.text
    client.force_login(players[0])
    other = client.get(f"/deals/{negotiation.pk}/").text
    assert f"Proposed by {author.screen_name}: a player's own proposal counts as their acceptance." in other
    assert f"<td>{author.screen_name}</td>" in other
    assert other.count("<td>Accepted</td>") == 1
    # The other two accepting makes the deal.
    for player in (players[0], players[2]):
        proposal_answer(proposal_id=proposal.pk, player=player, accept=True, now=now())
    assert Deal.objects.get().proposal == proposal


def test_once_every_player_wants_to_negotiate_the_pages_say_the_clock_stops_next(client, staff):
    tournament, players = final_table(3)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    client.force_login(players[0])
    assert "Every player wants to negotiate" not in client.get(f"/deals/{negotiation.pk}/").text

    for player in players[1:]:
        chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=now())

    assert (
        "Every player wants to negotiate: the mediator stops the clock next."
        in client.get(f"/deals/{negotiation.pk}/").text
    )
    assert (
        "Every player wants to negotiate: staff stop the clock next."
        in client.get(f"/deals/tournaments/{tournament.pk}/card/").text
    )


def test_the_amount_and_sum_refusals_are_in_danish_on_the_danish_page(client, staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    client.force_login(players[1])
    participants = list(negotiation.participants.select_related("entry__player"))
    short = {f"amount-{p.entry_id}": "5" for p in participants}
    negative = {**short, f"amount-{participants[0].entry_id}": "-1"}

    summed = client.post(f"/da/deals/{negotiation.pk}/proposals/", {"kind": "custom", **short}).text
    refused = client.post(f"/da/deals/{negotiation.pk}/proposals/", {"kind": "custom", **negative}).text

    assert "Beløbene giver 15\u00a0€ i alt, 14\u00a0€ mindre end de 29\u00a0€, aftalen deler" in summed
    assert f"{participants[0].entry.player.screen_name}: “-1” er negativt: et beløb er 0 eller mere." in refused


def test_tournament_info_says_who_agreed_to_what_in_the_deal(client, staff):
    tournament, _players, deal = agreed_deal(staff)

    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()

    lines = html.split('class="levels deal-lines"')[1].split("</table>")[0]
    for entry in Entry.objects.filter(tournament=tournament).select_related("player"):
        amount = money(deal.amount_for(entry.pk), "EUR")
        assert f'<td>{entry.player.screen_name}</td><td class="money">{amount}</td>' in lines
    assert money(deal.play_for, "EUR") in lines
