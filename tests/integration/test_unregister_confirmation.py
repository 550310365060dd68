"""Unregistering asks first ("Unregister from X? You get back Y"), with htmx and
without JavaScript, and then says what was refunded, in the form paid: cash,
T-Money or the ticket (rule 10)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.models import Entry, EntryStatus, Status, Tournament
from tournaments.services.refusals import REFUSALS
from wallet.models import Ticket, TicketStatus
from wallet.services import account_get, deposit_create, tmoney_issue, wallet_account_spec
from wallet.tickets import ticket_issue

HTMX = {"HX-Request": "true"}


@pytest.fixture
def event(db):
    return TournamentFactory(name="Evening Freezeout", blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)


def register(client, player, event, form: str, **extra):
    client.force_login(player)
    response = client.post(f"/tournaments/{event.pk}/register/", {"form": form, **extra}, headers=HTMX)
    assert "You are registered" in response.content.decode()


def registered() -> bool:
    return Entry.objects.get().status == EntryStatus.ACTIVE


@pytest.mark.parametrize(
    "payment",
    [
        ("cash", "EUR", "€11 in cash"),
        ("tmoney", "TMY", "T$11 in T-Money"),
    ],
)
def test_without_javascript_a_page_asks_then_the_info_page_says_what_came_back(client, player, staff, event, payment):
    form, funds, refund = payment
    if funds == "EUR":
        deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="in")
    else:
        tmoney_issue(user=player, amount=5000, reason="Welcome", actor=staff, idempotency_key="in")
    register(client, player, event, form)

    asked = client.get(f"/tournaments/{event.pk}/unregister/").content.decode()
    assert f"Unregister from Evening Freezeout? You get back {refund}." in asked
    assert 'name="confirm" value="yes"' in asked
    assert registered()
    # A POST that was not confirmed (an old page's button) asks too.
    assert "You get back" in client.post(f"/tournaments/{event.pk}/unregister/").content.decode()
    assert registered()

    done = client.post(f"/tournaments/{event.pk}/unregister/", {"confirm": "yes"}, follow=True)

    assert done.redirect_chain == [(f"/tournaments/{event.pk}/", 302)]
    assert f"You are unregistered from Evening Freezeout. Back in your wallet: {refund}." in done.content.decode()
    assert not registered()
    assert account_get(wallet_account_spec(player.pk, funds)).balance == 5000


def test_with_htmx_the_card_asks_and_then_shows_the_ticket_came_back(client, player, staff, event):
    ticket = ticket_issue(
        owner=player, value=1100, currency="EUR", expires_at=timezone.now() + timedelta(days=3), actor=staff
    )
    register(client, player, event, "ticket", ticket=ticket.pk)

    asked = client.get(f"/tournaments/{event.pk}/unregister/", headers=HTMX).content.decode()
    assert asked.startswith(f'<section class="card wide registration" id="registration-{event.pk}"')
    assert "Unregister from Evening Freezeout? You get back your ticket (worth €11)." in asked
    kept = client.get(f"/tournaments/{event.pk}/registration-card/", headers=HTMX).content.decode()
    assert "Unregister" in kept  # "No, keep my seat" fetches the card again

    done = client.post(f"/tournaments/{event.pk}/unregister/", {"confirm": "yes"}, headers=HTMX).content.decode()

    assert "You are unregistered from Evening Freezeout. Back in your wallet: your ticket (worth €11)." in done
    assert Ticket.objects.get().status == TicketStatus.AVAILABLE
    assert not registered()


def test_someone_not_registered_is_told_so(client, player, event):
    client.force_login(player)
    response = client.get(f"/tournaments/{event.pk}/unregister/", headers=HTMX)
    assert response.status_code == 400
    assert "not registered" in response.content.decode()


def test_after_the_deadline_the_question_is_not_asked(client, player, event):
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="in")
    register(client, player, event, "cash")
    Tournament.objects.filter(pk=event.pk).update(status=Status.RUNNING)

    response = client.get(f"/tournaments/{event.pk}/unregister/", headers=HTMX)

    assert response.status_code == 400
    assert "You get back" not in response.content.decode()
    assert str(REFUSALS["unregistration_closed"]) in response.content.decode()
    assert registered()
