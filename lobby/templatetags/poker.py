"""The lobby's own template tags: levels, clocks, tags, the language switcher and
the viewer's own cards. Money is `{% load money %}` (wallet), chips `{% load chips %}`
(tournaments)."""

import functools
from datetime import timedelta

from django import template
from django.urls import translate_url
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, ngettext, pgettext_lazy

from tournaments.models import Status, Tag
from tournaments.templatetags.chips import chips as chips_text

register = template.Library()


@register.filter
def duration(length: timedelta) -> str:
    """A level's or a break's length in words ("20 minutes", "30 seconds", "1 minute
    30 seconds"): a length under a minute in seconds, never "0 minutes"."""
    minutes, seconds = divmod(int(length.total_seconds()), 60)
    words = []
    if minutes or not seconds:
        words.append(ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes})
    if seconds:
        words.append(ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds})
    return " ".join(words)


@register.filter
def clock_text(duration) -> str:
    """A duration as a clock shows it: "m:ss", or "h:mm:ss" from an hour."""
    seconds = max(0, int(duration.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


@register.filter
def tag_label(tag: str) -> str | Promise:
    return Tag(tag).label


@register.filter
def status_label(status: str) -> str | Promise:
    return Status(status).label


@register.simple_tag(takes_context=True)
def page_in_language(context, language: str) -> str:
    """This page's address in `language` (i18n_patterns put it in the address), for
    the language switcher."""
    return translate_url(context["request"].get_full_path(), language)


@register.inclusion_tag("lobby/registration_card.html", takes_context=True)
def registration_card(context, tournament):
    """The viewer's own registration card: never part of a shared page."""
    from lobby.entry_views import registration_card_context

    request = context["request"]
    return {
        **registration_card_context(request, tournament),
        "request": request,
        "csrf_token": context.get("csrf_token"),
    }


SUITS = {"s": ("♠", "black"), "h": ("♥", "red"), "d": ("♦", "red"), "c": ("♣", "black")}


@register.filter
def card(code: str) -> str:
    """A card as people read it: "As" as A♠, "Td" as 10♦ (escaped: codes come from our deck)."""
    if len(code) != 2 or code[1] not in SUITS:
        return "🂠"
    rank = "10" if code[0] == "T" else code[0]
    return f"{rank}{SUITS[code[1]][0]}"


@register.filter
def card_colour(code: str) -> str:
    return SUITS.get(code[1:2], ("", "black"))[1]


RANK_NAMES = {
    "A": pgettext_lazy("card rank", "Ace"),
    "K": pgettext_lazy("card rank", "King"),
    "Q": pgettext_lazy("card rank", "Queen"),
    "J": pgettext_lazy("card rank", "Jack"),
    "T": "10",
}
SUIT_NAMES = {
    "s": pgettext_lazy("card suit", "spades"),
    "h": pgettext_lazy("card suit", "hearts"),
    "d": pgettext_lazy("card suit", "diamonds"),
    "c": pgettext_lazy("card suit", "clubs"),
}


@register.filter
def card_name(code: str) -> str:
    """A card's name as a screen reader says it: "Ace of spades", "10 of diamonds"."""
    if len(code) != 2 or code[1] not in SUITS:
        return gettext("hidden card")
    rank = RANK_NAMES.get(code[0], code[0])
    # Translators: a playing card's name, "Ace of spades"; Danish says the suit first ("spar es").
    return gettext("%(rank)s of %(suit)s") % {"rank": rank, "suit": SUIT_NAMES[code[1]]}


@register.simple_tag
def playing_card(code: str) -> SafeString:
    """A card as the pages show it: its rank and suit to see, its name to hear."""
    return _playing_card(code, get_language())


# A card looks the same every time in a language: a table's every action shows cards.
@functools.lru_cache(maxsize=256)
def _playing_card(code: str, language: str | None) -> SafeString:
    colour = card_colour(code) if code[1:2] in SUITS else "back"  # a card face down
    return format_html(
        '<span class="playing-card {}" role="img" aria-label="{}">{}</span>', colour, card_name(code), card(code)
    )


def action_text(kind: str, name: str, chips: int | None) -> str:
    """An action as the hand's story tells it (the table's log, the hand's page, the
    replayer): "Bob raises to 900", "Alice calls 900" (what the call paid)."""
    amount = {"name": name, "chips": chips_text(chips or 0)}
    return {
        "fold": gettext("%(name)s folds"),
        "check": gettext("%(name)s checks"),
        "call": gettext("%(name)s calls %(chips)s"),
        "bet": gettext("%(name)s bets %(chips)s"),
        "raise": gettext("%(name)s raises to %(chips)s"),
    }[kind] % amount


@register.simple_tag
def hand_said(line, seats) -> str:
    """A line of the table's log (tournaments.rules.hands.LogLine), the player named
    as his seat shows him."""
    names = {seat.seat: seat.player for seat in seats}
    return action_text(line.kind, names.get(line.seat, ""), line.chips)


MADE_HANDS = {
    "high_card": pgettext_lazy("poker hand", "high card"),
    "one_pair": pgettext_lazy("poker hand", "a pair"),
    "two_pair": pgettext_lazy("poker hand", "two pair"),
    "three_of_a_kind": pgettext_lazy("poker hand", "three of a kind"),
    "straight": pgettext_lazy("poker hand", "a straight"),
    "flush": pgettext_lazy("poker hand", "a flush"),
    "full_house": pgettext_lazy("poker hand", "a full house"),
    "four_of_a_kind": pgettext_lazy("poker hand", "four of a kind"),
    "straight_flush": pgettext_lazy("poker hand", "a straight flush"),
}


@register.filter
def made_hand(label: str) -> str:
    """The hand a winner made, in words ("a full house"), from its label."""
    return str(MADE_HANDS.get(label, ""))
