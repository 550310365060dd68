"""The reality check's timing and the national identity number's form (issue 30), pure."""

from datetime import UTC, datetime, timedelta

from responsible.rules import cpr_valid, national_id_normalized, reminder_due

LOGGED_IN = datetime(2026, 12, 7, 20, 0, tzinfo=UTC)


def test_the_first_reminder_comes_the_chosen_minutes_after_the_log_in():
    assert reminder_due(LOGGED_IN, 30, 0, LOGGED_IN) == (1, 1800.0)
    assert reminder_due(LOGGED_IN, 30, 0, LOGGED_IN + timedelta(minutes=29)) == (1, 60.0)
    assert reminder_due(LOGGED_IN, 30, 0, LOGGED_IN + timedelta(minutes=30)) == (1, 0.0)


def test_after_one_is_shown_the_next_waits_its_interval():
    assert reminder_due(LOGGED_IN, 30, 1, LOGGED_IN + timedelta(minutes=31)) == (2, 29 * 60.0)


def test_reminders_missed_while_away_are_shown_once_not_one_by_one():
    number, seconds = reminder_due(LOGGED_IN, 15, 0, LOGGED_IN + timedelta(minutes=50))
    assert (number, seconds) == (3, -5 * 60.0)  # due now, counted as the third
    assert reminder_due(LOGGED_IN, 15, 3, LOGGED_IN + timedelta(minutes=50)) == (4, 10 * 60.0)


def test_a_cpr_number_is_ten_digits_that_start_with_a_date():
    assert national_id_normalized(" 010190-1234 ") == "0101901234"
    assert cpr_valid("0101901234")
    assert cpr_valid("2902001234")  # 29 February
    assert not cpr_valid("3202901234")  # no 32nd
    assert not cpr_valid("0113901234")  # no 13th month
    assert not cpr_valid("010190123")
    assert not cpr_valid("010190123X")
    assert not cpr_valid("\uff10" * 10)  # fullwidth digits are digits to Python, not to the register
