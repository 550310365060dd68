"""What the table's and the registration card's buttons post, read as forms: each
value is checked before a service sees it (an id or a count is a whole number in
range, a key is what a page makes), so bad input is a refusal, never an error."""

from django import forms
from django.core.validators import RegexValidator

from tournaments.forms import IDEMPOTENCY_KEY, LARGEST_ID
from tournaments.models import PaymentForm


def _key_field() -> forms.CharField:
    return forms.CharField(required=False, max_length=64, validators=[RegexValidator(IDEMPOTENCY_KEY)])


class TableActionForm(forms.Form):
    """A player's action: the hand, how many actions it had when he chose (`at`), the
    action (the service knows its kinds) and an amount of chips to bet or raise to."""

    hand = forms.IntegerField(min_value=1, max_value=LARGEST_ID)
    at = forms.IntegerField(min_value=0)
    kind = forms.CharField(required=False, max_length=3)
    amount = forms.IntegerField(required=False, min_value=0)


class SitOutForm(forms.Form):
    sitting_out = forms.TypedChoiceField(choices=[("1", "1"), ("0", "0")], coerce=lambda value: value == "1")


class RegisterForm(forms.Form):
    """The way to pay the registration button chose, its ticket, and its key."""

    form = forms.ChoiceField(required=False, choices=PaymentForm.choices)
    ticket = forms.IntegerField(required=False, min_value=1, max_value=LARGEST_ID)
    key = _key_field()


class PurchaseForm(forms.Form):
    """A rebuy or add-on button: its key."""

    key = _key_field()
