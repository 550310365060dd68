"""The deal pages as a player and the mediator use them: what a proposal form
refuses, and what the confirmation of an agreed deal shows."""

import pytest

from deals.models import Negotiation
from tests.integration.test_deals import agreed_to_negotiate, final_table

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
