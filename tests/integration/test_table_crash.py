"""Rule 22 with real processes: a Celery worker (with beat) on Redis and PostgreSQL
is killed (SIGKILL) in the middle of a hand, after a player has bet, and started
again. The hand loses nothing: by the event's policy it goes on from its record
(the lost deadline fired by the sweep) or it is rolled back, every player's chips
as they were at its start, and dealt again. The test waits for states, never for
a speed: each wait's deadline only bounds a failure. The web server (gunicorn, the
Procfile's `web` line) is killed the same way between two players' actions.
"""

# ruff: noqa: S603, S607  (runs the repository's own Procfile)

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
import redis
from django.conf import settings
from django.utils import timezone
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from audit.models import AuditEntry
from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tests.integration.test_live import session_cookie
from tests.integration.test_production_stack import ROOT, free_port, get, procfile
from tests.tables import in_play, started
from tests.worker import Worker, database_url
from tournaments.models import BreakPolicyKind, CrashPolicy, Entry, Hand, HandStatus
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import entry_of, replay
from tournaments.services.tables import STALLED_REASON, hand_act

pytestmark = pytest.mark.django_db(transaction=True)

PATIENCE = 120
STACK = 1000


@pytest.fixture
def worker(tmp_path):
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    # A turn one second past its deadline counts as stalled: the test need not wait 30 s.
    worker = Worker(tmp_path, env={"TABLE_HAND_GAP_SECONDS": "0.5", "TABLE_STALLED_SECONDS": "1"})
    worker.start()
    yield worker
    worker.kill()


def waited(condition, worker: Worker, what: str):
    deadline = time.monotonic() + PATIENCE
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} did not happen\n{worker.log()}"
        time.sleep(0.2)
    return found


def first_hand_bet_then_killed(worker: Worker, policy: str) -> tuple[Hand, int]:
    """Three people at a table, started by the worker; the first to act raises, and
    the worker is killed before anything else happens. Returns the hand and the
    chips on the table."""
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(levels=[(10, 20, 0, 10)]),
        scheduled_start=timezone.now() + timedelta(seconds=2),
        status="registering",
        break_policy=BreakPolicyKind.NONE,
        starting_stack=STACK,
        action_seconds=3,
        time_bank_seconds=0,
        crash_policy=policy,
        table_size=3,
    )
    entrants(tournament, 3)
    row = waited(
        lambda: Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).first(),
        worker,
        "the first hand",
    )
    player = Entry.objects.get(pk=entry_of(row, row.to_act)).player_id
    row = hand_act(
        hand_id=row.pk, player_id=player, at=0, kind=ActionKind.BET_RAISE.value, amount=60, now=timezone.now()
    ).hand
    worker.kill(signal.SIGKILL)
    assert row.status == HandStatus.PLAYING
    assert row.deadline_at is not None
    # Its deadline passes, and the sweep's margin for a lost task, while no worker runs.
    time.sleep(max(0.0, (row.deadline_at - timezone.now()).total_seconds()) + 6)
    return row, 3 * STACK


def test_a_killed_worker_s_hand_goes_on_from_its_record(worker):
    row, total = first_hand_bet_then_killed(worker, CrashPolicy.PLAY_ON)
    raised = row.actions[0]

    worker.start()

    def reported():
        row.refresh_from_db()
        return row.status == HandStatus.REPORTED

    waited(reported, worker, "the hand's end")
    assert row.actions[0] == raised  # the bet made before the kill stands
    assert len(row.actions) > 1  # the lost deadline fired: the next player, facing a bet, folded
    assert {str(seat): chips for seat, chips in replay(row).result().stacks.items()} == row.result["stacks"]
    assert sum(Entry.objects.filter(tournament=row.tournament).values_list("chips", flat=True)) == total
    assert not AuditEntry.objects.filter(action="tournaments.hands.rolled_back").exists()


def test_a_killed_worker_s_hand_is_rolled_back_where_the_event_says_so(worker):
    row, total = first_hand_bet_then_killed(worker, CrashPolicy.ROLL_BACK)

    worker.start()

    def voided():
        row.refresh_from_db()
        return row.status == HandStatus.VOIDED

    waited(voided, worker, "the roll back")
    assert row.voided_reason == STALLED_REASON
    again = Hand.objects.filter(table=row.table, pk__gt=row.pk).order_by("pk").first()
    assert again is not None
    # Dealt again from the chips of the voided hand's start, the raise given back.
    assert again.setup["stacks"] == row.setup["stacks"] == dict.fromkeys(row.setup["stacks"], STACK)
    assert again.setup["button"] == row.setup["button"]
    assert sum(Entry.objects.filter(tournament=row.tournament).values_list("chips", flat=True)) == total
    audit = AuditEntry.objects.get(action="tournaments.hands.rolled_back")
    assert (audit.actor, audit.data["hands"]) == (None, [row.pk])


# The web and ws processes: the Procfile's `web` (gunicorn) and `ws` (uvicorn) lines
# on this test's database and Redis.


class Server:
    """A Procfile line (`web` or `ws`) as production runs it, on a free port, against
    this test's database and Redis; killed with SIGKILL like a crashed server."""

    def __init__(self, tmp: Path, name: str):
        self.tmp, self.name, self.port, self.starts = tmp, name, free_port(), 0
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.starts += 1
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "PORT": str(self.port),
            "WS_PORT": str(self.port),
            "BIND_ADDRESS": "127.0.0.1",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        log = (self.tmp / f"{self.name}-{self.starts}.log").open("wb")
        self.proc = subprocess.Popen(
            ["bash", "-c", f"exec {procfile()[self.name]}"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + PATIENCE
        while True:
            assert self.proc.poll() is None, f"the {self.name} server exited\n{self.log()}"
            with contextlib.suppress(OSError):
                if get(self.port, "/healthz", timeout=5)[0] == 200:
                    return
            assert time.monotonic() < deadline, f"the {self.name} server did not start\n{self.log()}"
            time.sleep(0.2)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=15)

    def log(self) -> str:
        return "\n".join(
            (self.tmp / f"web-{n}.log").read_text(errors="replace")[-3000:] for n in range(1, self.starts + 1)
        )

    def post(self, path: str, data: dict[str, str], cookie: str) -> int:
        """A signed-in browser's form post (its CSRF cookie and token as a header)."""
        token = "t" * 32
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(
                "POST",
                path,
                body=urlencode(data),
                headers={
                    "Cookie": f"{cookie}; {settings.CSRF_COOKIE_NAME}={token}",
                    "X-CSRFToken": token,
                    "Content-Type": "application/x-www-form-urlencoded",
                    "HX-Request": "true",
                },
            )
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()


@pytest.fixture
def server(tmp_path):
    """Starts a Procfile line's server; each is killed at the end."""
    servers: list[Server] = []

    def start(name: str) -> Server:
        servers.append(Server(tmp_path, name))
        servers[-1].start()
        return servers[-1]

    yield start
    for started_server in servers:
        started_server.kill()


def test_a_killed_web_server_loses_no_action_and_the_hand_goes_on_through_the_next(server):
    web = server("web")
    tournament, _ = started([STACK] * 3, action_seconds=120)
    row = in_play(tournament)
    path = f"/tournaments/{tournament.pk}/tables/1/act/"

    def through_the_web(row: Hand, kind: str, amount: int | None = None) -> Hand:
        player = Entry.objects.get(pk=entry_of(row, row.to_act)).player
        data = {"hand": str(row.pk), "at": str(len(row.actions)), "kind": kind}
        if amount is not None:
            data["amount"] = str(amount)
        status = web.post(path, data, session_cookie(player).decode())
        assert status == 200, web.log()
        row.refresh_from_db()
        return row

    row = through_the_web(row, ActionKind.BET_RAISE.value, 60)
    web.kill()  # mid-hand: the raise is in, the others have not acted
    web.start()
    row = through_the_web(row, ActionKind.CHECK_CALL.value)

    assert [action[1] for action in row.actions] == ["cbr", "cc"]
    assert row.status == HandStatus.PLAYING
    played = replay(row)
    assert played.pot_total == 60 + 60 + 20  # the raise, the call and the big blind still in: nothing lost
    assert sum(Entry.objects.filter(tournament=tournament).values_list("chips", flat=True)) == 3 * STACK


def test_a_killed_ws_server_s_watchers_reconnect_to_the_next_and_hear_the_hand_go_on(server):
    ws = server("ws")
    tournament, _ = started([STACK] * 3, action_seconds=120)
    row = in_play(tournament)
    # The whole table, or, while its hand goes on, the seats and the felt that changed.
    parts = (f'id="table-{tournament.pk}-1"', f'id="seat-{tournament.pk}-1-', f'id="felt-{tournament.pk}-1"')

    def watching():
        url = f"ws://127.0.0.1:{ws.port}/ws/live/?groups=table-{tournament.pk}-1.en"
        return connect(url, origin="http://localhost", open_timeout=30, close_timeout=5)

    def heard_after(socket, action) -> str:
        action()
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            text = socket.recv(timeout=PATIENCE)
            if any(part in text for part in parts):
                return text
        pytest.fail(f"the table's update did not come\n{ws.log()}")

    def acting(kind: str, amount: int | None = None):
        def act() -> None:
            nonlocal row
            player = Entry.objects.get(pk=entry_of(row, row.to_act)).player_id
            at = len(row.actions)
            row = hand_act(hand_id=row.pk, player_id=player, at=at, kind=kind, amount=amount, now=timezone.now()).hand

        return act

    with watching() as first:
        assert "60" in heard_after(first, acting(ActionKind.BET_RAISE.value, 60))
        ws.kill()  # mid-hand, with a page watching
        with pytest.raises(ConnectionClosed):
            first.recv(timeout=PATIENCE)
    ws.start()
    with watching() as second:  # the page reconnects to the next process
        heard_after(second, acting(ActionKind.CHECK_CALL.value))

    assert [action[1] for action in row.actions] == ["cbr", "cc"]
    assert sum(Entry.objects.filter(tournament=tournament).values_list("chips", flat=True)) == 3 * STACK
