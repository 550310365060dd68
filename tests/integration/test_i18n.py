"""The lobby and Tournament Info in English (at /) and Danish (under /da/)."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone, translation

from tests.factories import BlindStructureFactory, TournamentFactory
from tournaments.templatetags.chips import chips
from wallet.money import format_money as money
from wallet.money import format_money_change, format_plain_amount, minor_units

NBSP = "\u00a0"
# Written out here rather than taken from Django, so a wrong catalogue shows.
DANISH_DAYS = ["man", "tir", "ons", "tor", "fre", "lør", "søn"]
DANISH_MONTHS = ["jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"]
ENGLISH_DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def future_day_at(hour: int, minute: int) -> datetime:
    day = timezone.now().astimezone(UTC) + timedelta(days=3)
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0)


def danish_date(moment: datetime) -> str:
    return f"{DANISH_DAYS[moment.weekday()]} {moment.day}. {DANISH_MONTHS[moment.month - 1]}, {moment:%H:%M}"


def page(client, url: str, **headers) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.content
    return response.content.decode()


@pytest.fixture
def main_event(db):
    """A registering Omaha event with a known prize pool, no time-zone cookie: times in UTC."""
    return TournamentFactory(
        name="Sunday Million",
        game="omaha",
        betting="pl",
        blind_structure=BlindStructureFactory(),
        scheduled_start=future_day_at(7, 25),
        buy_in=10_000,
        fee=900,
        prize_contributions=123_450,
        starting_stack=25_000,
    )


@pytest.fixture
def late_event(db):
    return TournamentFactory(
        name="Turbo Knockout",
        blind_structure=BlindStructureFactory(),
        scheduled_start=timezone.now() - timedelta(minutes=5),
        status="late_registration",
        speed="turbo",
        bounty_kind="knockout",
        bounty_amount=500,
        guarantee=2_500_000,
    )


# Amounts


@pytest.mark.parametrize("use_thousand_separator", [False, True])
@pytest.mark.parametrize(
    ("language", "amount", "currency", "expected"),
    [
        ("en", 123_450, "EUR", "€1,234.50"),
        ("en", 100_000_000, "EUR", "€1,000,000"),
        ("en", 99, "USD", "$0.99"),
        ("en", 250_000, "DKK", f"2,500{NBSP}kr."),
        ("da", 123_450, "EUR", f"1.234,50{NBSP}€"),
        ("da", 100_000_000, "EUR", f"1.000.000{NBSP}€"),
        ("da", 1_000, "TMY", f"10{NBSP}T$"),
        ("da", 250_050, "DKK", f"2.500,50{NBSP}kr."),
    ],
)
def test_money_is_written_the_way_the_language_writes_it(language, amount, currency, expected, use_thousand_separator):
    with override_settings(USE_THOUSAND_SEPARATOR=use_thousand_separator), translation.override(language):
        assert money(amount, currency) == expected


@pytest.mark.parametrize(("language", "expected"), [("en", "1,234,567"), ("da", "1.234.567")])
def test_chips_are_grouped_in_the_languages_way(language, expected):
    with translation.override(language):
        assert chips(1_234_567) == expected


@pytest.mark.parametrize(
    ("language", "amount", "expected"),
    [("en", 500, "+€5"), ("en", -1_250, "\u2212€12.50"), ("da", -1_250, f"\u221212,50{NBSP}€")],
)
def test_a_change_of_money_carries_a_plus_or_a_true_minus(language, amount, expected):
    with translation.override(language):
        assert format_money_change(amount, "EUR") == expected


def test_staff_screens_write_plain_amounts_and_read_typed_ones_exactly():
    assert format_plain_amount(123_456) == "1234.56"
    assert format_plain_amount(5) == "0.05"
    assert minor_units(Decimal("12.50")) == 1_250
    assert minor_units(Decimal("0.29")) == 29


@pytest.mark.parametrize("app", ["deals", "support"])
def test_the_staff_and_deal_templates_write_money_without_the_lobbys_tags(app):
    loads = [
        line.split("%}")[0].split()[2:]
        for path in (settings.BASE_DIR / "templates" / app).glob("*.html")
        for line in path.read_text().splitlines()
        if "{% load " in line
    ]
    assert any("money" in libraries for libraries in loads)
    assert [libraries for libraries in loads if "poker" in libraries] == []


# The lobby


def test_english_is_the_default_at_the_root(client, main_event):
    body = page(client, "/")
    assert '<html lang="en">' in body
    assert "<h1>Tournament lobby</h1>" in body
    assert "€1,234.50" in body
    assert ">Registering</span>" in body
    start = main_event.scheduled_start
    assert f"{ENGLISH_DAYS[start.weekday()]} {start.day} {start:%b}, 07:25" in body


def test_the_root_stays_english_for_a_danish_browser(client, main_event):
    body = page(client, "/", HTTP_ACCEPT_LANGUAGE="da")
    assert "<h1>Tournament lobby</h1>" in body


def test_danish_lobby_has_danish_headings_labels_amounts_and_days(client, main_event, late_event):
    body = page(client, "/da/")
    assert '<html lang="da">' in body
    assert "<title>Turneringslobby · Pokerrum</title>" in body
    assert "<h1>Turneringslobby</h1>" in body
    assert "2 turneringer" in body
    for heading in ("Start", "Turnering", "Spil", "Indskud", "Deltagere", "Præmiepulje", "Status", "Typer"):
        assert f">{heading}" in body
    assert '<label for="id_game">Spil:</label>' in body
    assert '<option value="" selected>Alle spil</option>' in body
    assert '<button type="submit">Filtrer</button>' in body
    assert ">Nulstil</a>" in body
    assert '<span class="badge registering">Tilmelding åben</span>' in body
    assert '<span class="badge late_registration">Sen tilmelding</span>' in body
    assert f'<td class="pool">1.234,50{NBSP}€</td>' in body
    assert f"(garanti 25.000{NBSP}€)" in body
    assert f'<td class="buyin">100{NBSP}€ + 9{NBSP}€</td>' in body
    assert '<td class="game">PL Omaha</td>' in body
    assert "Knockout</span>" in body
    assert danish_date(main_event.scheduled_start) in body
    assert "Tidspunkter vises i din tidszone" in body
    assert "Tournament lobby" not in body


def test_danish_filter_results_fragment_is_danish(client, main_event, late_event):
    body = page(client, "/da/?game=omaha", HX_REQUEST="true")
    assert "<html" not in body
    assert "1 turnering<" in body
    assert "Sunday Million" in body
    assert "Turbo Knockout" not in body
    assert ">Præmiepulje" in body


def test_danish_lobby_with_no_match_says_so_in_danish(client, main_event):
    body = page(client, "/da/?q=nothing-like-this")
    assert "0 turneringer" in body
    assert "Ingen turneringer passer til disse filtre." in body


def test_danish_invalid_filter_is_refused_in_danish(client, main_event):
    response = client.get("/da/?buy_in_min=10&buy_in_max=5")
    assert response.status_code == 400
    assert "Det laveste indskud kan ikke være højere end det højeste." in response.content.decode()


# Tournament Info


def test_danish_info_page_has_danish_headings_amounts_levels_and_breaks(client, main_event):
    body = page(client, f"/da/tournaments/{main_event.pk}/")
    assert '<html lang="da">' in body
    assert "<title>Sunday Million · Pokerrum</title>" in body
    assert f'<span id="status-{main_event.pk}" class="badge registering">Tilmelding åben</span>' in body
    for heading in ("Turnering", "Tilmelding", "Præmier", "Blindstruktur", "Gældende regler"):
        assert f">{heading}" in body
    assert "<dt>Spil</dt><dd>Pot Limit Omaha</dd>" in body
    assert f"<dt>Indskud</dt><dd>100{NBSP}€ + 9{NBSP}€</dd>" in body
    assert "<dt>Startstak</dt><dd>25.000 chips</dd>" in body
    assert "<dt>Spillere pr. bord</dt><dd>9</dd>" in body
    assert f"<dt>Præmiepulje</dt><dd>1.234,50{NBSP}€</dd>" in body
    assert "<dt>Præmiestruktur</dt><dd>Standard (ca. 15 % får præmie)</dd>" in body
    assert "<dt>Sen tilmelding indtil</dt>" in body
    start = main_event.scheduled_start
    assert f"{danish_date(start).replace(',', f' {start.year},')}" in body
    assert '<th scope="col">Niveau</th><th scope="col">Blinds</th><th scope="col">Ante</th>' in body
    assert "<td>1</td><td>10 / 20</td>" in body
    assert "<td>10</td><td>5.120 / 10.240</td>" in body
    assert '<tr class="break"><td colspan="3">Pause</td><td>5 minutter</td>' in body
    assert "En pause på 5 minutter hver time kl. xx:55." in body
    assert "<strong>Regel 5</strong>: Ved hvert nyt bord starter dealerknappen på plads 1." in body
    assert "Udbetalingstabellen vises, når de første deltagere er tilmeldt." in body


def test_danish_rebuy_terms_read_as_one_sentence(client, db):
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(),
        scheduled_start=future_day_at(7, 0),
        rebuy_price=300,
        rebuy_fee=30,
        rebuy_chips=10_000,
        rebuy_levels=3,
        rebuy_limit=1,
        addon_price=500,
        addon_fee=50,
        addon_chips=15_000,
        addon_break_minutes=1,
    )
    body = page(client, f"/da/tournaments/{tournament.pk}/")
    assert f"<dd>3{NBSP}€ + 0,30{NBSP}€ for 10.000 chips</dd>" in body
    assert "de første 3 niveauer, højst 1 rebuy" in body
    assert f"5{NBSP}€ + 0,50{NBSP}€ for 15.000 chips, når rebuy-perioden slutter" in body
    assert "Efter rebuy-perioden følger en ekstra add-on-pause på 1 minut." in body
    assert '<tr class="break addon"><td colspan="3">Add-on-pause</td>' in body


def test_danish_interval_breaks_use_the_plural_for_minutes(client, db):
    tournament = TournamentFactory(blind_structure=BlindStructureFactory(), break_policy="interval", break_minutes=10)
    body = page(client, f"/da/tournaments/{tournament.pk}/")
    assert "En pause på 10 minutter, hver gang der er spillet 60 minutter." in body


# The language switcher


def switch(client, url: str, language: str):
    """Choose `language` in the header of the page at `url`, as the switcher's form does."""
    choice = page(client, url).split(f'">{language}</option>')[0].rsplit('<option value="', 1)[1]
    return client.get("/i18n/setlang/", {"next": choice.replace("&amp;", "&")})


def test_switching_to_danish_sends_the_next_lobby_request_to_danish(client, main_event):
    response = switch(client, "/", "Dansk")
    assert response.status_code == 302
    assert response["Location"] == "/da/"
    body = page(client, response["Location"])
    assert "<h1>Turneringslobby</h1>" in body
    assert '<option value="/da/" selected>Dansk</option>' in body


def test_switching_language_on_an_info_page_keeps_the_page_and_filters(client, main_event):
    response = switch(client, f"/tournaments/{main_event.pk}/", "Dansk")
    assert response["Location"] == f"/da/tournaments/{main_event.pk}/"
    response = switch(client, "/?game=omaha&sort=-buy_in", "Dansk")
    assert response["Location"] == "/da/?game=omaha&sort=-buy_in"


def test_switching_back_to_english_from_a_danish_page_leaves_the_danish_prefix(client, main_event):
    response = switch(client, f"/da/tournaments/{main_event.pk}/", "English")
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{main_event.pk}/"
    assert "<dt>Starting stack</dt>" in page(client, response["Location"])


def test_the_switcher_offers_both_languages_and_keeps_the_current_path(client, main_event):
    body = page(client, "/da/?game=omaha")
    # A form with no token, so that a visitor's page can be shared: each choice is
    # this page in that language, where set_language sends the browser.
    assert '<form class="language" action="/i18n/setlang/" method="get">' in body
    assert '<select id="language-select" name="next" data-autosubmit>' in body
    assert '<option value="/?game=omaha">English</option>' in body
    assert '<option value="/da/?game=omaha" selected>Dansk</option>' in body
    assert '<button type="submit">Skift</button>' in body
