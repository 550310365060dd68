"""A deal at the final table in real browsers (rule 23): two players and a staff
member in their own contexts on the ASGI server, each seeing the others' steps live:
the request reaching the staff queue, consent, a refused early clock stop, a
rejected proposal, a withdrawn one, and the deal every player accepts."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from deals.models import Negotiation
from deals.services import chop_claim, chop_consent, chop_request, proposal_answer
from tests.e2e.test_live import LIVE, listening, log_in, not_reloaded
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants
from tournaments.models import BreakPolicyKind
from tournaments.services.clock import tournament_advance

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def final_table(transactional_db):
    start = timezone.now() - timedelta(minutes=1)
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        name="Final Table Freezeout",
        scheduled_start=start,
        table_size=9,
        break_policy=BreakPolicyKind.NONE,
        late_registration_minutes=0,
        buy_in=1000,
        fee=100,
        prize_structure="flat",
        deal_leave_for_winner=100,
    )
    players = entrants(tournament, 3, now=start - timedelta(minutes=10))
    for player, name in zip(players, ("alice", "bob", "carol"), strict=True):
        player.username, player.screen_name = name, name.capitalize()
        player.save()
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    return tournament, players


def test_players_and_staff_negotiate_a_deal_live(asgi_page, final_table):
    tournament, (_, _, carol) = final_table
    UserFactory(username="sam", screen_name="Sam", is_staff=True)
    staff = asgi_page()
    log_in(staff, "sam")
    queue = listening(staff, "/support/tickets/")
    expect(queue.locator("#tickets")).to_contain_text("No open tickets")

    # Alice asks from Tournament Info; the ticket reaches the staff queue without a reload.
    player = asgi_page()
    log_in(player, "alice")
    player.goto(f"/tournaments/{tournament.pk}/")
    player.get_by_role("button", name="Ask for a deal").click()
    expect(player.get_by_role("heading", name=f"URGENT Tournament #{tournament.pk} chop")).to_be_visible()
    expect(queue.locator("#tickets")).to_contain_text(f"URGENT Tournament #{tournament.pk} chop", timeout=LIVE)
    assert not_reloaded(queue)
    negotiation = Negotiation.objects.get()

    queue.get_by_role("link", name=f"URGENT Tournament #{tournament.pk} chop").click()
    desk = listening(staff, f"/deals/{negotiation.pk}/")
    desk.get_by_role("button", name="Claim the ticket").click()
    # Too early: Bob and Carol have not said yes (rule 23.3).
    desk.get_by_role("button", name="Stop the clock").click()
    expect(desk.get_by_text("Every player must say they want to negotiate")).to_be_visible()

    other = asgi_page()
    log_in(other, "bob")
    bobs = listening(other, f"/deals/{negotiation.pk}/")
    bobs.get_by_role("button", name="Yes, I want to negotiate").click()
    chop_consent(negotiation_id=negotiation.pk, player=carol, wants=True, now=timezone.now())
    desk = listening(desk, f"/deals/{negotiation.pk}/")
    desk.get_by_role("button", name="Stop the clock").click()
    expect(desk.get_by_text("The clock is stopped: a deal is in progress.")).to_be_visible()

    # An ICM proposal reaches Bob's screen live; he rejects it, and the staff member sees that.
    bobs = listening(bobs, f"/deals/{negotiation.pk}/")
    desk.get_by_label("How to share").select_option("icm")
    desk.get_by_role("button", name="Put the proposal").click()
    expect(bobs.get_by_role("heading", name="Proposal: ICM")).to_be_visible(timeout=LIVE)
    assert not_reloaded(bobs)
    bobs.get_by_role("button", name="Reject").click()
    desk = listening(desk, f"/deals/{negotiation.pk}/")
    expect(desk.locator(".history")).to_contain_text("Rejected by Bob")

    # An equal split, withdrawn by staff as lopsided; then a chip chop everyone accepts.
    desk.get_by_label("How to share").select_option("equal")
    desk.get_by_role("button", name="Put the proposal").click()
    desk.locator("form.withdraw").get_by_label("Reason").fill("Lopsided for the chip leader (rule 1).")
    desk.get_by_role("button", name="Withdraw the proposal").click()
    expect(desk.locator(".history")).to_contain_text("Lopsided for the chip leader")
    desk.get_by_label("How to share").select_option("chip_chop")
    desk.get_by_role("button", name="Put the proposal").click()
    proposal = negotiation.proposals.get(status="open")
    proposal_answer(proposal_id=proposal.pk, player=carol, accept=True, now=timezone.now())
    player.goto(f"/deals/{negotiation.pk}/")
    player.get_by_role("button", name="Accept this deal").click()
    bobs = listening(bobs, f"/deals/{negotiation.pk}/")
    bobs.get_by_role("button", name="Accept this deal").click()
    expect(bobs.locator(".confirmation")).to_contain_text("Every player accepted")
    expect(player.locator(".confirmation")).to_contain_text("Every player accepted", timeout=LIVE)
    # The clock goes again; Tournament Info no longer says a deal is in progress.
    player.goto(f"/tournaments/{tournament.pk}/")
    expect(player.locator(f"#status-{tournament.pk}")).not_to_have_text("Deal in progress")
    expect(player.locator(f"#deal-card-{tournament.pk}")).to_contain_text("A deal was made")


def test_a_refused_clock_stop_goes_from_the_page_once_every_player_has_said_yes(asgi_page, final_table):
    tournament, (alice, bob, carol) = final_table
    sam = UserFactory(username="sam", screen_name="Sam", is_staff=True)
    negotiation = chop_request(tournament_id=tournament.pk, player=alice, now=timezone.now())
    chop_claim(negotiation_id=negotiation.pk, staff=sam, now=timezone.now())
    desk = asgi_page()
    log_in(desk, "sam")
    desk = listening(desk, f"/deals/{negotiation.pk}/")
    desk.get_by_role("button", name="Stop the clock").click()
    refusal = desk.get_by_text("Every player must say they want to negotiate")
    expect(refusal).to_be_visible()
    expect(desk.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)
    desk.evaluate("window.notReloaded = true")

    for player in (bob, carol):
        chop_consent(negotiation_id=negotiation.pk, player=player, wants=True, now=timezone.now())

    # The card shows every yes, live, and the refusal about the earlier state has gone.
    expect(desk.get_by_text("Every player wants to negotiate: the mediator stops the clock next.")).to_be_visible(
        timeout=LIVE
    )
    expect(refusal).to_have_count(0)
    assert not_reloaded(desk)


def test_the_deal_pages_tables_are_styled_like_the_sites_others(asgi_page, final_table):
    tournament, (alice, _, _) = final_table
    negotiation = chop_request(tournament_id=tournament.pk, player=alice, now=timezone.now())
    page = asgi_page()
    log_in(page, "alice")
    page.goto(f"/deals/{negotiation.pk}/")
    info = asgi_page()
    info.goto(f"/tournaments/{tournament.pk}/")

    def looks(target, selector: str) -> dict:
        return target.locator(selector).first.evaluate(
            """cell => { const style = getComputedStyle(cell), table = getComputedStyle(cell.closest("table"));
                return {collapse: table.borderCollapse, border: style.borderBottomStyle, padding: style.paddingLeft,
                        head: getComputedStyle(cell.closest("table").querySelector("th")).color}; }"""
        )

    players = looks(page, "table.participants td")
    payouts = looks(info, "table.payouts td")
    assert players == payouts
    assert players["collapse"] == "collapse"
    assert players["border"] == "solid"
