"""Playing at a table in real Chromium (issue 14): a person logs in, goes to their
table from My tournaments, sees their own two cards, acts with the buttons (a check
or call, and a bet or raise sized with the slider and a preset) against bots, sees
the hand end without a reload and finds it in the table's last hands, on its own
page and in its PHH history. The bots play through the services: those whose turns
follow the person's at once, in the same request; the others, and each finished
hand's report to the floor, in a real Celery worker. And when the floor moves a
player to another table, their page follows them there."""

import json
import re
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from lobby.templatetags.poker import card
from tests.e2e.test_clock import wait_for
from tests.e2e.test_live import LIVE, listening, log_in, not_reloaded
from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory, entrants, registered, under_way
from tests.integration.test_clock_worker import Worker
from tournaments.models import Entry, Hand, HandStatus
from tournaments.selectors.replays import entry_of, replay
from tournaments.services.clock import tournament_advance
from tournaments.services.tables import entry_sit_out, hand_act, hand_report
from tournaments.templatetags.chips import chips

pytestmark = pytest.mark.django_db(transaction=True)

# Hands until the person has both checked or called and bet or raised in one hand:
# the bots' choices are random, so it may take more than one.
MOST_HANDS = 12
# The next hand is reported, dealt and played by the bots up to the person's turn:
# a failure's deadline only.
TURN = 30_000  # ms


@pytest.fixture
def worker(asgi_server, tmp_path):
    """A real Celery worker (with beat) on this test's database: it plays the bots'
    turns that no action of the person's plays at once, and reports each finished
    hand to the floor, which deals the next."""
    # Tasks queued by earlier tests name their own tournaments: start from an empty broker.
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    worker = Worker(tmp_path)
    worker.start()
    yield worker
    worker.kill()


@pytest.fixture
def against_bots(worker):
    """Alice and two bots at one table of an event that has just started, with time
    enough to act."""
    start = timezone.now() + timedelta(seconds=1)
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        name="Evening Freezeout",
        scheduled_start=start,
        table_size=3,
        break_policy="none",
        action_seconds=120,
    )
    alice = UserFactory(username="alice", screen_name="Alice")
    bots = [UserFactory(username=f"bot{n}", screen_name=f"Bot {n}", is_bot=True) for n in (1, 2)]
    registered(tournament, alice, *bots)
    wait_for(start)
    tournament_advance(tournament_id=tournament.pk, now=timezone.now())
    return tournament, alice


def turn_of(page, tournament_id: int, done: list[list[int]]):
    """Wait until it is the person's turn in a spot not acted on yet; its hand and
    the actions so far."""
    own = f"#own-seat-{tournament_id} form.actions"
    page.wait_for_function(
        f"""() => {{
            const form = document.querySelector({json.dumps(own)});
            if (!form) return false;
            const spot = [form.elements.hand.value, form.elements.at.value].map(Number);
            return !{json.dumps(done)}.some(([hand, at]) => hand === spot[0] && at === spot[1]);
        }}""",
        timeout=TURN,
    )
    form = page.locator(own)
    return form, int(form.locator("input[name=hand]").input_value()), int(form.locator("input[name=at]").input_value())


def pressed(page, button) -> None:
    """Press one of the table's action buttons and wait for the answer: by then the
    bots whose turns follow have played theirs."""
    with page.expect_response(re.compile(r"/act/$")) as answer:
        button.click()
    assert answer.value.ok, answer.value.text()


def test_a_player_plays_a_hand_with_the_buttons_against_bots_and_finds_it_in_the_history(asgi_page, against_bots):
    tournament, alice = against_bots
    entry = Entry.objects.get(tournament=tournament, player=alice)
    page = asgi_page()
    log_in(page, "alice")

    page.get_by_role("link", name="My tournaments").click()
    page.locator(f"#mine-{tournament.pk}").get_by_role("link", name="Go to my table").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Table {entry.table.number}")
    expect(page.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)
    page.evaluate("window.notReloaded = true")

    done: list[list[int]] = []  # the spots acted on: [hand, actions so far]
    chosen: dict[int, list[str]] = {}  # by hand: "cc" and "cbr" as the person chose them
    raised_to = played = None
    for _ in range(MOST_HANDS * 4):
        form, hand_id, at = turn_of(page, tournament.pk, done)
        done.append([hand_id, at])
        row = Hand.objects.get(pk=hand_id)
        hand = replay(row)
        seat = next(int(seat) for seat, pk in row.seats.items() if int(pk) == entry.pk)
        # The cards on the page are the ones the stored deck dealt to the person's seat.
        expect(page.locator(".hole-cards .playing-card")).to_have_text([card(code) for code in hand.hole_cards(seat)])
        legal, mine = hand.legal(), chosen.setdefault(hand_id, [])
        if not mine and legal.call * 10 <= hand.stack(seat):
            name = "Check" if legal.can_check else re.compile(r"^Call ")
            pressed(page, form.get_by_role("button", name=name))
            mine.append("cc")
        elif mine == ["cc"] and form.locator("[data-amount-preset]").count():
            form.get_by_role("slider").fill(str(legal.max_to))  # the slider fills in the amount
            expect(form.get_by_role("spinbutton")).to_have_value(str(legal.max_to))
            # Half the pot, unless it comes to the minimum or all in: then it is offered under that name.
            sizes = form.locator("[data-amount-preset]")
            offered = sizes.all_inner_texts()
            preset = sizes.nth(offered.index("½ pot") if "½ pot" in offered else 0)
            raised_to = int(preset.get_attribute("data-amount-preset"))
            preset.click()
            expect(form.get_by_role("spinbutton")).to_have_value(str(raised_to))
            pressed(page, form.get_by_role("button", name=re.compile(r"^(Bet|Raise)$")))
            mine.append("cbr")
        else:
            pressed(page, form.get_by_role("button", name="Check" if legal.can_check else "Fold"))
        if mine == ["cc", "cbr"]:
            played = hand_id
        # The hand she bet in is over: every turn in it is played (by her or the bots).
        if played is not None and Hand.objects.get(pk=played).status != HandStatus.PLAYING:
            break
    assert played is not None, chosen

    # The hand's result, live: it heads the table's last hands, with who won what.
    link = page.get_by_role("link", name=f"Hand #{played}", exact=True)
    recent = page.locator(".recent-hands li").filter(has=link)
    expect(recent).to_contain_text("won", timeout=LIVE)
    assert not_reloaded(page)

    # Its own page: her cards, her actions as she chose them, the deck's proof, its PHH.
    recent.get_by_role("link", name=f"Hand #{played}", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Hand #{played} at table {entry.table.number}")
    row = Hand.objects.get(pk=played)
    hand = replay(row)
    seat = next(int(seat) for seat, pk in row.seats.items() if int(pk) == entry.pk)
    cards = hand.hole_cards(seat)
    # The players list (the replayer below it shows the same cards, step by step).
    players = page.get_by_role("table").first.get_by_role("row").filter(has_text="Alice")
    expect(players.locator(".playing-card")).to_have_text([card(code) for code in cards])
    log = page.locator(".actions-log")
    expect(log).to_contain_text(re.compile(r"Alice (checks|calls [\d,]+)"))
    expect(log).to_contain_text(re.compile(rf"Alice (bets|raises to) {re.escape(chips(raised_to))}"))
    expect(page.get_by_text("Verified: the deck dealt is the deck committed to.")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download this hand (PHH)").click()
    history = download.value.path().read_text()
    player = hand.seats.index(seat) + 1  # p1 is the first seat after the button
    assert f"d dh p{player} {''.join(cards)}" in history
    assert f"p{player} cbr {raised_to}" in history
    assert "'Alice'" in history


def test_a_player_moved_to_another_table_is_taken_there(asgi_page):
    """Every player of table 1 has their table open; it finishes its hand and gives
    one of them to a new table (rule 16): his page goes there, the others' stay."""
    start = timezone.now()
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=start + timedelta(minutes=5), table_size=3
    )
    entrants(tournament, 6, now=start)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)  # two full tables
    entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))  # alone at a new table 3
    seated = Entry.objects.filter(table__tournament=tournament, table__number=1).select_related("player")
    seats = {entry.pk: entry.seat for entry in seated}
    pages = {}
    for entry in seated:
        pages[entry.pk] = page = asgi_page()
        log_in(page, entry.player.username)
        listening(page, f"/tournaments/{tournament.pk}/tables/1/")
        expect(page.locator(f"#own-seat-{tournament.pk}")).to_contain_text("Your stack")

    row = Hand.objects.get(tournament=tournament, table__number=1, status=HandStatus.PLAYING)
    while row.status == HandStatus.PLAYING:  # each player checks or folds, as on the clock
        kind = replay(row).timeout_action().kind
        player = Entry.objects.get(pk=entry_of(row, row.to_act)).player_id
        row = hand_act(hand_id=row.pk, player_id=player, at=len(row.actions), kind=kind, now=row.started_at).hand
    hand_report(hand_id=row.pk, now=row.ended_at)

    moved = Entry.objects.get(tournament=tournament, times_moved=1)
    assert moved.table.number == 3
    page = pages.pop(moved.pk)
    expect(page).to_have_url(re.compile(rf"/tournaments/{tournament.pk}/tables/3/$"), timeout=LIVE)
    expect(page.get_by_role("heading", level=1)).to_have_text("Table 3")
    expect(page.locator(f"#own-seat-{tournament.pk}")).to_contain_text("Your stack")
    for stayed in pages.values():
        # His seat is empty at table 1, for those still there.
        expect(stayed.locator(f'.seat[data-seat="{seats[moved.pk]}"]')).to_contain_text("Empty", timeout=LIVE)
        assert stayed.url.endswith(f"/tournaments/{tournament.pk}/tables/1/")
        assert not_reloaded(stayed)


def test_the_amount_a_player_is_choosing_stays_when_the_table_changes_around_him(asgi_page):
    """On his turn he types a raise; meanwhile another player sits out, and his own
    part is sent to him again: what he typed stays, and is what he raises to."""
    tournament = under_way(*(UserFactory() for _ in range(3)))
    row = Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING)
    mover = Entry.objects.select_related("player").get(pk=entry_of(row, row.to_act))
    other = Entry.objects.filter(tournament=tournament).exclude(pk=mover.pk).first()
    page = asgi_page()
    # Counts the messages that bring his own part (the page's socket, as the browser receives them).
    page.add_init_script(
        """(() => { const Native = window.WebSocket; window.ownSent = 0;
            window.WebSocket = function (url, protocols) {
                const socket = new Native(url, protocols);
                socket.addEventListener("message", (event) => {
                    if (String(event.data).includes('class="card wide own-seat"')) window.ownSent += 1; });
                return socket; };
            window.WebSocket.prototype = Native.prototype; })()"""
    )
    log_in(page, mover.player.username)
    listening(page, f"/tournaments/{tournament.pk}/tables/1/")
    form = page.locator(f"#own-seat-{tournament.pk} form.actions")
    legal = replay(row).legal()
    amount = legal.min_to + 35
    form.get_by_role("spinbutton").fill(str(amount))
    sent_before = page.evaluate("() => window.ownSent")

    entry_sit_out(tournament_id=tournament.pk, player_id=other.player_id, sitting_out=True, now=row.started_at)

    expect(page.locator(f'.seat[data-seat="{other.seat}"]')).to_contain_text("Sitting out", timeout=LIVE)
    page.wait_for_function(f"() => window.ownSent > {sent_before}", timeout=LIVE)
    expect(form.get_by_role("spinbutton")).to_have_value(str(amount))
    pressed(page, form.get_by_role("button", name="Raise", exact=True))
    assert Hand.objects.get(pk=row.pk).actions[0] == [row.to_act, "cbr", amount]
