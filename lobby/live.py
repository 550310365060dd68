"""Live updates (ARCHITECTURE, "Live updates"): what the services announce once a
change is committed (tournaments.events, wallet.events) becomes messages to the
groups pages subscribe to (tournaments.consumers), carried by static/js/portal.js.

- Shared groups get rendered partials that htmx swaps in out of band: the lobby's
  row of an event, and Tournament Info's status, entrants, prizes and clock. They
  are rendered once per language, in UTC (the browser shows times in its own zone),
  and at most once a second per event: a registration storm is one message a
  second, the last one always showing the final state. Only for groups a socket
  has joined lately: nothing is rendered for nobody.
- A table's group gets the table (seats, stacks, button, the hand it is on) each
  time it changes.
- A player's own group gets only the names of what to fetch again (their
  registration card, their balances), those asked for together in one message:
  what is private is rendered for them alone, by the request that fetches it.
"""

import datetime
import json
import threading
import time

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone, translation

from live.outbox import publisher
from lobby.views import lobby_row_html, table_live_html, tournament_live_html
from tournaments.consumers import UNHEARD_SECONDS, group_name, listened, listened_key, live_refresh, live_send
from tournaments.events import EntryChanged, TablesChanged, TournamentChanged
from tournaments.models import Tournament
from wallet.events import BalancesChanged

# An event's shared groups hear of it at most this often.
THROTTLE_SECONDS = 1
# A queued end-of-second message is taken to carry changes until this long before it is due.
CARRY_MARGIN_SECONDS = 0.1
# In this process: until when, by event, a queued end-of-second message carries any change.
_carried_until: dict[int, float] = {}


def connect() -> None:
    """Publish the services' committed events (LobbyConfig.ready)."""
    publisher(publish)


def publish(events) -> None:
    for event in events:
        if isinstance(event, TournamentChanged):
            on_tournament_changed(
                None, tournament_id=event.tournament_id, created=event.created, clock_only=event.clock_only
            )
        elif isinstance(event, EntryChanged):
            on_entry_changed(None, tournament_id=event.tournament_id, player_id=event.player_id)
        elif isinstance(event, TablesChanged):
            on_tables_changed(None, tournament_id=event.tournament_id, numbers=list(event.numbers))
        elif isinstance(event, BalancesChanged):
            on_balances_changed(None, owner_ids=set(event.owner_ids))


def on_tournament_changed(
    sender, *, tournament_id: int, created: bool, clock_only: bool = False, player_id: int | None = None, **_
):
    if created:
        # Where a new event goes depends on each viewer's filters: their page fetches its list again.
        for language in _languages():
            live_send(group_name("lobby", language=language), json.dumps({"reload": True}))
    if time.monotonic() < _carried_until.get(tournament_id, 0.0):
        return  # a queued end-of-second message carries it: no Redis round trip
    # An end-of-second message renders when it runs, so it carries every change
    # committed until then; its key, which says when it is due, is there until it
    # runs. Found there now (after this change's commit), it carries this change, and
    # this process's others until it is due. One round trip reads both keys.
    sent, trailing = _sent_key(tournament_id), _trailing_key(tournament_id)
    # The player whose entry changed it is told next (their refreshes): whether a page
    # of theirs listens is read in the same round trip.
    own = group_name("user", user_id=player_id) if player_id is not None else None
    found = cache.get_many([sent, trailing, *([listened_key(own)] if own else [])])
    if own and listened_key(own) not in found:
        _unheard.group, _unheard.until = own, time.monotonic() + UNHEARD_SECONDS
    if sent not in found and cache.add(sent, True, timeout=THROTTLE_SECONDS):
        tournament_publish(tournament_id, clock_only=clock_only)
        return
    queued = found.get(trailing)
    if queued is None:
        # Sent within the second: one more message at its end carries whatever changed since.
        due = time.time() + THROTTLE_SECONDS
        if cache.add(trailing, due, timeout=THROTTLE_SECONDS * 5):
            from lobby.tasks import tournament_publish_task  # the task calls this module

            tournament_publish_task.apply_async((tournament_id,), countdown=THROTTLE_SECONDS)
            queued = due
        else:  # another request queued it just now
            queued = cache.get(trailing)
    if queued is not None:
        _carry(tournament_id, until=queued)


def _carry(tournament_id: int, *, until: float) -> None:
    """The message queued for `until` (time.time()) carries this process's changes to
    the event until a little before then: they cost no Redis round trip."""
    _carried_until[tournament_id] = time.monotonic() + (until - time.time()) - CARRY_MARGIN_SECONDS


def tournament_publish_trailing(tournament_id: int) -> None:
    """The message at the end of a throttled second (lobby.tasks)."""
    cache.delete(_trailing_key(tournament_id))
    cache.set(_sent_key(tournament_id), True, timeout=THROTTLE_SECONDS)
    tournament_publish(tournament_id)


def tournament_publish(tournament_id: int, *, clock_only: bool = False) -> None:
    """Send the event's lobby row and Tournament Info parts (only the clock when
    that is all that changed), as they are now, to the groups of every language."""
    lobbies = {language: group_name("lobby", language=language) for language in _languages()}
    infos = {language: group_name("tournament", language=language, tournament_id=tournament_id) for language in lobbies}
    audience = listened([*([] if clock_only else lobbies.values()), *infos.values()])
    if not audience:
        return
    tournament = (
        Tournament.objects.select_related("blind_structure", "satellite_target").filter(pk=tournament_id).first()
    )
    if tournament is None:
        return
    now = timezone.now()
    for language, lobby in lobbies.items():
        with translation.override(language), timezone.override(datetime.UTC):
            if lobby in audience and (row := lobby_row_html(tournament_id)):
                live_send(lobby, row)
            if infos[language] in audience:
                live_send(infos[language], tournament_live_html(tournament, now, clock_only=clock_only))


def on_tables_changed(sender, *, tournament_id: int, numbers: list[int], **_):
    """Each changed table, as it is now, to whoever watches it. Not throttled: a
    table changes once a hand."""
    groups = {
        (language, number): group_name("table", language=language, tournament_id=tournament_id, table=number)
        for language in _languages()
        for number in numbers
    }
    audience = listened(list(groups.values()))
    if not audience:
        return
    tournament = Tournament.objects.select_related("blind_structure").filter(pk=tournament_id).first()
    if tournament is None:
        return
    for (language, number), group in groups.items():
        if group in audience:
            with translation.override(language), timezone.override(datetime.UTC):
                live_send(group, table_live_html(tournament, number))


def on_entry_changed(sender, *, tournament_id: int, player_id: int, **_):
    _refresh(group_name("user", user_id=player_id), f"registration-{tournament_id}")


def on_balances_changed(sender, *, owner_ids: set[int], **_):
    for owner_id in owner_ids:
        _refresh(group_name("user", user_id=owner_id), "balances")


# A player's group that on_tournament_changed found unheard, for the rest of the
# commit's receivers on this thread: their refreshes then cost no read of their own.
_unheard = threading.local()


def _refresh(group: str, name: str) -> None:
    if getattr(_unheard, "group", None) == group and time.monotonic() < _unheard.until:
        return
    live_refresh(group, name)


def _languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def _sent_key(tournament_id: int) -> str:
    return f"live:sent:{tournament_id}"


def _trailing_key(tournament_id: int) -> str:
    return f"live:trailing:{tournament_id}"
