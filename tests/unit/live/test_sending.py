"""live.sending: what synchronous code sends leaves in order, without waiting, on the
loop that serves the sockets or one of its own; a group's refreshes asked for before
the loop wakes leave in one message. A recording channel layer stands in for the
real ones (the sockets' tests, tests/integration/test_live.py, use those)."""

import asyncio
import collections
import json
import logging
import threading
import time

import pytest

from live import sending


class Layer:
    """Records each group_send, with the loop it ran on."""

    def __init__(self):
        self.sent: list[tuple[str, str]] = []
        self.loops: list[asyncio.AbstractEventLoop] = []
        self.arrived = threading.Condition()

    async def group_send(self, group, message):
        if group == "broken":
            raise ConnectionError("the channel layer is down")
        with self.arrived:
            self.sent.append((group, message["text"]))
            self.loops.append(asyncio.get_running_loop())
            self.arrived.notify_all()

    def wait(self, count: int) -> list[tuple[str, str]]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.sent) >= count, timeout=5)
        return self.sent


@pytest.fixture
def layer(monkeypatch):
    layer = Layer()
    monkeypatch.setattr(sending, "get_channel_layer", lambda: layer)
    loop = sending._SendingLoop()
    monkeypatch.setattr(sending, "_loop", loop)
    # A fresh queue and flushing lock each, whatever the last test's loops left behind
    # (the served loop of one is stopped by asyncio.run, not by ended()).
    monkeypatch.setattr(sending, "_texts", collections.deque())
    monkeypatch.setattr(sending, "_refreshes", {})
    monkeypatch.setattr(sending, "_flushing", threading.Lock())
    monkeypatch.setattr(sending, "_draining", False)
    yield layer
    if loop._own is not None:
        ended(loop._own)


def ended(loop: asyncio.AbstractEventLoop) -> None:
    """Stop and close a sending loop of its own (its thread returns), once the flushes
    asked for on it have run: a task left pending on a closed loop is destroyed later,
    in whichever test the garbage collector runs in, as an error there."""

    async def settled():
        others = asyncio.all_tasks() - {asyncio.current_task()}
        await asyncio.gather(*others)

    asyncio.run_coroutine_threadsafe(settled(), loop).result(timeout=5)
    loop.call_soon_threadsafe(loop.stop)
    deadline = time.monotonic() + 5
    while loop.is_running():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    loop.close()


def paused(loop: asyncio.AbstractEventLoop) -> threading.Event:
    """Keep `loop` busy until the event returned is set."""
    go_on = threading.Event()
    running = threading.Event()

    async def busy():
        running.set()
        go_on.wait()

    asyncio.run_coroutine_threadsafe(busy(), loop)
    assert running.wait(timeout=5)
    return go_on


def test_messages_leave_in_the_order_sent(layer):
    expected = [(f"group-{n % 3}", f"message {n}") for n in range(100)]
    for group, text in expected:
        sending.send(group, text)

    assert layer.wait(100) == expected


def test_a_groups_refreshes_asked_for_before_the_loop_wakes_leave_in_one_message(layer):
    go_on = paused(sending._loop.get())
    sending.send_refresh("user-1", ["registration-7"])
    sending.send_refresh("user-2", ["balances"])
    sending.send_refresh("user-1", ["balances", "registration-7"])
    go_on.set()

    sent = layer.wait(2)
    assert {group: json.loads(text) for group, text in sent} == {
        "user-1": {"refresh": ["registration-7", "balances"]},
        "user-2": {"refresh": ["balances"]},
    }
    assert len(sent) == 2


def test_a_message_that_cannot_be_sent_is_logged_and_the_next_ones_leave(layer, caplog):
    with caplog.at_level(logging.ERROR, logger="live.sending"):
        sending.send("broken", "lost")
        sending.send("lobby.en", "after")
        assert layer.wait(1) == [("lobby.en", "after")]
    assert "A live message to broken was not sent" in caplog.text


def test_messages_leave_on_the_loop_serving_the_sockets_while_it_runs(layer):
    async def serving():
        sending.serve_on_running_loop()  # a socket connected
        await asyncio.to_thread(sending.send, "lobby.en", "from a request's thread")
        await asyncio.to_thread(layer.wait, 1)
        return asyncio.get_running_loop()

    served = asyncio.run(serving())
    assert layer.loops == [served]

    sending.send("lobby.en", "after the server stopped")  # the served loop is closed: the loop of its own
    layer.wait(2)
    assert layer.loops[1] is not served
    assert layer.loops[1] is sending._loop.get()


def test_a_forked_process_sends_on_a_loop_of_its_own(layer, monkeypatch):
    parents = sending._loop.get()
    monkeypatch.setattr(sending.os, "getpid", lambda: -1)  # as in a worker's forked child

    sending.send("lobby.en", "from the child")
    layer.wait(1)
    assert layer.loops[0] is not parents
    ended(parents)
