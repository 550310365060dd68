from django import forms
from django.utils.translation import gettext_lazy as _

from responsible.models import ExclusionKind, LimitPeriod
from responsible.reality import EVERY_CHOICES
from responsible.rules import LONGEST_EXCLUSION_DAYS, SHORTEST_EXCLUSION_DAYS
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


class ExclusionForm(forms.Form):
    kind = forms.ChoiceField(label=_("Take"), choices=ExclusionKind.choices, widget=forms.RadioSelect)
    days = forms.IntegerField(
        label=_("Days (a temporary exclusion)"),
        required=False,
        min_value=SHORTEST_EXCLUSION_DAYS,
        max_value=LONGEST_EXCLUSION_DAYS,
        help_text=_("At least 30 days."),
    )
    sure = forms.BooleanField(label=_("I understand that I cannot play or deposit until it ends."))

    def clean_sure(self) -> bool:
        # A checkbox sends "on": anything else is not the player ticking it.
        if self.data.get(self.add_prefix("sure")) not in ("on", "true", "1"):
            raise forms.ValidationError(_("Tick the box to say you understand."), code="required")
        return True

    def clean(self):
        data = super().clean() or {}
        if data.get("kind") == ExclusionKind.TEMPORARY and not data.get("days"):
            self.add_error("days", _("Choose how many days: at least 30."))
        return data


def _every_choices() -> list[tuple[str, str]]:
    return [("", str(_("No reminder")))] + [
        (str(minutes), str(_("Every %(minutes)d minutes") % {"minutes": minutes})) for minutes in EVERY_CHOICES
    ]


class RealityCheckForm(forms.Form):
    every = forms.TypedChoiceField(
        label=_("Remind me"), choices=_every_choices, coerce=int, empty_value=None, required=False
    )
