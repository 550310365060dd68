from django import forms
from django.utils.translation import gettext_lazy as _

from responsible.models import LimitPeriod
from support.forms import AmountField


class DepositLimitForm(forms.Form):
    period = forms.ChoiceField(label=_("Period"), choices=LimitPeriod.choices)
    # Text, not a number box: the form's own errors say what is wrong, in the page's language.
    amount = AmountField(
        label=_("Limit"),
        required=False,
        min_value=0.01,
        max_digits=12,
        decimal_places=2,
        widget=forms.TextInput(attrs={"inputmode": "decimal"}),
        help_text=_("Leave it empty to have no limit."),
    )


class PendingCancelForm(forms.Form):
    period = forms.ChoiceField(choices=LimitPeriod.choices)
