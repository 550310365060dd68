"""The Register / Unregister / Rebuy / Add-on buttons on Tournament Info."""

import pytest

from tests.factories import BlindStructureFactory, TournamentFactory, rebuy_event
from tournaments.models import Entry, EntryStatus
from wallet.services import account_get, deposit_create, wallet_account_spec

HTMX = {"HX-Request": "true"}


@pytest.fixture
def event(db):
    return TournamentFactory(blind_structure=BlindStructureFactory(), buy_in=1000, fee=100)


@pytest.fixture
def funded(client, player):
    deposit_create(user=player, currency="EUR", amount=5000, idempotency_key="funded")
    client.force_login(player)
    return player


def card(client, event) -> str:
    body = client.get(f"/tournaments/{event.pk}/").content.decode()
    return body.split('id="registration-', 1)[1].split("</section>", 1)[0]


def test_a_visitor_is_asked_to_log_in(client, event):
    assert "to register." in card(client, event)
    response = client.post(f"/tournaments/{event.pk}/register/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    response = client.post(f"/tournaments/{event.pk}/register/", headers=HTMX)
    assert response["HX-Redirect"].startswith("/accounts/login/")
    assert not Entry.objects.exists()


def test_the_card_offers_each_way_to_pay_with_its_price(client, funded, event):
    deposit_create(user=funded, currency="TMY", amount=500, idempotency_key="some-tmoney")
    html = card(client, event)
    assert "Register: pay €11" in html
    assert "Register: pay T$11 in T-Money" in html
    # T$5 does not cover T$11: that button is there but disabled.
    assert html.split("in T-Money")[0].rsplit("<button", 1)[1].count("disabled") == 1


def test_register_then_unregister_with_htmx(client, funded, event):
    response = client.post(f"/tournaments/{event.pk}/register/", {"form": "cash", "key": "k1"}, headers=HTMX)
    assert response.status_code == 200
    assert "You are registered. Good luck!" in response.content.decode()
    assert "Unregister" in response.content.decode()
    assert account_get(wallet_account_spec(funded.pk, "EUR")).balance == 3900
    response = client.post(f"/tournaments/{event.pk}/unregister/", {"confirm": "yes"}, headers=HTMX)
    assert "Back in your wallet: €11 in cash." in response.content.decode()
    assert account_get(wallet_account_spec(funded.pk, "EUR")).balance == 5000
    assert Entry.objects.get().status == EntryStatus.UNREGISTERED


def test_a_double_click_registers_and_charges_once(client, funded, event):
    for _ in range(2):
        client.post(f"/tournaments/{event.pk}/register/", {"form": "cash", "key": "same"}, headers=HTMX)
    assert Entry.objects.filter(status=EntryStatus.ACTIVE).count() == 1
    assert account_get(wallet_account_spec(funded.pk, "EUR")).balance == 3900


def test_a_refusal_is_a_400_with_the_reason_and_changes_nothing(client, player, event):
    client.force_login(player)
    response = client.post(f"/tournaments/{event.pk}/register/", {"form": "cash"}, headers=HTMX)
    assert response.status_code == 400
    assert "You do not have enough money for this" in response.content.decode()
    assert not Entry.objects.exists()


def test_without_javascript_the_browser_returns_to_the_info_page(client, funded, event):
    response = client.post(f"/tournaments/{event.pk}/register/", {"form": "cash"})
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{event.pk}/"
    assert "Unregister" in card(client, event)


def test_get_is_not_allowed(client, funded, event):
    assert client.get(f"/tournaments/{event.pk}/register/").status_code == 405


def test_rebuy_and_addon_buttons_in_the_rebuy_period(client, funded):
    event = rebuy_event()
    client.post(f"/tournaments/{event.pk}/register/", {"form": "cash"}, headers=HTMX)
    html = card(client, event)
    assert "Rebuy: pay €3.30" in html
    assert "Add-on: pay €5.50" in html
    response = client.post(f"/tournaments/{event.pk}/rebuy/", {"key": "r1"}, headers=HTMX)
    assert "the chips are added to your stack" in response.content.decode()
    client.post(f"/tournaments/{event.pk}/addon/", {"key": "a1"}, headers=HTMX)
    entry = Entry.objects.get()
    assert (entry.rebuys, entry.addon_taken, entry.chips) == (1, True, 10_000 + 10_000 + 15_000)
    assert account_get(wallet_account_spec(funded.pk, "EUR")).balance == 5000 - 330 - 330 - 550


# The lobby: each open event's row opens the viewer's own card under it.


def test_open_events_rows_offer_registration_and_closed_ones_do_not(client, event):
    closed = TournamentFactory(blind_structure=BlindStructureFactory(), name="Done", status="finished")
    lobby = client.get("/?status=").content.decode()
    assert f'hx-get="/tournaments/{event.pk}/registration-row/"' in lobby
    assert f"/tournaments/{closed.pk}/registration-row/" not in lobby


def test_the_lobby_row_card_is_the_viewers_own_and_registers(client, funded, event):
    row = client.get(f"/tournaments/{event.pk}/registration-row/", headers=HTMX).content.decode()
    assert row.startswith('<tr class="registration-row"')
    assert "Register: pay €11" in row
    response = client.post(f"/tournaments/{event.pk}/register/", {"form": "cash", "key": "row"}, headers=HTMX)
    assert "You are registered. Good luck!" in response.content.decode()
    again = client.get(f"/tournaments/{event.pk}/registration-row/", headers=HTMX).content.decode()
    assert "You are registered with" in again
    assert "Unregister" in again


def test_a_visitor_opening_a_lobby_card_logs_in_back_to_the_lobby(client, event):
    headers = {**HTMX, "HX-Current-URL": "http://testserver/?currency=EUR"}
    row = client.get(f"/tournaments/{event.pk}/registration-row/", headers=headers).content.decode()
    assert "/accounts/login/?next=/%3Fcurrency%3DEUR" in row
