"""The live socket: a page joins the groups it shows (live.groups names them) and is
forwarded what is sent to them (live.delivery).

    /ws/live/?groups=lobby.en,user-7

A group the socket may not join refuses the whole socket at the handshake (403);
nothing is sent from it to the browser.
"""

import asyncio
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from live import sending
from live.groups import keep_listened, mark_listened, may_join, tables_named, tournaments_named
from live.outbox import record
from live.presence import keep_present, mark_absent, mark_present
from tournaments.events import TablesChanged
from tournaments.models import Entry, EntryStatus, Tournament

# The close code of a refused subscription (the handshake itself gets HTTP 403).
FORBIDDEN = 4403


class LiveConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        sending.serve_on_running_loop()
        query = parse_qs(self.scope["query_string"].decode("latin-1"))
        wanted = sorted({name for value in query.get("groups", []) for name in value.split(",") if name})
        named = tournaments_named(wanted)
        if not may_join(wanted, self.scope.get("user")) or (named and not await self._tournaments_exist(named)):
            await self.close(code=FORBIDDEN)  # before accepting: the handshake is refused
            return
        self.groups_joined = wanted
        await mark_listened(wanted)  # before joining: a delivery that finds a group unheard has nobody to miss
        for group in wanted:
            await self.channel_layer.group_add(group, self.channel_name)
        user = self.scope.get("user")
        # A player seated at the tables he watches (one, or several on My tables) is
        # connected there (rule 18), from the moment his socket is open.
        if user is not None and user.is_authenticated:
            self.seated_at = await self._seated_at(user.pk, wanted)
            if self.seated_at:
                await mark_present(user.pk, self.channel_name)
        await self.accept()
        self._marking = asyncio.create_task(keep_listened(wanted))
        # Only a signed-in user is seated.
        if user is not None and (seated_at := getattr(self, "seated_at", None)):
            self._presence = asyncio.create_task(keep_present(user.pk, self.channel_name))
            await self._tables_changed(seated_at)

    async def disconnect(self, code):
        for task in (getattr(self, "_marking", None), getattr(self, "_presence", None)):
            if task is not None:
                task.cancel()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if seated_at := getattr(self, "seated_at", None):
            await mark_absent(self.scope["user"].pk, self.channel_name)  # type: ignore[union-attr]  # seated: signed in
            await self._tables_changed(seated_at)

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

    @database_sync_to_async
    def _tournaments_exist(self, ids: set[int]) -> bool:
        return Tournament.objects.filter(pk__in=ids).count() == len(ids)

    @database_sync_to_async
    def _seated_at(self, user_id: int, groups: list[str]) -> list[tuple[int, int]]:
        """The (tournament, table) of the tables' groups joined where the player is seated."""
        return [
            (tournament_id, number)
            for tournament_id, number in tables_named(groups)
            if Entry.objects.filter(
                tournament_id=tournament_id, player_id=user_id, status=EntryStatus.ACTIVE, table__number=number
            ).exists()
        ]

    @database_sync_to_async
    def _tables_changed(self, tables: list[tuple[int, int]]) -> None:
        """Each table shows the player connected or not."""
        for tournament_id, number in tables:
            record(TablesChanged(tournament_id, (number,)))
