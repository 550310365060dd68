"""Who is at his table (rule 18): a signed-in player's socket on the group of the
table he is seated at marks him connected, again every PRESENT_SECONDS / 3 while it
is open; closing it clears the mark, and a mark nobody renews (its ws process died)
lapses after PRESENT_SECONDS. With two pages open, closing one clears the mark until
the other renews it."""

import functools
from collections.abc import Iterable

from django.core.cache import cache

from live.groups import keep_marked

PRESENT_SECONDS = 30


def present_key(user_id: int) -> str:
    return f"live:present:{user_id}"


async def mark_present(user_id: int) -> None:
    await cache.aset(present_key(user_id), True, timeout=PRESENT_SECONDS)


async def keep_present(user_id: int) -> None:
    """Renew the mark while the socket is open."""
    await keep_marked(functools.partial(mark_present, user_id), PRESENT_SECONDS / 3)


async def mark_absent(user_id: int) -> None:
    await cache.adelete(present_key(user_id))


def connected(user_ids: Iterable[int]) -> set[int]:
    """Which of these players have a socket open at their table."""
    ids = list(user_ids)
    if not ids:
        return set()
    found = cache.get_many([present_key(user_id) for user_id in ids])
    return {user_id for user_id in ids if present_key(user_id) in found}
