"""The live groups a page joins, named by one function for the pages that join them
(live.consumers) and the publishers that send to them (lobby.live, deals.live).

    lobby.<language>                              the lobby's rows
    tournament-<id>.<language>                    Tournament Info
    table-<tournament id>-<table number>.<language>   a table being watched
    tables-<tournament id>.<language>             every table page of an event (its clock)
    user-<id>                                     a signed-in player's own
    own-<id>.<language>                           his own part of his table pages
    staff                                         staff pages

Shared groups are rendered once per language and carry nothing private; a player's
`user` group and staff's are told only the names of what to fetch again. His own part
of a table page (his cards, his choices) is rendered for him alone, in the language
of the pages open at the table, and sent to his `own` group: only he may join it.

A socket marks its groups listened before it joins them and keeps them marked while
it is open: the delivery (live.delivery) renders for and sends to a group only if
its mark is there, so none that could receive a message is passed over.
"""

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Callable, Sequence

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache

logger = logging.getLogger(__name__)

LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)
# Matched whole (fullmatch: no trailing newline) and in ASCII digits only: int()
# reads other scripts' digits too (an Arabic-Indic one would name user 1's group).
_SHARED = re.compile(
    r"(lobby|leader-boards|tournament-(?P<tournament>[0-9]{1,18})|table-(?P<table_of>[0-9]{1,18})-(?P<table>[0-9]{1,4})"
    r"|tables-(?P<tables_of>[0-9]{1,18}))"
    r"\.(?P<language>[a-z-]{2,7})"
)
_PRIVATE = re.compile(r"user-(?P<user>[0-9]{1,18})|own-(?P<own>[0-9]{1,18})\.(?P<language>[a-z-]{2,7})")
# A page shows a handful of groups (My tables, the most: four tables' and their
# events', and the player's two own); more is not a page.
MOST_GROUPS = 10
# A mark lasts this long; an open socket makes it again every half of it.
LISTENED_SECONDS = 3600


def group_name(
    kind: str,
    *,
    language: str = "",
    tournament_id: int | None = None,
    table: int | None = None,
    user_id: int | None = None,
) -> str:
    """The name of a live group, as pages join it and publishers send to it."""
    names = {
        "lobby": f"lobby.{language}",
        "leader-boards": f"leader-boards.{language}",
        "tournament": f"tournament-{tournament_id}.{language}",
        "table": f"table-{tournament_id}-{table}.{language}",
        "tables": f"tables-{tournament_id}.{language}",
        "user": f"user-{user_id}",
        "own": f"own-{user_id}.{language}",
    }
    return names.get(kind, "staff")


def may_join(groups: Sequence[str], user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """Whether `user` may join every one of `groups`: any shared group in a language
    the site speaks (the tournaments it names must exist too: tournaments_named),
    their own groups only, staff's if staff."""
    if not groups or len(groups) > MOST_GROUPS:
        return False
    signed_in = user is not None and user.is_authenticated
    for group in groups:
        if shared := _SHARED.fullmatch(group):
            if shared["language"] not in LANGUAGES:
                return False
        elif private := _PRIVATE.fullmatch(group):
            owner = int(private["user"] or private["own"])
            language = private["language"] or LANGUAGES[0]  # `user-<id>` has none
            if not signed_in or owner != user.pk or language not in LANGUAGES:  # type: ignore[union-attr]  # signed in: a user
                return False
        elif group == "staff":
            if not signed_in or not user.is_staff:  # type: ignore[union-attr]  # signed in: our User
                return False
        else:
            return False
    return True


def tournaments_named(groups: Sequence[str]) -> set[int]:
    """The tournaments that shared `groups` (Tournament Info's, a table's, its tables') are of."""
    named = (_SHARED.fullmatch(group) for group in groups)
    return {
        int(of)
        for shared in named
        if shared and (of := shared["tournament"] or shared["table_of"] or shared["tables_of"])
    }


def tables_named(groups: Sequence[str]) -> list[tuple[int, int]]:
    """The (tournament, table) of each table's group among `groups`."""
    named = [_SHARED.fullmatch(group) for group in groups]
    return [(int(m["table_of"]), int(m["table"])) for m in named if m and m["table_of"]]


def listened_key(group: str) -> str:
    return f"live:listened:{group}"


async def mark_listened(groups: Sequence[str]) -> None:
    """Mark `groups` listened, before a socket joins them."""
    await cache.aset_many({listened_key(group): True for group in groups}, timeout=LISTENED_SECONDS)


async def keep_marked(mark: Callable[[], Awaitable[None]], every: float) -> None:
    """Make a socket's mark again every `every` seconds while it is open, however long
    (a task the socket cancels when it closes); a failed renewal is logged, and the
    next one tries again."""
    while True:
        await asyncio.sleep(every)
        try:
            await mark()
        except Exception:
            logger.exception("A live mark was not renewed (%s)", mark)


async def keep_listened(groups: Sequence[str]) -> None:
    """Keep `groups` marked while the socket that joined them is open."""
    await keep_marked(functools.partial(mark_listened, groups), LISTENED_SECONDS / 2)
