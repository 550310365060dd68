from tournaments.rules.pricing import TMONEY, EntryPrice, entry_price, pool_currency


def test_a_tmoney_event_keeps_its_pool_in_tmoney_whatever_its_currency_says():
    assert pool_currency(entry_kind="tmoney", currency="EUR") == TMONEY
    assert pool_currency(entry_kind="cash", currency="EUR") == "EUR"
    assert pool_currency(entry_kind="ticket_only", currency="DKK") == "DKK"


def test_only_knockout_entrants_pay_a_bounty_rule_27():
    terms = {"entry_kind": "cash", "buy_in": 1000, "fee": 100, "bounty_amount": 500}
    assert entry_price(bounty_kind="knockout", **terms) == EntryPrice(1000, 100, 500)
    for room_paid in ("team_pro", "fixed", "none"):
        assert entry_price(bounty_kind=room_paid, **terms) == EntryPrice(1000, 100, 0)


def test_a_freeroll_costs_nothing_whatever_its_fields_say():
    price = entry_price(entry_kind="freeroll", buy_in=1000, fee=100, bounty_kind="knockout", bounty_amount=500)
    assert price == EntryPrice(0, 0, 0)
    assert price.total == 0


def test_the_total_is_every_part_and_a_ticket_covers_buy_in_and_fee():
    price = EntryPrice(prize=1000, fee=100, bounty=500)
    assert price.total == 1600
    assert price.ticket_value == 1100
