"""How an entry may be paid (rules 8, 10): the one place the forms are decided."""

import pytest

from tournaments.rules.registration import PAYMENT_FORMS, payment_form, payment_refusal


@pytest.mark.parametrize(
    ("entry_kind", "asked", "with_ticket", "form", "refusal"),
    [
        ("cash", None, False, "cash", None),
        ("cash", "tmoney", False, "tmoney", None),
        ("cash", None, True, "ticket", None),
        ("cash", "cash", True, "ticket", None),  # sending a ticket means paying with it
        ("cash", "ticket", False, "ticket", "no_ticket"),
        ("tmoney", None, False, "tmoney", None),
        ("tmoney", "cash", False, "cash", "form_not_accepted"),
        ("tmoney", None, True, "ticket", None),
        ("ticket_only", None, False, "cash", "ticket_required"),
        ("ticket_only", "tmoney", False, "tmoney", "ticket_required"),
        ("ticket_only", "ticket", False, "ticket", "no_ticket"),
        ("ticket_only", None, True, "ticket", None),
        ("freeroll", "cash", True, "free", None),
    ],
)
def test_the_form_paid_in_and_whether_the_event_takes_it(entry_kind, asked, with_ticket, form, refusal):
    chosen = payment_form(entry_kind=entry_kind, asked=asked, with_ticket=with_ticket)

    assert chosen == form
    assert payment_refusal(entry_kind=entry_kind, form=chosen, with_ticket=with_ticket) == refusal


@pytest.mark.parametrize("entry_kind", sorted(PAYMENT_FORMS))
def test_every_form_an_event_lists_is_taken_and_its_own_money_comes_first(entry_kind):
    for form in PAYMENT_FORMS[entry_kind]:
        assert payment_refusal(entry_kind=entry_kind, form=form, with_ticket=form == "ticket") is None
    chosen = payment_form(entry_kind=entry_kind, asked=None, with_ticket=False)
    if entry_kind != "ticket_only":
        assert chosen == PAYMENT_FORMS[entry_kind][0]
