"""What full_clean() refuses in an event's parameters (rules 3, 9, 10, 17, 23.5),
and that each message sits on the field an admin has to change."""

from datetime import timedelta

import pytest
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils import timezone, translation

from tests.factories import BlindStructureFactory, TournamentFactory
from tests.unit.rules.test_validation import ADDON, CODES, COHERENT, REBUYS
from tournaments.models import EVENT_PROBLEMS, BlindLevel, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def structure():
    return BlindStructureFactory()


@pytest.fixture
def target(structure):
    return TournamentFactory(name="Main Event", blind_structure=structure, scheduled_start=in_hours(48))


def in_hours(hours: float):
    return timezone.now() + timedelta(hours=hours)


def event(structure, **fields) -> Tournament:
    """An unsaved event, valid unless `fields` make it otherwise: a EUR 10 + 1 freezeout."""
    return TournamentFactory.build(blind_structure=structure, **fields)


def problems(tournament: Tournament) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as refused:
        tournament.full_clean()
    return refused.value.message_dict


@pytest.mark.parametrize(
    "fields", [*COHERENT, pytest.param({"registration_opens_at": in_hours(-24)}, id="registration-opens-earlier")]
)
def test_a_coherent_event_is_accepted(structure, fields):
    event(structure, **fields).full_clean()


def test_a_new_event_must_start_in_the_future(structure):
    assert problems(event(structure, scheduled_start=in_hours(-1))) == {
        "scheduled_start": ["A new event must start in the future."]
    }


def test_an_existing_event_that_has_started_can_still_be_edited(structure):
    running = TournamentFactory(blind_structure=structure, scheduled_start=in_hours(-1), status="running")
    running.name = "Renamed while running"

    running.full_clean()


def test_registration_must_open_before_the_start(structure):
    start = in_hours(5)

    assert problems(event(structure, scheduled_start=start, registration_opens_at=start)) == {
        "registration_opens_at": ["Registration must open before the scheduled start."]
    }


def test_a_tournament_needs_at_least_two_entrants(structure):
    assert problems(event(structure, min_entrants=1)) == {"min_entrants": ["A tournament needs at least 2 entrants."]}


def test_the_maximum_cannot_be_below_the_minimum(structure):
    found = problems(event(structure, min_entrants=50, max_entrants=40))

    # The field's own message, not the database constraint's name above the form.
    assert found == {"max_entrants": ["The maximum cannot be below the minimum number of entrants (50)."]}
    assert NON_FIELD_ERRORS not in found


@pytest.mark.parametrize(("size", "message"), [(1, "greater than or equal to 2"), (11, "less than or equal to 10")])
def test_table_size_is_two_to_ten(structure, size, message):
    found = problems(event(structure, table_size=size))

    assert list(found) == ["table_size"]
    assert message in found["table_size"][0]


def test_heads_up_seats_two_per_table(structure):
    assert problems(event(structure, heads_up=True, table_size=6)) == {
        "table_size": ["A heads-up event seats 2 players per table."]
    }


def test_a_buy_in_is_not_paid_in_t_money(structure):
    assert problems(event(structure, entry_kind="cash", currency="TMY")) == {
        "currency": ["A buy-in is paid in real money: choose a currency other than T-Money."]
    }


@pytest.mark.parametrize("kind", ["cash", "tmoney"])
def test_a_paid_entry_needs_a_buy_in(structure, kind):
    currency = "TMY" if kind == "tmoney" else "EUR"

    assert problems(event(structure, entry_kind=kind, currency=currency, buy_in=0)) == {
        "buy_in": ["A paid entry needs a buy-in above 0; make it a freeroll for free entry."]
    }


def test_a_t_money_entry_is_paid_in_t_money(structure):
    assert problems(event(structure, entry_kind="tmoney", currency="EUR")) == {
        "currency": ["A T-Money entry is paid in T-Money: choose T-Money."]
    }


def test_a_freeroll_has_no_buy_in_and_no_fee(structure):
    assert problems(event(structure, entry_kind="freeroll", buy_in=1000, fee=100)) == {
        "buy_in": ["A freeroll has no buy-in."],
        "fee": ["A freeroll has no fee."],
    }


def test_interval_breaks_need_minutes_of_play_between_them(structure):
    assert problems(event(structure, break_policy="interval", break_interval_minutes=0)) == {
        "break_interval_minutes": ["Breaks every N minutes of play need N above 0."]
    }


def test_a_break_lasts_at_least_a_minute(structure):
    assert problems(event(structure, break_policy="synchronised", break_minutes=0)) == {
        "break_minutes": ["A break lasts at least one minute."]
    }


def test_an_add_on_break_needs_synchronised_breaks(structure):
    found = problems(event(structure, **REBUYS, **ADDON, break_policy="interval", addon_break_minutes=3))

    assert found == {
        "addon_break_minutes": ["An add-on break is only possible with breaks synchronised at :55 (rule 17)."]
    }


def test_an_add_on_break_needs_an_add_on(structure):
    assert problems(event(structure, **REBUYS, addon_break_minutes=3)) == {
        "addon_break_minutes": ["An add-on break needs an add-on: set the add-on chips."]
    }


def test_an_add_on_break_needs_a_rebuy_period_to_follow(structure):
    assert problems(event(structure, **ADDON, addon_break_minutes=3)) == {
        "addon_break_minutes": ["The add-on break comes when the rebuy period ends: set the rebuy period (levels)."]
    }


def test_rebuys_need_a_rebuy_period(structure):
    assert problems(event(structure, **{**REBUYS, "rebuy_levels": 0})) == {
        "rebuy_levels": ["Rebuys need a rebuy period of at least one level."]
    }


def test_rebuys_in_a_paid_event_need_a_price(structure):
    assert problems(event(structure, **{**REBUYS, "rebuy_price": 0})) == {
        "rebuy_price": ["Rebuys in a paid event need a price above 0."]
    }


def test_a_rebuy_price_needs_rebuy_chips(structure):
    assert problems(event(structure, **{**REBUYS, "rebuy_chips": 0})) == {
        "rebuy_chips": ["A rebuy price or fee needs rebuy chips."]
    }


def test_an_add_on_in_a_paid_event_needs_a_price(structure):
    assert problems(event(structure, **REBUYS, addon_chips=15000)) == {
        "addon_price": ["An add-on in a paid event needs a price above 0."]
    }


def test_an_add_on_price_needs_add_on_chips(structure):
    assert problems(event(structure, **REBUYS, addon_price=500, addon_fee=50)) == {
        "addon_chips": ["An add-on price or fee needs add-on chips."]
    }


def test_a_satellite_into_a_later_event_is_accepted(structure, target):
    event(structure, satellite_target=target, satellite_seats=3, prize_structure="satellite").full_clean()


def test_a_satellite_cannot_be_its_own_target(structure):
    satellite = TournamentFactory(blind_structure=structure, prize_structure="satellite")
    satellite.satellite_target = satellite

    assert problems(satellite) == {"satellite_target": ["A satellite cannot be its own target."]}


def test_the_target_must_start_after_the_satellite(structure, target):
    satellite = event(
        structure, satellite_target=target, prize_structure="satellite", scheduled_start=target.scheduled_start
    )

    assert problems(satellite) == {"satellite_target": ["The target event must start after this satellite starts."]}


def test_guaranteed_seats_need_a_target(structure):
    assert problems(event(structure, satellite_seats=3)) == {
        "satellite_seats": [
            "Guaranteed seats need a satellite target.",
            "Guaranteed seats need the prize structure “Satellite seats”.",
        ]
    }


def test_guaranteed_seats_need_the_satellite_prize_structure(structure, target):
    assert problems(event(structure, satellite_target=target, satellite_seats=3, prize_structure="standard")) == {
        "satellite_seats": ["Guaranteed seats need the prize structure “Satellite seats”."]
    }


def test_satellite_seats_as_prizes_need_a_target(structure):
    assert problems(event(structure, prize_structure="satellite")) == {
        "prize_structure": ["Satellite seats are seats in another event: choose the satellite target."]
    }


@pytest.mark.parametrize("kind", ["knockout", "team_pro", "fixed"])
def test_a_bounty_needs_an_amount(structure, kind):
    assert problems(event(structure, bounty_kind=kind, bounty_amount=0)) == {
        "bounty_amount": ["A bounty event needs a bounty amount above 0."]
    }


def test_no_bounty_means_no_bounty_amount(structure):
    assert problems(event(structure, bounty_kind="none", bounty_amount=500)) == {
        "bounty_amount": ["Without a bounty the bounty amount must be 0; or choose the bounty type."]
    }


def test_an_amount_left_for_the_winner_needs_deals(structure):
    assert problems(event(structure, deals_allowed=False, deal_leave_for_winner=2000)) == {
        "deal_leave_for_winner": ["An amount left for the winner only applies when deals are allowed (rule 23.5)."]
    }


@pytest.mark.parametrize("extended", [10, 20])
def test_extended_late_registration_is_longer_than_late_registration(structure, extended):
    found = problems(event(structure, late_registration_minutes=20, extended_late_registration_minutes=extended))

    assert found == {
        "extended_late_registration_minutes": [
            "Extended late registration must be longer than late registration (20 minutes)."
        ]
    }


def test_every_problem_the_rules_find_has_a_message():
    assert set(EVENT_PROBLEMS) == set(CODES)


def test_the_problems_speak_the_admins_language(structure):
    with translation.override("da"):
        found = problems(event(structure, scheduled_start=in_hours(-1), min_entrants=50, max_entrants=40))

    assert found == {
        "scheduled_start": ["En ny turnering skal starte i fremtiden."],
        "max_entrants": ["Det største antal kan ikke være lavere end det mindste antal deltagere (50)."],
    }


# Blind levels


def level(structure, **fields) -> BlindLevel:
    return BlindLevel(**{"structure": structure, "position": 99, "small_blind": 10, "big_blind": 20, **fields})


def test_a_level_is_accepted(structure):
    level(structure, minutes=15).full_clean()


@pytest.mark.parametrize("big", [10, 5])
def test_the_big_blind_is_larger_than_the_small_blind(structure, big):
    found = problems(level(structure, big_blind=big, minutes=15))

    assert found == {"big_blind": ["The big blind must be larger than the small blind."]}


def test_a_level_lasts_at_least_a_minute(structure):
    assert problems(level(structure, minutes=0)) == {"minutes": ["A level lasts at least one minute."]}


def test_a_small_blind_of_zero_is_refused(structure):
    assert problems(level(structure, small_blind=0, minutes=15)) == {
        "small_blind": ["The small blind must be above 0."]
    }
