"""The live socket: a page subscribes to the groups it shows (lobby.live sends to them).

    /ws/live/?groups=lobby.en,user-7

Groups: `lobby.<language>`, `tournament-<id>.<language>` and
`table-<tournament id>-<table number>.<language>` (shared: rendered once per
language, nothing private), `user-<id>` (the signed-in player's own: only
theirs), `staff` (staff only). A subscription that is not allowed refuses the whole
socket at the handshake (403); nothing is sent from it to the browser.
"""

import asyncio
import collections
import json
import logging
import os
import re
import threading
import time
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache

from tournaments.models import Tournament

logger = logging.getLogger(__name__)

LANGUAGES = frozenset(code for code, _name in settings.LANGUAGES)
SHARED = re.compile(
    r"^(lobby|tournament-(?P<tournament>\d{1,18})|table-(?P<table_of>\d{1,18})-(?P<table>\d{1,4}))"
    r"\.(?P<language>[a-z-]{2,7})$"
)
PRIVATE = re.compile(r"^user-(?P<user>\d{1,18})$")
# A page shows a handful of groups; more is not a page.
MOST_GROUPS = 8
# The close code of a refused subscription (the handshake itself gets HTTP 403).
FORBIDDEN = 4403


# A group a socket joined this recently, or has open, is sent to; one nobody did is
# not rendered for (a shared group's parts) or sent to (a player's own refreshes).
LISTENED_SECONDS = 3600


def listened_key(group: str) -> str:
    return f"live:listened:{group}"


def listened(groups: list[str]) -> set[str]:
    """Which of `groups` a socket joined in the last LISTENED_SECONDS (one cache read)."""
    found = cache.get_many([listened_key(group) for group in groups])
    return {group for group in groups if listened_key(group) in found}


def group_name(
    kind: str,
    *,
    language: str = "",
    tournament_id: int | None = None,
    table: int | None = None,
    user_id: int | None = None,
) -> str:
    """The name of a live group, as pages subscribe to it and lobby.live sends to it."""
    if kind == "lobby":
        return f"lobby.{language}"
    if kind == "tournament":
        return f"tournament-{tournament_id}.{language}"
    if kind == "table":
        return f"table-{tournament_id}-{table}.{language}"
    if kind == "user":
        return f"user-{user_id}"
    return "staff"


class _SendingLoop:
    """The event loop that group_send runs on for synchronous callers (live_send).

    async_to_sync would start a loop, and the Redis layer a connection, for every
    message (9 ms each, measured). Instead: the loop this process's sockets are
    served on, if any (the in-memory layer's queues belong to it), else one loop
    kept running in a thread of its own (made again after a fork: a worker's pool).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self.served: asyncio.AbstractEventLoop | None = None
        self._own: asyncio.AbstractEventLoop | None = None
        self._own_pid = 0

    def get(self) -> asyncio.AbstractEventLoop:
        if self.served is not None and self.served.is_running():
            return self.served
        with self._lock:
            if self._own is None or self._own_pid != os.getpid():
                self._own, self._own_pid = asyncio.new_event_loop(), os.getpid()
                threading.Thread(target=self._own.run_forever, name="live-send", daemon=True).start()
            return self._own


_sending = _SendingLoop()


_outbox: collections.deque[tuple[str, str]] = collections.deque()
# A player's own group: the names of what to fetch again, gathered until the sending
# loop takes them (a registration's card and balances, and any others' since, in one message).
_refreshes: dict[str, dict[str, None]] = {}
_refreshes_lock = threading.Lock()
_flushing = threading.Lock()  # held from the moment a flush is asked for until it has taken the outbox


def live_send(group: str, text: str) -> None:
    """Send `text` to every socket of `group`, from synchronous code, without waiting
    for it: messages leave in the order given, a burst of them on one wake-up of the
    sending loop (each wake-up costs the caller's thread more than the sending)."""
    _outbox.append((group, text))
    _wake()


def live_refresh(group: str, name: str) -> None:
    """Tell the sockets of `group` (a player's own, which is sent nothing else) to
    fetch the part `name` again, as live_send does: the names asked for one group
    before the sending loop wakes up leave together, `{"refresh": [names]}`.

    Only if a socket listens (one cache read): most players have no page open, and a
    message costs the process far more than the read. A socket marks its groups
    listened before it joins them, and keeps them marked while it is open, so none
    that could receive the message is passed over."""
    with _refreshes_lock:
        names = _refreshes.get(group)
        if names is not None:  # asked for already, and listened
            names[name] = None
            return
    if _unheard_now(group):
        return
    with _refreshes_lock:
        _refreshes.setdefault(group, {})[name] = None
    _wake()


# A group found unheard is taken as such by this thread for this long: the refreshes
# one commit asks for (a registration's card and balances) cost one read, not two.
UNHEARD_SECONDS = 0.01
_unheard = threading.local()


def _unheard_now(group: str) -> bool:
    if getattr(_unheard, "group", None) == group and time.monotonic() < _unheard.until:
        return True
    if listened([group]):
        return False
    _unheard.group, _unheard.until = group, time.monotonic() + UNHEARD_SECONDS
    return True


def _wake() -> None:
    if _flushing.acquire(blocking=False):
        asyncio.run_coroutine_threadsafe(_flush(), _sending.get())


_draining = False  # only touched on the sending loop


async def _flush() -> None:
    global _draining  # noqa: PLW0603  (the loop's own state; one loop a process)
    _flushing.release()  # from here on, a message added asks for another flush
    if _draining:
        return  # the drain under way sends it, in order
    _draining = True
    try:
        layer = get_channel_layer()
        while _outbox or _refreshes:
            if _outbox:
                group, text = _outbox.popleft()
                await _group_send(layer, group, text)
                continue
            with _refreshes_lock:
                asked = list(_refreshes.items())
                _refreshes.clear()
            for group, names in asked:
                await _group_send(layer, group, json.dumps({"refresh": list(names)}))
    finally:
        _draining = False


async def _group_send(layer, group: str, text: str) -> None:
    try:
        await layer.group_send(group, {"type": "live.message", "text": text})
    except Exception:
        logger.exception("A live message to %s was not sent", group)


class LiveConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        _sending.served = asyncio.get_running_loop()
        query = parse_qs(self.scope["query_string"].decode("latin-1"))
        wanted = [name for value in query.get("groups", []) for name in value.split(",") if name]
        if not wanted or len(wanted) > MOST_GROUPS or not await self._allowed(wanted):
            await self.close(code=FORBIDDEN)  # before accepting: the handshake is refused
            return
        self.groups_joined = sorted(set(wanted))
        await self._mark_listened()  # before joining: a sender that finds a group unheard has nobody to miss
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        self._marking = asyncio.create_task(self._keep_listened())

    async def disconnect(self, code):
        if marking := getattr(self, "_marking", None):
            marking.cancel()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def _mark_listened(self) -> None:
        await cache.aset_many({listened_key(group): True for group in self.groups_joined}, timeout=LISTENED_SECONDS)

    async def _keep_listened(self) -> None:
        """The groups stay marked listened while the socket is open, however long."""
        while True:
            await asyncio.sleep(LISTENED_SECONDS / 2)
            try:
                await self._mark_listened()
            except Exception:
                logger.exception("The live groups %s were not marked listened", self.groups_joined)

    async def dispatch(self, message):
        # Channels' dispatch closes stale database connections first, in a thread of
        # its own: a hop per message and socket that made up most of a fan-out's time
        # (2,000 sockets). Forwarding a live message touches no database.
        if message["type"] == "live.message":
            await self.send(text_data=message["text"])
        else:
            await super().dispatch(message)

    async def receive(self, text_data=None, bytes_data=None):
        """The socket only carries updates to the browser; what it sends is ignored."""

    async def live_message(self, event):
        await self.send(text_data=event["text"])

    async def _allowed(self, groups: list[str]) -> bool:
        user = self.scope.get("user")
        tournaments = set()
        for group in groups:
            if shared := SHARED.match(group):
                if shared["language"] not in LANGUAGES:
                    return False
                if of := shared["tournament"] or shared["table_of"]:
                    tournaments.add(int(of))
            elif private := PRIVATE.match(group):
                # A player's own group only: private messages (a wallet, later hole cards) go there.
                if user is None or not user.is_authenticated or int(private["user"]) != user.pk:
                    return False
            elif group == "staff":
                if user is None or not user.is_authenticated or not user.is_staff:
                    return False
            else:
                return False
        return not tournaments or await self._tournaments_exist(tournaments)

    @database_sync_to_async
    def _tournaments_exist(self, ids: set[int]) -> bool:
        return Tournament.objects.filter(pk__in=ids).count() == len(ids)
