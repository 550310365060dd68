"""The chop workflow of rule 23 through its services and pages: request, consent,
the clock stopped, proposals (rejected, withdrawn, accepted), the deal recorded and
paid through the wallet exactly once; and every refusal."""

from datetime import timedelta
from importlib import import_module
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.utils import timezone

from deals.models import Deal, Negotiation, NegotiationStatus, ProposalStatus
from deals.services import (
    chop_claim,
    chop_consent,
    chop_request,
    chop_stop_clock,
    negotiation_end,
    proposal_answer,
    proposal_create,
    proposal_withdraw,
)
from support.models import Ticket, TicketStatus
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants
from tournaments.models import BreakPolicyKind, Entry, EntryKind, Table, Tournament
from tournaments.services.clock import tournament_advance
from tournaments.services.floor import floor_pay_prizes
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import floor_hand_finished
from wallet.models import AccountKind
from wallet.services import AccountSpec, account_get, wallet_account_spec

pytestmark = pytest.mark.django_db


def final_table(count: int = 4, **fields):
    """An event started a minute ago whose players all sit at one table, payouts locked."""
    start = timezone.now() - timedelta(minutes=1)
    fields = {
        "table_size": 9,
        "break_policy": BreakPolicyKind.NONE,
        "late_registration_minutes": 0,
        "buy_in": 1000,
        "fee": 100,
        "prize_structure": "flat",
        "deal_leave_for_winner": 100,
    } | fields
    tournament = TournamentFactory(blind_structure=BlindStructureFactory(), scheduled_start=start, **fields)
    players = entrants(tournament, count, now=start - timedelta(minutes=10))
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    tournament.refresh_from_db()
    _moment["at"] = timezone.now()
    return tournament, players


# The tests' time, a second further at each step.
_moment = {"at": timezone.now()}


def now():
    _moment["at"] += timedelta(seconds=1)
    return _moment["at"]


def agreed_to_negotiate(tournament, players, staff):
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=now())
    for player in players[1:]:
        chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=now())
    chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now())
    return negotiation


def test_the_whole_workflow_from_request_to_a_deal_paid_once(staff):
    tournament, players = final_table(4)  # flat: 2,500 and 1,500 for four entrants of 1,000
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())

    ticket = Ticket.objects.get()
    assert ticket.title == f"URGENT Tournament #{tournament.pk} chop"
    assert ticket.status == TicketStatus.OPEN
    with pytest.raises(TournamentError, match="Claim the ticket first"):
        chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now())
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=now())
    with pytest.raises(TournamentError, match="Every player must say they want to negotiate"):
        chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now())
    for player in players[1:]:
        chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=now())
    chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now())
    tournament.refresh_from_db()
    assert tournament.paused_at is not None
    assert tournament.deal_in_progress

    # A rejected proposal, then a lopsided custom one that staff withdraw, then ICM accepted by all.
    icm = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", now=now())
    assert sum(icm.amounts.values()) == 4000 - 100  # the prizes less what is left to play for
    proposal_answer(proposal_id=icm.pk, player=players[0], accept=True, now=now())
    proposal_answer(proposal_id=icm.pk, player=players[1], accept=False, now=now())
    icm.refresh_from_db()
    assert icm.status == ProposalStatus.REJECTED
    entries = {e.player_id: e.pk for e in Entry.objects.filter(tournament=tournament)}
    lopsided = {entries[players[0].pk]: 3900, **{entries[p.pk]: 0 for p in players[1:]}}
    custom = proposal_create(
        negotiation_id=negotiation.pk, author=players[0], kind="custom", amounts=lopsided, now=now()
    )
    proposal_withdraw(
        proposal_id=custom.pk, staff=staff, reason="Lopsided: looks like chip dumping (rule 20).", now=now()
    )
    with pytest.raises(TournamentError, match="no longer open"):
        proposal_answer(proposal_id=custom.pk, player=players[1], accept=True, now=now())
    chips = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="chip_chop", now=now())
    for player in players:
        proposal_answer(proposal_id=chips.pk, player=player, accept=True, now=now())

    negotiation.refresh_from_db()
    assert negotiation.status == NegotiationStatus.AGREED
    deal = Deal.objects.get()
    assert (deal.staff, deal.play_for, deal.amounts) == (staff, 100, chips.amounts)
    tournament.refresh_from_db()
    # The tournament's own copy, which the floor pays from.
    agreed = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "deal_amount"))
    assert agreed == {int(pk): amount for pk, amount in chips.amounts.items()}
    assert tournament.deal_play_for == 100
    assert tournament.paused_at is None  # the clock goes again
    assert not tournament.deal_in_progress
    assert Ticket.objects.get().status == TicketStatus.CLOSED

    # Play on to the end: each gets the agreed amount, the winner the 100 left too; the pool ends empty.
    table = Table.objects.get(tournament=tournament, broken_at=None).number
    order = sorted(Entry.objects.filter(tournament=tournament), key=lambda e: e.pk)
    for loser in order[:3]:
        stacks = dict(
            Entry.objects.filter(table__number=table, table__tournament=tournament).values_list("pk", "chips")
        )
        stacks[order[3].pk] += stacks[loser.pk]
        stacks[loser.pk] = 0
        floor_hand_finished(tournament_id=tournament.pk, table=table, stacks=stacks, now=now())
    for entry in Entry.objects.filter(tournament=tournament).select_related("player"):
        expected = deal.amount_for(entry.pk) + (100 if entry.finish_best == 1 else 0)
        assert entry.prize == expected
        assert account_get(wallet_account_spec(entry.player_id, "EUR")).balance == expected
    assert (
        account_get(AccountSpec(kind=AccountKind.PRIZE_POOL, currency="EUR", ref=f"tournament:{tournament.pk}")).balance
        == 0
    )
    call_command("wallet_audit", stdout=StringIO())


def test_one_player_saying_no_ends_the_negotiation(staff):
    tournament, players = final_table(3)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    chop_consent(negotiation_id=negotiation.pk, player=players[1], wants=False, now=now())
    negotiation.refresh_from_db()
    assert negotiation.status == NegotiationStatus.ENDED
    assert Ticket.objects.get().status == TicketStatus.CLOSED
    # A new request may follow.
    assert chop_request(tournament_id=tournament.pk, player=players[2], now=now()).status == NegotiationStatus.ASKING


def test_staff_can_end_a_negotiation_and_the_clock_resumes(staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    negotiation_end(negotiation_id=negotiation.pk, staff=staff, reason="The players could not agree.", now=now())
    tournament.refresh_from_db()
    assert tournament.paused_at is None
    assert not tournament.deal_in_progress


def test_a_player_out_since_the_request_ends_the_negotiation(staff):
    tournament, players = final_table(3)
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=now())
    table = Table.objects.get(tournament=tournament).number
    stacks = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "chips"))
    first, second, _ = sorted(stacks)
    floor_hand_finished(
        tournament_id=tournament.pk,
        table=table,
        stacks=stacks | {first: 0, second: stacks[second] + stacks[first]},
        now=now(),
    )
    for player in players[1:]:
        if Entry.objects.get(tournament=tournament, player=player).finish_best is None:
            chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=now())
    # Everyone still in said yes, but the deal must include exactly the players left: it ends.
    with pytest.raises(TournamentError, match="A player has been eliminated"):
        chop_stop_clock(negotiation_id=negotiation.pk, staff=staff, now=now())
    negotiation.refresh_from_db()
    assert negotiation.status == NegotiationStatus.ENDED
    tournament.refresh_from_db()
    assert tournament.paused_at is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"deals_allowed": False, "deal_leave_for_winner": 0}, "Deals are not allowed"),
        ({"entry_kind": EntryKind.TMONEY, "currency": "TMY"}, "only made in real-money tournaments"),
        ({"late_registration_minutes": 30}, "needs the final payouts"),
    ],
)
def test_refusals_by_the_events_terms(fields, message):
    tournament, players = final_table(3, **fields)
    with pytest.raises(TournamentError, match=message):
        chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    assert not Negotiation.objects.exists()


def test_refused_before_the_final_table_and_in_a_multi_table_heads_up_event():
    tournament, players = final_table(12, table_size=6)
    with pytest.raises(TournamentError, match="Only the players at the final table"):
        chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    heads_up, players = final_table(4, table_size=2, heads_up=True)
    with pytest.raises(TournamentError, match="heads-up"):
        chop_request(tournament_id=heads_up.pk, player=players[0], now=now())


def test_only_players_left_and_the_claiming_staff_member_act(staff):
    tournament, players = final_table(3)
    with pytest.raises(TournamentError, match="still in the tournament"):
        chop_request(tournament_id=tournament.pk, player=UserFactory(), now=now())
    negotiation = chop_request(tournament_id=tournament.pk, player=players[0], now=now())
    with pytest.raises(TournamentError, match="already being negotiated"):
        chop_request(tournament_id=tournament.pk, player=players[1], now=now())
    chop_claim(negotiation_id=negotiation.pk, staff=staff, now=now())
    other = UserFactory(is_staff=True)
    with pytest.raises(TournamentError, match="Another staff member"):
        chop_claim(negotiation_id=negotiation.pk, staff=other, now=now())
    with pytest.raises(TournamentError, match="still in the tournament"):
        chop_consent(negotiation_id=negotiation.pk, player=UserFactory(), wants=True, now=now())


def test_a_custom_proposal_that_does_not_add_up_is_refused(staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    entries = list(Entry.objects.filter(tournament=tournament).values_list("pk", flat=True))
    with pytest.raises(TournamentError, match=r"add up to €30, €1 more than the €29 the deal shares"):
        proposal_create(
            negotiation_id=negotiation.pk, author=staff, kind="custom", amounts=dict.fromkeys(entries, 1000), now=now()
        )
    with pytest.raises(TournamentError, match="left to play for must be between"):
        proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", play_for=10**9, now=now())
    # The event leaves 1.00 for the winner (rule 23.5): a deal may leave more, never less.
    with pytest.raises(TournamentError, match=r"requires at least 1\.00 left to play for"):
        proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", play_for=99, now=now())
    assert not negotiation.proposals.exists()
    assert proposal_create(negotiation_id=negotiation.pk, author=staff, kind="icm", play_for=500, now=now())


# The pages


def test_the_pages_carry_the_workflow_and_refuse_who_has_no_part_in_it(client, staff):
    tournament, players = final_table(3)
    client.force_login(players[0])
    info = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Ask for a deal" in info
    response = client.post(f"/deals/tournaments/{tournament.pk}/request/")
    negotiation = Negotiation.objects.get()
    assert response["Location"] == f"/deals/{negotiation.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert f"URGENT Tournament #{tournament.pk} chop" in page
    assert "Waiting for a staff member" in page

    # Somebody else: not a participant, not staff.
    client.force_login(UserFactory())
    assert client.get(f"/deals/{negotiation.pk}/").status_code == 403
    assert client.post(f"/deals/{negotiation.pk}/claim/").status_code == 403
    client.logout()
    assert client.get(f"/deals/{negotiation.pk}/")["Location"].startswith("/accounts/login/")

    # The staff queue lists the ticket; claiming and stopping the clock need every yes.
    client.force_login(staff)
    queue = client.get("/support/tickets/").content.decode()
    assert f"URGENT Tournament #{tournament.pk} chop" in queue
    client.post(f"/deals/{negotiation.pk}/claim/")
    refused = client.post(f"/deals/{negotiation.pk}/stop-clock/", follow=True).content.decode()
    assert "Every player must say they want to negotiate" in refused
    for player in players[1:]:
        client.force_login(player)
        assert "Do you want to negotiate" in client.get(f"/deals/{negotiation.pk}/").content.decode()
        client.post(f"/deals/{negotiation.pk}/consent/", {"wants": "yes"})
    client.force_login(staff)
    client.post(f"/deals/{negotiation.pk}/stop-clock/")
    client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "equal", "play_for": "1.00"})
    proposal = negotiation.proposals.get()
    assert proposal.play_for == 100
    assert "Deal in progress" in client.get(f"/tournaments/{tournament.pk}/").content.decode()

    # A player may not put an ICM proposal (staff prepare those), only custom amounts.
    client.force_login(players[1])
    page = client.post(f"/deals/{negotiation.pk}/proposals/", {"kind": "icm"}, follow=True).content.decode()
    assert "Choose how to share" in page
    for player in players:
        client.force_login(player)
        assert "Accept this deal" in client.get(f"/deals/{negotiation.pk}/").content.decode()
        client.post(f"/deals/{negotiation.pk}/proposals/{proposal.pk}/answer/", {"answer": "accept"})
    page = client.get(f"/deals/{negotiation.pk}/").content.decode()
    assert "Deal agreed" in page
    assert Deal.objects.get().amounts == proposal.amounts


# The API


def test_the_api_lets_players_ask_consent_read_and_answer_with_clear_refusals(client, staff):
    tournament, players = final_table(3, deals_allowed=True)
    client.force_login(players[0])
    created = client.post(f"/api/v1/tournaments/{tournament.pk}/deal/")
    assert created.status_code == 201
    negotiation_id = created.json()["id"]
    assert created.json()["ticket"] == f"URGENT Tournament #{tournament.pk} chop"
    again = client.post(f"/api/v1/tournaments/{tournament.pk}/deal/")
    assert again.status_code == 400
    assert again.json() == {
        "code": "already_negotiating",
        "message": "A deal is already being negotiated in this tournament.",
    }

    client.force_login(UserFactory())
    assert client.get(f"/api/v1/deals/{negotiation_id}/").status_code == 403
    client.logout()
    assert client.get(f"/api/v1/deals/{negotiation_id}/").status_code == 401

    for player in players[1:]:
        client.force_login(player)
        answered = client.post(
            f"/api/v1/deals/{negotiation_id}/consent/", {"wants": True}, content_type="application/json"
        )
        assert answered.status_code == 200
    chop_claim(negotiation_id=negotiation_id, staff=staff, now=now())
    chop_stop_clock(negotiation_id=negotiation_id, staff=staff, now=now())
    proposal = proposal_create(negotiation_id=negotiation_id, author=staff, kind="icm", now=now())

    client.force_login(players[1])
    shown = client.get(f"/api/v1/deals/{negotiation_id}/").json()
    assert shown["proposal"]["id"] == proposal.pk
    assert sum(line["amount"] for line in shown["lines"]) == sum(proposal.amounts.values())
    bad = client.post(
        f"/api/v1/deals/{negotiation_id}/proposals/{proposal.pk}/answer/",
        {"accept": "perhaps"},
        content_type="application/json",
    )
    assert bad.status_code == 400
    rejected = client.post(
        f"/api/v1/deals/{negotiation_id}/proposals/{proposal.pk}/answer/",
        {"accept": False},
        content_type="application/json",
    )
    assert rejected.status_code == 200
    assert rejected.json()["proposal"] is None  # rejected: no proposal open
    late = client.post(
        f"/api/v1/deals/{negotiation_id}/proposals/{proposal.pk}/answer/",
        {"accept": True},
        content_type="application/json",
    )
    assert late.json()["code"] == "not_open"


def test_the_api_refuses_a_deal_where_the_lobby_says_no(client):
    tournament, players = final_table(3, deals_allowed=False, deal_leave_for_winner=0)
    client.force_login(players[0])
    refused = client.post(f"/api/v1/tournaments/{tournament.pk}/deal/")
    assert refused.status_code == 400
    assert refused.json()["code"] == "deals_disallowed"


def test_where_the_event_says_so_each_player_is_paid_the_agreed_amount_as_they_are_out(staff):
    tournament, players = final_table(3, deal_paid_at_bust=True)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="equal", now=now())
    for player in players:
        proposal_answer(proposal_id=proposal.pk, player=player, accept=True, now=now())
    deal = Deal.objects.get()
    table = Table.objects.get(tournament=tournament, broken_at=None).number
    stacks = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "chips"))
    out, winner, _ = sorted(stacks)
    floor_hand_finished(
        tournament_id=tournament.pk,
        table=table,
        stacks=stacks | {out: 0, winner: stacks[winner] + stacks[out]},
        now=now(),
    )
    busted = Entry.objects.select_related("player").get(pk=out)
    assert busted.finish_best == 3
    assert busted.prize == deal.amount_for(out)  # paid now, not at the end
    assert account_get(wallet_account_spec(busted.player_id, "EUR")).balance == deal.amount_for(out)
    # Paid once: the floor paying again changes nothing.
    floor_pay_prizes(tournament=tournament, now=now())
    assert account_get(wallet_account_spec(busted.player_id, "EUR")).balance == deal.amount_for(out)


def test_a_deal_made_before_the_tournament_kept_its_own_copy_is_paid_after_the_migration(staff):
    tournament, players = final_table(3)
    negotiation = agreed_to_negotiate(tournament, players, staff)
    proposal = proposal_create(negotiation_id=negotiation.pk, author=staff, kind="equal", now=now())
    for player in players:
        proposal_answer(proposal_id=proposal.pk, player=player, accept=True, now=now())
    deal = Deal.objects.get()
    # As the deal stood before deals wrote onto the entries and the tournament.
    Entry.objects.filter(tournament=tournament).update(deal_amount=None)
    Tournament.objects.filter(pk=tournament.pk).update(deal_play_for=None)

    import_module("deals.migrations.0002_deal_amounts_on_entries").copy_amounts(apps, None)

    table = Table.objects.get(tournament=tournament, broken_at=None).number
    stacks = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "chips"))
    winner = max(stacks)
    floor_hand_finished(
        tournament_id=tournament.pk,
        table=table,
        stacks={pk: sum(stacks.values()) if pk == winner else 0 for pk in stacks},
        now=now(),
    )
    for entry in Entry.objects.filter(tournament=tournament).select_related("player"):
        expected = deal.amount_for(entry.pk) + (deal.play_for if entry.pk == winner else 0)
        assert account_get(wallet_account_spec(entry.player_id, "EUR")).balance == entry.prize == expected
