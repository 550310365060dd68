"""The staff console's money forms. Amounts are typed in major units (12.50) and
handed to the wallet in minor units (1250). Each form carries an idempotency key,
made when the form is rendered, so a double submit moves money once."""

import re
import uuid
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.models import Tournament
from wallet.models import Currency

CASH_CURRENCIES = [(code, label) for code, label in Currency.choices if code != Currency.TMONEY]
# Largest amount a form accepts (major units): far above any real need, far below
# the ledger's 64-bit integers.
MAX_DIGITS = 12
# A ticket's expiry is a date within this many days.
LONGEST_TICKET_DAYS = 5 * 366


class PlayerSearchForm(forms.Form):
    q = forms.CharField(label=_("Username, screen name or email"), max_length=150, required=False)


class MoneyActionForm(forms.Form):
    """The hidden idempotency key every money form carries."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput)

    @classmethod
    def fresh(cls, **kwargs):
        return cls(initial={"idempotency_key": uuid.uuid4()}, **kwargs)

    def ledger_key(self, action: str) -> str:
        return f"support:{action}:{self.cleaned_data['idempotency_key']}"

    def renew_key(self) -> None:
        """A new key for a form shown again with its errors: nothing moved under the
        old one, and a key refused as used for another payment must not stick."""
        data = cast("dict[str, Any]", self.data).copy()  # the request's QueryDict (a dict) or a dict
        data[self.add_prefix("idempotency_key")] = str(uuid.uuid4())
        self.data = data


# Digits with "." or "," as the decimal mark or the grouping (Danish writes
# 1.234,50), spaces too, after an optional sign.
PLAIN_AMOUNT = re.compile(r"[+-]?[0-9.,][0-9.,\s\u00a0]*")


class AmountField(forms.DecimalField):
    """An amount as people write one: digits, a decimal mark, digit grouping and a
    sign. Python's decimals also read exponents ("1e3" is 1000), which no one types
    meaning a thousand: they are refused, not guessed at."""

    def to_python(self, value):
        if isinstance(value, str) and value.strip() and not PLAIN_AMOUNT.fullmatch(value.strip()):
            raise ValidationError(
                _("Write the amount in digits, such as 1250 or 12.50: no letters, no exponent such as 1e3."),
                code="invalid",
            )
        return super().to_python(value)


def money_field(label, *, signed: bool = False) -> forms.DecimalField:
    return AmountField(
        label=label,
        max_digits=MAX_DIGITS,
        decimal_places=2,
        min_value=None if signed else Decimal("0.01"),
        localize=True,  # "12,50" in Danish
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )


def reason_field() -> forms.CharField:
    return forms.CharField(label=_("Reason"), max_length=200)


class DepositForm(MoneyActionForm):
    currency = forms.ChoiceField(label=_("Currency"), choices=CASH_CURRENCIES)
    amount = money_field(_("Amount"))
    field_order = ["currency", "amount"]


class AdjustForm(MoneyActionForm):
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    amount = money_field(_("Amount (negative to take money)"), signed=True)
    reason = reason_field()
    field_order = ["currency", "amount", "reason"]

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise ValidationError(_("An adjustment of zero changes nothing."))
        return amount


class TMoneyForm(MoneyActionForm):
    amount = money_field(_("Amount of T-Money"))
    reason = reason_field()
    field_order = ["amount", "reason"]


class TicketForm(MoneyActionForm):
    value = money_field(_("Value (buy-in plus fee)"))
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    expires_on = forms.DateField(
        label=_("Valid until (inclusive)"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    tournament = forms.IntegerField(
        label=_("Tournament id (empty: any event of this value)"), required=False, min_value=1, max_value=2**63 - 1
    )
    reason = reason_field()
    field_order = ["value", "currency", "expires_on", "tournament", "reason"]

    def clean_expires_on(self):
        day = self.cleaned_data["expires_on"]
        today = timezone.localdate()
        if day < today:
            raise ValidationError(_("The expiry date has passed."))
        if day > today + timedelta(days=LONGEST_TICKET_DAYS):
            raise ValidationError(_("A ticket can be valid for at most five years."))
        return day

    def clean_tournament(self):
        tournament_id = self.cleaned_data["tournament"]
        if tournament_id is not None and not Tournament.objects.filter(pk=tournament_id).exists():
            raise ValidationError(_("There is no tournament with this id."))
        return tournament_id

    def expires_at(self) -> datetime:
        """The end of the chosen day, in the staff member's time zone."""
        next_day = self.cleaned_data["expires_on"] + timedelta(days=1)
        return timezone.make_aware(datetime.combine(next_day, time.min))


class MuteForm(forms.Form):
    minutes = forms.IntegerField(label=_("Minutes"), min_value=1, max_value=30 * 24 * 60, initial=60)
    reason = forms.CharField(label=_("Reason"), max_length=200)


class LiftForm(forms.Form):
    reason = forms.CharField(label=_("Why it was set by mistake"), max_length=300)  # the audit row's reason


class ChatLogForm(forms.Form):
    tournament = forms.IntegerField(label=_("Tournament #"), min_value=1)
    table = forms.IntegerField(label=_("Table"), min_value=1)


class SeatTransferForm(forms.Form):
    tournament = forms.IntegerField(label=_("Tournament #"), min_value=1)
    source = forms.CharField(label=_("From (username)"), max_length=150)
    target = forms.CharField(label=_("To (username)"), max_length=150)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        help_text=_("The serious cause, beyond the player's control, that the room has verified (rule 21)."),
    )

    def clean(self):
        super().clean()
        data = self.cleaned_data
        users = get_user_model()
        for field in ("source", "target"):
            if field in data:
                user = users.objects.filter(username=data[field].strip()).first()
                if user is None:
                    self.add_error(field, _("No account has this username."))
                else:
                    data[field] = user
        return data


class FlagDecisionForm(forms.Form):
    """Rule 20: the end of a flag's review."""

    decision = forms.ChoiceField(
        label=_("Decision"), choices=[("cleared", _("Clear: nothing wrong")), ("confirmed", _("Confirm"))]
    )
    reason = forms.CharField(label=_("Reason"), max_length=200)


class WithholdForm(forms.Form):
    """Rule 20: withhold one of the flagged players' prize in the flag's tournament."""

    player = forms.IntegerField(label=_("Player"), min_value=1)
    reason = forms.CharField(label=_("Reason"), max_length=200)


class PrizeDecisionForm(forms.Form):
    """Rule 20: pay or confiscate a withheld prize."""

    reason = forms.CharField(label=_("Reason"), max_length=200)
