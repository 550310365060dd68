"""live.throttle on the real cache (Redis): at most one message a second per
subject, the end-of-second message queued once, and what this process knows it
carries costs no read."""

import time
from types import SimpleNamespace

import pytest
from django.core.cache import cache

from live import throttle as throttle_module
from live.throttle import CARRY_MARGIN_SECONDS, THROTTLE_SECONDS, Throttle


class Task:
    """The end-of-second message's task, as queued."""

    def __init__(self):
        self.queued = []

    def apply_async(self, **options):
        self.queued.append(options)


@pytest.fixture(autouse=True)
def this_process(monkeypatch):
    """A process that has carried nothing yet."""
    monkeypatch.setattr(throttle_module, "_carried_until", {})


@pytest.fixture
def task():
    return Task()


@pytest.fixture
def event(task):
    return Throttle("tournament-7", task)


def changed(throttle: Throttle) -> bool:
    """A committed change, as the delivery decides it: read, then admit (sent at once?)."""
    return throttle.admit(cache.get_many(throttle.cache_keys()))


def test_the_first_change_goes_out_at_once(event, task):
    assert changed(event)
    assert task.queued == []
    assert not event.carried()


def test_the_seconds_other_changes_queue_one_message_at_its_end(event, task):
    assert changed(event)
    assert not changed(event)
    assert task.queued == [{"countdown": THROTTLE_SECONDS}]
    # This process knows that message carries its changes until shortly before it is due.
    assert event.carried()
    assert not changed(event)
    assert task.queued == [{"countdown": THROTTLE_SECONDS}]


def test_another_process_finding_the_message_queued_queues_no_other(event, task, monkeypatch):
    assert changed(event)
    assert not changed(event)
    monkeypatch.setattr(throttle_module, "_carried_until", {})  # another process, which carried nothing

    assert not changed(event)
    assert task.queued == [{"countdown": THROTTLE_SECONDS}]
    assert event.carried()  # it too knows, from the message's due time


def test_a_change_is_carried_until_shortly_before_the_message_is_due(event, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(throttle_module, "time", SimpleNamespace(monotonic=lambda: now[0], time=time.time))
    assert changed(event)
    assert not changed(event)

    now[0] += THROTTLE_SECONDS - CARRY_MARGIN_SECONDS - 0.05
    assert event.carried()
    now[0] += 0.1  # the message may be rendering now: a change is no longer taken as carried
    assert not event.carried()


def test_a_second_begun_by_another_process_since_the_read_is_not_sent_twice(event, task):
    found = cache.get_many(event.cache_keys())  # nothing sent yet when read
    assert changed(Throttle(event.subject, Task()))  # meanwhile, another process sent

    assert not event.admit(found)
    assert task.queued == [{"countdown": THROTTLE_SECONDS}]


def test_the_end_of_second_message_begins_the_next_second(event, task, monkeypatch):
    assert changed(event)
    assert not changed(event)

    event.trailing_began()  # the queued message is being sent
    monkeypatch.setattr(throttle_module, "_carried_until", {})  # (once it is due, nothing is carried)

    assert not changed(event)  # within the second it began: one more message at its end
    assert len(task.queued) == 2


def test_after_a_quiet_second_a_change_goes_out_at_once(event, task):
    assert changed(event)
    time.sleep(THROTTLE_SECONDS + 0.05)
    assert changed(event)
    assert task.queued == []


def test_each_subject_has_its_own_second(event, task):
    other = Throttle("tournament-8", task)
    assert changed(event)
    assert changed(other)
    assert task.queued == []


def test_a_change_that_is_not_urgent_waits_for_the_end_of_its_second(event, task):
    chips = Throttle(event.subject, task, leading=False)
    assert not changed(chips)  # a quiet second, yet not sent at once
    assert task.queued == [{"countdown": THROTTLE_SECONDS}]
    assert chips.carried()
    assert not changed(chips)
    assert len(task.queued) == 1
    # An urgent change in that second still goes out at once; the queued message follows.
    assert changed(event)
    assert not changed(event)
    assert len(task.queued) == 1
