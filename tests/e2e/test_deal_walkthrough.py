"""The README's deal walk-through on the demo's own data (tournaments.demo), step by
step as written, in real browsers with the demo's logins: alice asks for a deal on
*Final Table Deal Demo*, staff claim the ticket from the queue, every player says
yes, staff stop the clock and put a proposal, every player accepts, the players
play the rest out at their table, and Tournament Info shows what each player was
paid (rule 23)."""

from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from deals.models import Deal
from tests.e2e.test_live import LIVE, listening
from tournaments.demo import FINAL_TABLE_PLAYERS, LOGINS, demo_deal_load
from tournaments.models import Entry, Hand, HandStatus, Status, Tournament
from tournaments.selectors.replays import entry_of, replay
from tournaments.services.tables import hand_act, hand_report
from wallet.money import format_money

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORDS = {login.username: login.password for login in LOGINS}


def demo_log_in(page, username: str):
    """As the demo prints its logins."""
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORDS[username])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    return page


def test_the_readme_deal_walk_through_on_the_demo_data(migrated_data, asgi_page):
    event = demo_deal_load(now=timezone.now())
    info = f"/tournaments/{event.pk}/"
    ticket = f"URGENT Tournament #{event.pk} chop"
    players = {username: demo_log_in(asgi_page(), username) for username in FINAL_TABLE_PLAYERS}
    staff = demo_log_in(asgi_page(), "staff")

    # 1. Asking: alice presses "Ask for a deal" on Tournament Info; the urgent
    # ticket appears in the staff queue.
    alice = players["alice"]
    alice.goto(info)
    alice.get_by_role("button", name="Ask for a deal").click()
    expect(alice.get_by_role("heading", name=ticket)).to_be_visible()
    queue = listening(staff, "/support/tickets/")
    queue.get_by_role("link", name=ticket).click()
    negotiation = urlsplit(staff.url).path  # /deals/<n>/

    # 2. The clock: staff claim the ticket; every player says yes on the negotiation
    # page, which Tournament Info leads them to; then staff stop the clock.
    staff.get_by_role("button", name="Claim the ticket").click()
    for username, page in players.items():
        page.goto(info)
        page.get_by_role("link", name="Open the negotiation").click()
        expect(page).to_have_url(staff.url)
        yes = page.get_by_role("button", name="Yes, I want to negotiate")
        if username != "alice":  # asking was alice's yes
            yes.click()
    desk = listening(staff, negotiation)
    desk.get_by_role("button", name="Stop the clock").click()
    expect(desk.get_by_text("The clock is stopped: a deal is in progress.")).to_be_visible()

    # 3. Proposals: the mediator puts a chip-count chop.
    desk.get_by_label("How to share").select_option("chip_chop")
    desk.get_by_role("button", name="Put the proposal").click()

    # 4. Answers: each player accepts on their own screen; every party sees the deal.
    for page in players.values():
        page.goto(negotiation)
        page.get_by_role("button", name="Accept this deal").click()
    for page in players.values():
        expect(page.locator(".confirmation")).to_contain_text("Every player accepted", timeout=LIVE)
    deal = Deal.objects.get(tournament=event)

    # 5. Payment: the clock goes again and the players play the rest out at their
    # table (each move chosen for them here, through the same service as the
    # table page's buttons); everyone is paid once, at the end.
    for _ in range(2000):
        if Tournament.objects.get(pk=event.pk).status == Status.FINISHED:
            break
        for row in Hand.objects.filter(tournament=event, status__in=[HandStatus.PLAYING, HandStatus.FINISHED]):
            if row.status == HandStatus.FINISHED:
                hand_report(hand_id=row.pk, now=timezone.now())
                continue
            legal = replay(row).legal()
            # After a deal the players go all in: the rest is played for what was left.
            kind, amount = ("cbr", legal.max_to) if legal.min_to is not None else ("cc", None)
            player = Entry.objects.values_list("player_id", flat=True).get(pk=entry_of(row, legal.seat))
            hand_act(
                hand_id=row.pk, player_id=player, at=len(row.actions), kind=kind, amount=amount, now=timezone.now()
            )
    assert Tournament.objects.get(pk=event.pk).status == Status.FINISHED
    alice.goto(info)
    standings = alice.locator("table", has=alice.get_by_role("columnheader", name="Player"))
    for entry in Entry.objects.filter(tournament=event).select_related("player"):
        paid = deal.amounts[str(entry.pk)] + (deal.play_for if entry.finish_best == 1 else 0)
        assert entry.prize == paid
        row = standings.get_by_role("row").filter(has_text=entry.player.screen_name).first
        expect(row).to_contain_text(format_money(paid, "EUR"))
