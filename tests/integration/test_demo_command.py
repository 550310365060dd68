"""The README's run command, run for real: SQLite, in-process worker, demo data."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tournaments.demo import CANCELLED_EVENT, FINISHED_EVENT, REBUY_MADNESS_BEGAN

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def embedded_env(tmp_path) -> dict:
    env = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "HTTPS"}
    }
    env.update(
        SQLITE_PATH=str(tmp_path / "demo.sqlite3"), DJANGO_SETTINGS_MODULE="config.settings", CELERY_LOG_LEVEL="INFO"
    )
    return env


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310  (our own local server)
        return response.status, response.read().decode()


class Output:
    """The demo's output, read as it comes by a thread of its own: a pipe nobody
    read would fill and stop the demo at its next log line (its worker logs each
    task), freezing the server a test is watching."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[str] = []
        self.seen = 0  # lines a wait has gone past
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def wait_for(self, text: str, timeout: float) -> str:
        """The lines up to the first, after those seen, that holds `text`."""
        deadline = time.monotonic() + timeout
        with self.changed:
            start = self.seen
            while True:
                found = next((i for i in range(self.seen, len(self.lines)) if text in self.lines[i]), None)
                if found is not None:
                    self.seen = found + 1
                    return "".join(self.lines[start : found + 1])
                self.seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or not self.thread.is_alive():
                    raise AssertionError(f"{text!r} did not appear; output was:\n{''.join(self.lines[start:])}")
                self.changed.wait(left)

    def rest(self) -> str:
        self.thread.join(timeout=30)
        return "".join(self.lines[self.seen :])


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("demo")
    port = free_port()
    process = subprocess.Popen(  # noqa: S603  (our own manage.py)
        [sys.executable, "manage.py", "demo", "--port", str(port)],
        cwd=ROOT,
        env=embedded_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = Output(process)
    try:
        startup = output.wait_for("Press Ctrl-C to stop.", timeout=180)
        yield {
            "url": f"http://127.0.0.1:{port}/",
            "startup": startup,
            "process": process,
            "output": output,
            "tmp_path": tmp_path,
        }
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        output.thread.join(timeout=30)
        process.stdout.close()


def test_demo_prints_the_url_and_logins_with_balances(demo):
    assert "The poker room is open at http://127.0.0.1:" in demo["startup"]
    for username in ("admin", "staff", "alice", "bob"):
        assert f" {username} " in demo["startup"]
    # As the pages write money (wallet.money), not "EUR 500.00, TMY 25.00".
    assert "balances: €500, T$25" in demo["startup"]
    assert "balances: T$100, $1,000" in demo["startup"]


def test_demo_serves_the_lobby_info_api_and_static_files(demo):
    status, lobby = get(demo["url"])
    assert status == 200
    assert "Sunday Major" in lobby
    assert lobby.count('<td class="name">') >= 40
    tournament_path = lobby.split('<td class="name"><a href="/', 1)[1].split('"', 1)[0]
    status, info = get(demo["url"] + tournament_path)
    assert status == 200
    assert "Blind structure" in info
    assert get(demo["url"] + "api/v1/tournaments/")[0] == 200
    assert get(demo["url"] + "static/css/portal.css")[0] == 200
    status, danish = get(demo["url"] + "da/")
    assert status == 200
    assert '<html lang="da">' in danish


def test_demo_runs_the_clock_sweep_on_its_in_process_worker(demo):
    # Beat sends the sweep every 2 seconds; the worker thread logs each success.
    demo["output"].wait_for("tournaments.tasks.tournaments_sweep", timeout=20)
    demo["output"].wait_for("succeeded", timeout=20)


def test_the_demo_keeps_its_cpu_priority_with_its_worker_in_process(demo):
    # Only `celery worker` runs below the servers (config.celery); here the server is the worker.
    demo["output"].wait_for("succeeded", timeout=20)
    assert os.getpriority(os.PRIO_PROCESS, demo["process"].pid) == os.getpriority(os.PRIO_PROCESS, 0)


def test_the_demo_clock_starts_its_sprint_on_time_and_the_lobby_hears_of_it(demo):
    listed = json.loads(get(demo["url"] + "api/v1/tournaments/?q=Clock+Sprint")[1])["results"]
    (sprint,) = listed
    start = datetime.fromisoformat(sprint["scheduled_start"])
    assert sprint["status"] == "registering"
    ws_url = demo["url"].replace("http://", "ws://") + "ws/live/?groups=lobby.en"
    with connect(ws_url, origin=demo["url"].rstrip("/"), open_timeout=10) as lobby:
        wait = (start - datetime.now(UTC)).total_seconds() + 10
        row = f'id="lobby-row-{sprint["id"]}"'
        # The in-process worker starts it; the in-memory layer carries its new row to this socket.
        while not (row in (message := lobby.recv(timeout=wait)) and "Late registration" in message):
            pass
    assert datetime.now(UTC) - start < timedelta(seconds=5)
    status = json.loads(get(demo["url"] + f"api/v1/tournaments/{sprint['id']}/")[1])["status"]
    assert status == "late_registration"


def test_the_demo_has_a_final_table_where_alice_can_ask_for_a_deal(demo):
    (event,) = json.loads(get(demo["url"] + "api/v1/tournaments/?q=Final+Table+Deal")[1])["results"]
    # Its clock waits for the deal; every player is a demo login, who can consent.
    assert event["status"] == "paused"
    assert event["entrants"] == 4
    info = get(demo["url"] + event["info_url"].split("/", 3)[3])[1]
    assert "Waiting for the players to ask for a deal" in info
    for name in ("Alice", "Bob", "Carla", "Dmitri"):
        assert f">{name}<" in info


@pytest.mark.parametrize(
    ("name", "began", "level_minutes"), [("Deepstack Marathon", 75, 20), ("Rebuy Madness", REBUY_MADNESS_BEGAN, 12)]
)
def test_events_that_began_before_the_demo_show_the_level_their_schedule_says(demo, name, began, level_minutes):
    (event,) = json.loads(get(demo["url"] + f"api/v1/tournaments/?q={name.replace(' ', '+')}")[1])["results"]
    detail = json.loads(get(event["url"])[1])
    now = datetime.now(UTC)
    on_break = any(
        datetime.fromisoformat(b["starts_at"]) <= now < datetime.fromisoformat(b["ends_at"]) for b in detail["breaks"]
    )
    # Before: held at their first break since the start until the demo's hands began,
    # both said "On break" at level 1.
    assert (event["status"] == "on_break") == on_break
    assert detail["clock"]["level"] >= max(1, began // (level_minutes + 5))


def test_rebuy_madness_opens_its_add_on_minutes_after_the_demo_starts(demo):
    (event,) = json.loads(get(demo["url"] + "api/v1/tournaments/?q=Rebuy+Madness")[1])["results"]
    detail = json.loads(get(event["url"])[1])
    # The add-on is sold from the start of the last rebuy level to the end of the add-on break.
    last_rebuy_level = detail["levels"][detail["rebuy"]["levels"] - 1]
    opens = datetime.fromisoformat(last_rebuy_level["starts_at"])
    (addon_break,) = [b for b in detail["breaks"] if b["addon"]]
    closes = datetime.fromisoformat(addon_break["ends_at"])
    loaded = datetime.now(UTC)
    assert event["status"] in ("late_registration", "running", "on_break")
    # Within minutes (the break at :55 may come first), and for a whole level and the break.
    assert opens - loaded < timedelta(minutes=10)
    assert closes - max(opens, loaded) >= timedelta(minutes=12)


@pytest.mark.parametrize(("name", "status"), [(FINISHED_EVENT, "finished"), (CANCELLED_EVENT, "cancelled")])
def test_the_demo_opens_with_an_event_over_played_with_real_hands(demo, name, status):
    (event,) = json.loads(get(demo["url"] + f"api/v1/tournaments/?q={name.split(' €')[0].replace(' ', '+')}")[1])[
        "results"
    ]
    assert event["status"] == status
    # The default lobby lists it.
    assert name in get(demo["url"])[1]
    detail = json.loads(get(event["url"])[1])
    finished = detail["standings"]["finished"]
    # Its hands were played: a history to download and each hand's page to replay.
    history = get(demo["url"] + f"tournaments/{event['id']}/tables/1/hands.phh")[1]
    assert history.count("actions = [") >= 1
    if status == "finished":
        assert len(finished) == event["entrants"]
        assert sum(place["prize"] for place in finished) == detail["prize_pool"] > 0
        assert finished[0]["best"] == 1
    else:
        assert finished  # players were out before the cancellation
        info = get(demo["url"] + f"tournaments/{event['id']}/")[1]
        assert "Cancelled" in info


def test_the_demo_has_a_sit_and_go_open_for_each_template_and_its_bots_take_seats(demo):
    def listed() -> list[dict]:
        return json.loads(get(demo["url"] + "api/v1/tournaments/?kind=sit_and_go")[1])["results"]

    # Open: taking registrations with a seat left. One that has just filled is "registering"
    # until the clock's tick starts it, and its next is open already.
    open_now = [
        event["name"]
        for event in listed()
        if event["status"] in ("announced", "registering") and event["entrants"] < event["max_entrants"]
    ]
    # One open for each of the four.
    assert sorted(name.rsplit(" #", 1)[0] for name in open_now) == [
        "Heads-up Hyper €20",
        "Hyper 9-max €10",
        "Shootout 18 €10",
        "Turbo 6-max €5",
    ]
    deadline = time.monotonic() + 60  # the beat's bot comes every 20 s; a failure's deadline only
    while not any(event["entrants"] for event in listed()):
        assert time.monotonic() < deadline, "no bot took a seat in a Sit & Go"
        time.sleep(1)


def test_ctrl_c_stops_cleanly_and_a_second_run_reuses_the_data(demo):
    process = demo["process"]
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    rest = demo["output"].rest()
    assert process.returncode == 0, rest
    assert "Stopped." in rest
    second = subprocess.run(
        [sys.executable, "manage.py", "demo", "--no-serve"],
        cwd=ROOT,
        env=embedded_env(demo["tmp_path"]),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Reusing the demo data already in the database." in second.stdout
