"""A committed transaction's events, delivered to the pages in one go.

Each publisher (lobby.live, deals.live) turns the events into messages: a Part (text
for a group, rendered only if somebody listens, maybe throttled) or a Refresh (the
names of what a player's own group, or staff's, fetches again). Then one cache read
finds which of all their groups somebody listens to (with the throttle's keys),
and only those are rendered and sent: a player's refreshes of one commit in one
message.
"""

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.core.cache import cache

from live import sending
from live.groups import listened_key
from live.throttle import Throttle

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Part:
    """Text for the sockets of `group` (a rendered partial, a command), rendered only if
    somebody listens to the group; nothing is sent if it renders empty."""

    group: str
    render: Callable[[], str]
    throttle: Throttle | None = None


@dataclass(frozen=True)
class Refresh:
    """The parts of a page that the sockets of `group` fetch again (by element id)."""

    group: str
    names: tuple[str, ...]


Message = Part | Refresh
Publisher = Callable[[Sequence[object]], Iterable[Message]]
_publishers: list[Publisher] = []


def publisher(function: Publisher) -> Publisher:
    """Register `function` to turn every committed transaction's events, in the
    order they were recorded, into messages (an app's ready())."""
    if function not in _publishers:
        _publishers.append(function)
    return function


def deliver(events: Sequence[object]) -> None:
    """Send what committed `events` mean to the pages. A live update that fails (Redis
    down) must not turn a committed change into an error: pages are right on their
    next load regardless."""
    messages: list[Message] = []
    for function in _publishers:
        try:
            messages.extend(function(events))
        except Exception:
            logger.exception("Live updates for %d events were not published", len(events))
    try:
        send(messages)
    except Exception:
        logger.exception("%d live messages were not sent", len(messages))


def send(messages: Iterable[Message]) -> None:
    """Render and send `messages` to the groups somebody listens to, after one cache
    read; a throttled part only if its throttle admits it."""
    messages = list(messages)
    throttles = {m.throttle for m in messages if isinstance(m, Part) and m.throttle}
    # What a queued end-of-second message carries is neither read for nor sent now.
    carried = {throttle for throttle in throttles if throttle.carried()}
    throttles -= carried
    messages = [m for m in messages if not (isinstance(m, Part) and m.throttle in carried)]
    if not messages:
        return
    marks = {listened_key(m.group): m.group for m in messages}
    found = cache.get_many([*marks, *(key for throttle in throttles for key in throttle.cache_keys())])
    heard = {group for key, group in marks.items() if key in found}
    # A throttle counts a message only if somebody hears it.
    admitted = {
        throttle
        for throttle in throttles
        if any(isinstance(m, Part) and m.throttle == throttle and m.group in heard for m in messages)
        and throttle.admit(found)
    }
    refreshes: dict[str, dict[str, None]] = {}
    for message in messages:
        if message.group not in heard:
            continue
        if isinstance(message, Refresh):
            refreshes.setdefault(message.group, {}).update(dict.fromkeys(message.names))
        elif (message.throttle is None or message.throttle in admitted) and (text := message.render()):
            sending.send(message.group, text)
    for group, names in refreshes.items():
        sending.send_refresh(group, names)
