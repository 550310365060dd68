"""Who is at his table (rule 18): a signed-in player's socket on the group of the
table he is seated at marks him connected, again every PRESENT_SECONDS / 3 while it
is open; closing it clears its mark, and a mark nobody renews (its ws process died)
lapses after PRESENT_SECONDS. Each socket has its own mark, kept with the others of
the same player under his one key: with two pages open, closing one leaves him
connected through the other.

Two sockets of one player that write his key at the same moment may lose one mark;
its socket's next renewal puts it back."""

import functools
import time
from collections.abc import Iterable

from django.core.cache import cache

from live.groups import keep_marked

PRESENT_SECONDS = 30


def present_key(user_id: int) -> str:
    return f"live:present:{user_id}"


def _open(marks: object, now: float) -> dict[str, float]:
    """The sockets (by channel name) whose marks have not lapsed by `now`, with when they lapse."""
    if not isinstance(marks, dict):
        return {}
    return {socket: until for socket, until in marks.items() if until > now}


async def mark_present(user_id: int, socket: str) -> None:
    key, now = present_key(user_id), time.time()
    marks = _open(await cache.aget(key), now)
    marks[socket] = now + PRESENT_SECONDS
    await cache.aset(key, marks, timeout=max(marks.values()) - now)


async def keep_present(user_id: int, socket: str) -> None:
    """Renew the socket's mark while it is open."""
    await keep_marked(functools.partial(mark_present, user_id, socket), PRESENT_SECONDS / 3)


async def mark_absent(user_id: int, socket: str) -> None:
    key, now = present_key(user_id), time.time()
    marks = _open(await cache.aget(key), now)
    marks.pop(socket, None)
    if marks:
        await cache.aset(key, marks, timeout=max(marks.values()) - now)
    else:
        await cache.adelete(key)


def connected(user_ids: Iterable[int]) -> set[int]:
    """Which of these players have a socket open at their table."""
    ids = list(user_ids)
    if not ids:
        return set()
    found, now = cache.get_many([present_key(user_id) for user_id in ids]), time.time()
    return {user_id for user_id in ids if _open(found.get(present_key(user_id)), now)}
