"""A repeated click in the deal workflow is a no-op (rule 23): twenty identical
requests at once, on real threads and connections of PostgreSQL, have the effect of
one, and the audit log records the decision once."""

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from deals.models import Answer, Deal, NegotiationStatus, ProposalStatus
from deals.services import (
    chop_claim,
    chop_consent,
    chop_request,
    chop_stop_clock,
    proposal_answer,
    proposal_create,
)
from tests.factories import UserFactory
from tests.integration.test_deals import agreed_to_negotiate, final_table
from tests.integration.test_registration_concurrency import race, refusals
from tournaments.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)

CLICKS = 20


def audited(action: str) -> int:
    return AuditEntry.objects.filter(action=action).count()


def test_twenty_claims_at_once_claim_the_ticket_once():
    tournament, players = final_table(3)
    staff = UserFactory(is_staff=True)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=timezone.now())
    at = timezone.now()

    outcomes = race([lambda: chop_claim(negotiation_id=negotiation.pk, staff=staff, now=at)] * CLICKS)

    assert refusals(outcomes, allowed=set()) == {}
    negotiation.ticket.refresh_from_db()
    assert negotiation.ticket.claimed_by == staff
    assert audited("deals.claimed") == 1


@pytest.mark.parametrize("wants", [True, False])
def test_twenty_identical_consents_at_once_are_one_answer(wants):
    tournament, players = final_table(3)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=timezone.now())
    at = timezone.now()

    outcomes = race(
        [lambda: chop_consent(negotiation_id=negotiation.pk, player=players[1], wants=wants, now=at)] * CLICKS
    )

    assert refusals(outcomes, allowed=set()) == {}
    assert audited("deals.consent") == 1
    negotiation.refresh_from_db()
    # One "no" ends the negotiation, once.
    assert negotiation.status == (NegotiationStatus.ASKING if wants else NegotiationStatus.ENDED)
    assert audited("deals.ended") == (0 if wants else 1)


def test_twenty_clock_stops_at_once_stop_it_once():
    tournament, players = final_table(3)
    staff = UserFactory(is_staff=True)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=timezone.now())
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=timezone.now())
    for player in players[1:]:
        chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=timezone.now())
    at = timezone.now()

    outcomes = race([lambda: chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=at)] * CLICKS)

    assert refusals(outcomes, allowed=set()) == {}
    assert audited("deals.clock_stopped") == 1
    assert audited("tournaments.clock.paused") == 1


@pytest.mark.parametrize("author", ["staff", "player"])
def test_twenty_identical_proposals_at_once_are_one_proposal(author):
    tournament, players = final_table(3)
    staff = UserFactory(is_staff=True)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk").values_list("pk", flat=True))
    to_share = sum(negotiation.prizes) - tournament.deal_leave_for_winner
    amounts = {entry: to_share // len(entries) for entry in entries}
    amounts[entries[0]] += to_share - sum(amounts.values())
    by = staff if author == "staff" else players[1]
    at = timezone.now()

    outcomes = race(
        [lambda: proposal_create(negotiation_id=negotiation.pk, author=by, kind="custom", amounts=amounts, now=at)]
        * CLICKS
    )

    assert refusals(outcomes, allowed=set()) == {}
    proposal = negotiation.proposals.get()  # none made and withdrawn
    assert proposal.status == ProposalStatus.OPEN
    assert {outcome.value.pk for outcome in outcomes} == {proposal.pk}
    assert audited("deals.proposed") == 1
    assert Answer.objects.filter(proposal=proposal).count() == (1 if author == "player" else 0)


def test_twenty_identical_accepts_at_once_are_one_answer_and_the_last_makes_one_deal():
    tournament, players = final_table(3)
    staff = UserFactory(is_staff=True)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="chip_chop", now=timezone.now())
    at = timezone.now()

    first = race([lambda: proposal_answer(proposal_id=proposal.pk, player=players[0], accept=True, now=at)] * CLICKS)
    assert refusals(first, allowed=set()) == {}
    assert audited("deals.answered") == 1
    proposal_answer(proposal_id=proposal.pk, player=players[1], accept=True, now=at)
    # The last player's accept makes the deal; the repeats of it change nothing.
    last = race([lambda: proposal_answer(proposal_id=proposal.pk, player=players[2], accept=True, now=at)] * CLICKS)

    assert refusals(last, allowed=set()) == {}
    assert audited("deals.answered") == 3
    assert audited("deals.agreed") == 1
    assert Deal.objects.get().proposal == proposal
    assert Answer.objects.filter(proposal=proposal).count() == 3
