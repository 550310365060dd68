"""Chip counts and card faces, as the pages show them, in each of the site's languages."""

import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import formats, translation

from lobby.templatetags.poker import playing_card
from tournaments.templatetags.chips import chips

AMOUNTS = [None, 0, 7, 999, 1_000, 12_345, 100_000, 1_234_567, 9_876_543_210, -1, -1_000, -12_345_678]


@pytest.mark.parametrize("language", [code for code, _ in settings.LANGUAGES])
def test_chips_are_grouped_as_djangos_number_format_groups_them(language):
    with translation.override(language):
        for amount in AMOUNTS:
            expected = formats.number_format(int(amount or 0), 0, use_l10n=True, force_grouping=True)
            assert chips(amount) == expected


def test_chips_read_in_the_viewers_language():
    with translation.override("en"):
        assert chips(1_234_567) == "1,234,567"
    with translation.override("da"):
        assert chips(1_234_567) == "1.234.567"


def test_a_card_is_named_in_the_language_it_is_shown_in():
    with translation.override("en"):
        english = playing_card("As")
    with translation.override("da"):
        danish = playing_card("As")
    with translation.override("en"):
        again = playing_card("As")
    assert 'aria-label="Ace of spades"' in english
    assert "Ace" not in danish
    assert again == english


def test_numbers_in_the_tables_markup_are_the_same_with_localization_off():
    """The table's parts render ids and counts without localizing them: the same text."""
    template = Template("{% load l10n %}{{ n }}|{% localize off %}{{ n }}{% endlocalize %}")
    for language in ("en", "da"):
        with translation.override(language):
            plain, off = template.render(Context({"n": 1234567})).split("|")
            assert plain == off == "1234567"
