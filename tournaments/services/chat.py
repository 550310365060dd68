"""Table chat (rules 19 and 20): the players seated at a table write, everyone
watching reads. While a hand is in play at the table, a message using one of the
room's card and hand words (ChatWord) discusses it and is held back: the sender is
warned, the message goes to nobody, and staff find it in the table's chat log. Not
heads-up (a hand between two players, or a heads-up event), where there is nobody
to help. Staff mute a player for a while, with a reason."""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction

from audit.services import audit_log
from live.outbox import record
from tournaments.dates import moment_text
from tournaments.events import TableChatted
from tournaments.models import ChatMessage, ChatMute, ChatWord, Entry, EntryStatus, Hand, HandStatus, Table
from tournaments.services.refusals import refuse, unwritable

if TYPE_CHECKING:
    from accounts.models import User

CHAT_LENGTH = 200
# At most this many messages a player sends in this many seconds, at all his tables.
RATE_MESSAGES, RATE_SECONDS = 5, 10
MUTE_MINUTES_MAX = 30 * 24 * 60
# The same mute again within this many seconds is the same decision, sent twice.
REPEAT_SECONDS = 60
SHOWN = 50  # the messages a table's chat shows
# Cards written out, besides the room's words: two cards as the site and hand
# histories write them (AsKd, "Ah Kh": rank capital, suit small) or any card with
# its suit's symbol (A♠, 10 ♥).
CARDS = re.compile(r"(?<!\w)[2-9TJQKA][shdc]\s?[2-9TJQKA][shdc](?!\w)|(?:10|[2-9TJQKA])\s?[♠♥♦♣]")


@dataclass(frozen=True)
class Posted:
    message: ChatMessage
    held: bool  # rule 19: it discussed the hand in play and went to nobody


def chat_post(*, tournament_id: int, table: int, player: "User", text: str, now: datetime) -> Posted:
    """`player`'s message in the chat of table `table`: refused unless he is seated
    there, not muted and not writing too fast; held back if it discusses the hand in
    play (rule 19). Otherwise every page watching the table shows it. Under the
    player's row lock (the rate is his, at all his tables): the same words at the
    same table within RATE_SECONDS are a repeated click, answered with the message
    sent then, and stored once."""
    text = " ".join((text or "").split())
    if not text:
        raise refuse("chat_empty")
    if len(text) > CHAT_LENGTH:
        raise refuse("chat_too_long", length=CHAT_LENGTH)
    if unwritable(text):
        raise refuse("unwritable_text")
    with transaction.atomic():
        at = Table.objects.filter(tournament_id=tournament_id, number=table, broken_at=None).first()
        if at is None:
            raise refuse("no_such_table")
        if not Entry.objects.filter(table=at, player=player, status=EntryStatus.ACTIVE).exists():
            raise refuse("chat_not_seated")
        _lock_player(player)
        mute = ChatMute.objects.filter(player=player, until__gt=now).order_by("-until").first()
        if mute is not None:
            raise refuse("chat_muted", until=moment_text(mute.until, now=now), reason=mute.reason)
        recent = ChatMessage.objects.filter(player=player, created_at__gt=now - timedelta(seconds=RATE_SECONDS))
        if (repeat := recent.filter(table=at, text=text).order_by("-pk").first()) is not None:
            return Posted(repeat, repeat.held)
        if recent.count() >= RATE_MESSAGES:
            raise refuse("chat_too_fast")
        held = _discusses_hand_in_play(at, text)
        message = ChatMessage.objects.create(table=at, player=player, text=text, held=held, created_at=now)
        if held:
            audit_log(
                action="tournaments.chat.held",
                subject=message,
                actor=player,
                data={"tournament": tournament_id, "table": table, "text": text},
            )
        else:
            record(TableChatted(tournament_id, table))
    return Posted(message, held)


def chat_shown(table: Table) -> list[ChatMessage]:
    """The table's latest messages that went out, oldest first, with their senders."""
    sent = ChatMessage.objects.filter(table=table, held=False).select_related("player").order_by("-created_at", "-pk")
    return list(reversed(sent[:SHOWN]))


def chat_mute(*, player: "User", minutes: int, reason: str, staff: "User", now: datetime) -> ChatMute:
    """Staff mute `player` in every table chat for `minutes`, with a reason (audited).
    Under the player's row lock, the same mute by the same staff member again within
    REPEAT_SECONDS is a repeated click: the mute made then is the answer, and nothing
    more is done or audited."""
    reason = (reason or "").strip()[:200]
    if not reason:
        raise refuse("reason_required")
    if unwritable(reason):
        raise refuse("unwritable_text")
    if not 1 <= minutes <= MUTE_MINUTES_MAX:
        raise refuse("mute_minutes")
    length = timedelta(minutes=minutes)
    with transaction.atomic():
        _lock_player(player)
        recent = ChatMute.objects.filter(
            player=player, staff=staff, reason=reason, created_at__gte=now - timedelta(seconds=REPEAT_SECONDS)
        )
        if (repeat := next((m for m in recent if m.until - m.created_at == length), None)) is not None:
            return repeat
        mute = ChatMute.objects.create(player=player, until=now + length, reason=reason, staff=staff, created_at=now)
        audit_log(
            action="tournaments.chat.muted",
            subject=player,
            actor=staff,
            reason=reason,
            data={"until": mute.until.isoformat()},
        )
    return mute


def _lock_player(player: "User") -> None:
    """The player's row, locked: his messages and mutes are decided one at a time.
    Not a key lock, so rows that refer to him are written meanwhile."""
    get_user_model().objects.select_for_update(no_key=True).filter(pk=player.pk).first()


def _discusses_hand_in_play(table: Table, text: str) -> bool:
    """Rule 19: does `text` write cards or use a card or hand word while a hand of
    three players or more is in play at `table` (never in a heads-up event)?"""
    if table.tournament.heads_up:
        return False
    seats = Hand.objects.filter(table=table, status=HandStatus.PLAYING).values_list("seats", flat=True).first()
    if seats is None or len(seats) <= 2:
        return False
    if CARDS.search(text):
        return True
    words = sorted(ChatWord.objects.values_list("word", flat=True), key=len, reverse=True)
    if not words:
        return False
    pattern = r"(?<!\w)(?:" + "|".join(re.escape(word) for word in words) + r")(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None
