"""Live in real browsers (issue 29): the lobby's Sit & Go tab counts the seats taken as
players register, and when one fills the next appears in its place; an open Leader
Board shows points the moment an event that counts awards them."""

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.test_live import LIVE, funded, listening, not_reloaded
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tournaments.models import Entry, SitAndGo, Status, Tournament
from tournaments.services.entries import entry_register
from tournaments.services.leader_boards import leader_board_award
from tournaments.services.sit_and_go import sit_and_gos_open

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_sit_and_go_tab_counts_seats_live_and_shows_the_next_when_one_fills(asgi_page):
    SitAndGo.objects.create(
        name="Heads-up", table_size=2, heads_up=True, buy_in=1000, fee=100, blind_structure=BlindStructureFactory()
    )
    (first,) = sit_and_gos_open(now=timezone.now())
    tab = listening(asgi_page(), "/?kind=sit_and_go")
    row = tab.locator(f"#lobby-row-{first.pk}")
    expect(row).to_contain_text("0 / 2")

    entry_register(tournament_id=first.pk, player=funded("alice"), now=timezone.now())
    expect(row.locator(".entrants")).to_have_text("1 / 2", timeout=LIVE)
    assert not_reloaded(tab)

    entry_register(tournament_id=first.pk, player=funded("bob"), now=timezone.now())  # the last seat
    following = Tournament.objects.get(sit_and_go=first.sit_and_go, name="Heads-up #2")
    expect(tab.locator(f"#lobby-row-{following.pk}")).to_contain_text("When full", timeout=LIVE)
    expect(tab.locator(f"#lobby-row-{following.pk} .entrants")).to_have_text("0 / 2")


def test_an_open_leader_board_shows_points_as_an_event_finishes(asgi_page):
    board = listening(asgi_page(), "/leader-boards/tournament/day/")
    expect(board.locator("#leader-board")).to_contain_text("No points earned in this period yet.")

    event = TournamentFactory(status=Status.FINISHED, entries_count=2, buy_in=1000)
    for place, name in ((1, "Winner"), (2, "Runner-up")):
        Entry.objects.create(tournament=event, player=UserFactory(screen_name=name), finish_best=place)
    leader_board_award(tournament=event, now=timezone.now())

    expect(board.locator("#leader-board tbody tr").first).to_contain_text("Winner", timeout=LIVE)
    expect(board.locator("#leader-board tbody tr")).to_have_count(2)
