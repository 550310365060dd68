"""How the room writes and reads amounts of money (integers in minor units), for every
app's views and templates (the template filter is wallet/templatetags/money.py)."""

from decimal import Decimal

from django.utils import formats, translation

SYMBOLS = {"EUR": "€", "USD": "$", "DKK": "kr.", "TMY": "T$"}
MINUS = "\u2212"  # a true minus sign: a column of changes reads at a glance


def format_money(amount: int | None, currency: str) -> str:
    """Minor units as the viewer reads money: "€1,234.50" in English, "1.234,50 €" in Danish."""
    if amount is None:
        return ""
    value = Decimal(int(amount)) / 100
    places = 0 if value == value.to_integral() else 2
    number = formats.number_format(value, places, use_l10n=True, force_grouping=True)
    symbol = SYMBOLS.get(currency, currency)
    if translation.get_language() == "da" or currency == "DKK":
        return f"{number}\u00a0{symbol}"
    return f"{symbol}{number}"


def format_plain_amount(amount: int) -> str:
    """Minor units with two decimals and no symbol or grouping, for staff screens: "1234.50"."""
    return f"{Decimal(amount) / 100:.2f}"


def minor_units(amount: Decimal) -> int:
    """An amount typed with at most two decimals in minor units: 12.50 -> 1250, exactly."""
    return int((amount * 100).to_integral_exact())


def format_money_change(amount: int, currency: str) -> str:
    """A movement of money with its sign: a plus in, a true minus sign out."""
    return ("+" if amount > 0 else MINUS) + format_money(abs(amount), currency)
