"""Which parameters describe an event the room can run (rule 3), and which field each
problem is put on: the pure rules behind Tournament.clean()."""

from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.rules.validation import EventTerms, Problem, TargetEvent, event_problems

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
START = NOW + timedelta(hours=5)
# A EUR 10 + 1 freezeout, nine-handed, synchronised breaks: nothing to change.
FREEZEOUT = EventTerms(
    id=None,
    scheduled_start=START,
    registration_opens_at=None,
    min_entrants=2,
    max_entrants=1000,
    table_size=9,
    heads_up=False,
    entry_kind="cash",
    currency="EUR",
    buy_in=1000,
    fee=100,
    break_policy="synchronised",
    break_minutes=5,
    break_seconds=0,
    break_interval_minutes=60,
    break_interval_seconds=0,
    addon_break_minutes=0,
    rebuy_price=0,
    rebuy_fee=0,
    rebuy_chips=0,
    rebuy_levels=0,
    addon_price=0,
    addon_fee=0,
    addon_chips=0,
    prize_structure="standard",
    satellite_target=None,
    satellite_seats=0,
    bounty_kind="none",
    bounty_amount=0,
    deals_allowed=True,
    deal_leave_for_winner=0,
    late_registration_minutes=20,
    extended_late_registration_minutes=None,
)
REBUYS = {"rebuy_price": 500, "rebuy_chips": 10_000, "rebuy_levels": 6}
ADDON = {"addon_price": 500, "addon_chips": 15_000}
MAIN_EVENT = TargetEvent(id=7, scheduled_start=START + timedelta(days=2))


def problems(**changes) -> list[Problem]:
    return event_problems(replace(FREEZEOUT, **changes), now=NOW)


# Coherent events, as changes to the freezeout (the model's tests use them too).
COHERENT = [
    pytest.param({}, id="freezeout"),
    pytest.param({"entry_kind": "tmoney", "currency": "TMY"}, id="t-money"),
    pytest.param({"entry_kind": "freeroll", "buy_in": 0, "fee": 0}, id="freeroll"),
    pytest.param(
        {"entry_kind": "freeroll", "buy_in": 0, "fee": 0, "rebuy_chips": 5000, "rebuy_levels": 4}, id="free-rebuys"
    ),
    pytest.param({"entry_kind": "ticket_only"}, id="ticket-only"),
    pytest.param({"table_size": 2, "heads_up": True}, id="heads-up"),
    pytest.param({"table_size": 10}, id="ten-handed"),
    pytest.param({"break_policy": "none", "break_minutes": 0}, id="no-breaks"),
    pytest.param({"break_minutes": 0, "break_seconds": 30}, id="half-minute-break"),
    pytest.param({"break_policy": "interval", "break_interval_minutes": 60}, id="interval-breaks"),
    pytest.param({**REBUYS, **ADDON, "addon_break_minutes": 3}, id="rebuys-addon-break"),
    pytest.param({"bounty_kind": "knockout", "bounty_amount": 500}, id="knockout"),
    pytest.param({"deals_allowed": True, "deal_leave_for_winner": 2000}, id="deal-leaves-for-winner"),
    pytest.param({"late_registration_minutes": 20, "extended_late_registration_minutes": 90}, id="extended"),
]


@pytest.mark.parametrize(
    "changes",
    [
        *COHERENT,
        pytest.param({"registration_opens_at": NOW - timedelta(days=1)}, id="registration-opens-earlier"),
        pytest.param(
            {"satellite_target": MAIN_EVENT, "satellite_seats": 3, "prize_structure": "satellite"}, id="satellite"
        ),
    ],
)
def test_a_coherent_event_has_no_problem(changes):
    assert problems(**changes) == []


# Every problem the rules know, each from the smallest change that causes it alone.
CASES = [
    ({"scheduled_start": NOW - timedelta(minutes=1)}, "scheduled_start", "start_in_past", {}),
    ({"registration_opens_at": START}, "registration_opens_at", "opens_after_start", {}),
    ({"min_entrants": 1}, "min_entrants", "min_entrants", {}),
    ({"min_entrants": 50, "max_entrants": 40}, "max_entrants", "max_below_min", {"minimum": 50}),
    ({"heads_up": True, "table_size": 6}, "table_size", "heads_up_table_size", {}),
    ({"currency": "TMY"}, "currency", "cash_currency", {}),
    ({"entry_kind": "tmoney"}, "currency", "tmoney_currency", {}),
    ({"buy_in": 0}, "buy_in", "buy_in_zero", {}),
    ({"entry_kind": "freeroll", "fee": 0}, "buy_in", "freeroll_buy_in", {}),
    ({"entry_kind": "freeroll", "buy_in": 0}, "fee", "freeroll_fee", {}),
    ({"break_minutes": 0}, "break_minutes", "break_minutes", {}),
    ({"break_policy": "interval", "break_interval_minutes": 0}, "break_interval_minutes", "break_interval_minutes", {}),
    (
        {**REBUYS, **ADDON, "break_policy": "interval", "addon_break_minutes": 3},
        "addon_break_minutes",
        "addon_break_policy",
        {},
    ),
    ({**REBUYS, "addon_break_minutes": 3}, "addon_break_minutes", "addon_break", {}),
    ({**ADDON, "addon_break_minutes": 3}, "addon_break_minutes", "addon_break_period", {}),
    ({**REBUYS, "rebuy_levels": 0}, "rebuy_levels", "rebuy_period", {}),
    ({**REBUYS, "rebuy_price": 0}, "rebuy_price", "rebuy_price", {}),
    ({**REBUYS, "rebuy_chips": 0}, "rebuy_chips", "rebuy_chips", {}),
    ({**REBUYS, "addon_chips": 15_000}, "addon_price", "addon_price", {}),
    ({"addon_price": 500, "addon_fee": 50}, "addon_chips", "addon_chips", {}),
    (
        {"id": 7, "satellite_target": MAIN_EVENT, "prize_structure": "satellite"},
        "satellite_target",
        "satellite_self",
        {},
    ),
    (
        {"satellite_target": MAIN_EVENT, "prize_structure": "satellite", "scheduled_start": MAIN_EVENT.scheduled_start},
        "satellite_target",
        "satellite_target_start",
        {},
    ),
    (
        {"satellite_seats": 3, "prize_structure": "satellite", "satellite_target": None},
        "satellite_seats",
        "seats_without_target",
        {},
    ),
    ({"satellite_target": MAIN_EVENT, "satellite_seats": 3}, "satellite_seats", "seats_prize_structure", {}),
    ({"prize_structure": "satellite"}, "prize_structure", "satellite_structure_without_target", {}),
    ({"bounty_kind": "knockout"}, "bounty_amount", "bounty_amount", {}),
    ({"bounty_amount": 500}, "bounty_amount", "no_bounty", {}),
    ({"deals_allowed": False, "deal_leave_for_winner": 2000}, "deal_leave_for_winner", "deal_leave_without_deals", {}),
    (
        {"extended_late_registration_minutes": 20},
        "extended_late_registration_minutes",
        "extended_late_registration",
        {"minutes": 20},
    ),
]
CODES = [code for _changes, _field, code, _params in CASES]


@pytest.mark.parametrize(("changes", "field", "code", "params"), CASES, ids=CODES)
def test_each_problem_is_put_on_the_field_to_change(changes, field, code, params):
    found = problems(**changes)

    assert found[0] == Problem(field, code, params)
    # Seats without a target are also seats without a satellite structure, or a
    # satellite structure without a target: no single change causes that one alone.
    assert len(found) == (2 if code == "seats_without_target" else 1)


def test_the_codes_are_distinct():
    assert len(set(CODES)) == len(CODES)


def test_an_event_already_announced_may_be_edited_after_its_start():
    assert problems(id=3, scheduled_start=NOW - timedelta(hours=1)) == []


def test_a_start_exactly_now_is_in_the_past_for_a_new_event():
    assert [problem.code for problem in problems(scheduled_start=NOW)] == ["start_in_past"]


def test_without_a_start_the_checks_that_need_one_wait_for_it():
    assert problems(scheduled_start=None, registration_opens_at=NOW, satellite_target=MAIN_EVENT) == []


def test_several_problems_on_one_field_come_in_a_fixed_order():
    found = problems(satellite_seats=3)

    assert found == [
        Problem("satellite_seats", "seats_without_target"),
        Problem("satellite_seats", "seats_prize_structure"),
    ]


def test_a_freeroll_with_a_buy_in_and_a_fee_has_a_problem_on_each():
    assert problems(entry_kind="freeroll") == [Problem("buy_in", "freeroll_buy_in"), Problem("fee", "freeroll_fee")]


AMOUNT = st.integers(0, 10_000)
CHIPS = st.integers(0, 20_000)


@given(
    st.fixed_dictionaries(
        {
            "min_entrants": st.integers(0, 3000),
            "max_entrants": st.integers(0, 3000),
            "table_size": st.integers(2, 10),
            "heads_up": st.booleans(),
            "entry_kind": st.sampled_from(["cash", "tmoney", "freeroll", "ticket_only"]),
            "currency": st.sampled_from(["EUR", "DKK", "TMY"]),
            "buy_in": AMOUNT,
            "fee": AMOUNT,
            "break_policy": st.sampled_from(["none", "synchronised", "interval"]),
            "break_minutes": st.integers(0, 10),
            "break_interval_minutes": st.integers(0, 90),
            "addon_break_minutes": st.integers(0, 5),
            "rebuy_price": AMOUNT,
            "rebuy_fee": AMOUNT,
            "rebuy_chips": CHIPS,
            "rebuy_levels": st.integers(0, 12),
            "addon_price": AMOUNT,
            "addon_fee": AMOUNT,
            "addon_chips": CHIPS,
            "prize_structure": st.sampled_from(["standard", "satellite"]),
            "satellite_target": st.sampled_from([None, MAIN_EVENT]),
            "satellite_seats": st.integers(0, 5),
            "bounty_kind": st.sampled_from(["none", "knockout", "team_pro", "fixed"]),
            "bounty_amount": AMOUNT,
            "deals_allowed": st.booleans(),
            "deal_leave_for_winner": AMOUNT,
            "extended_late_registration_minutes": st.none() | st.integers(0, 120),
        }
    )
)
def test_every_problem_names_a_parameter_of_the_event_and_a_known_code(changes):
    found = problems(**changes)

    assert {problem.field for problem in found} <= {term.name for term in fields(EventTerms)}
    assert {problem.code for problem in found} <= set(CODES)
    assert len({(problem.field, problem.code) for problem in found}) == len(found)
