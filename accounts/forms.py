from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.password_validation import password_validators_help_text_html, validate_password
from django.core.validators import MaxLengthValidator
from django.utils import timezone
from django.utils.functional import Promise, lazy
from django.utils.translation import get_language_info
from django.utils.translation import gettext_lazy as _

from accounts.countries import country_choices
from accounts.models import User
from accounts.services import SCREEN_NAME_MIN_LENGTH, SIGN_UP_CURRENCIES
from responsible.services import login_refusal


def _country_choices() -> list[tuple[str, str | Promise]]:
    return [("", _("Choose your country")), *country_choices()]


def _language_choices() -> list[tuple[str, str]]:
    # Each language in its own words, as the header's language switcher shows it.
    return [(code, get_language_info(code)["name_local"].capitalize()) for code, _name in settings.LANGUAGES]


class SignUpForm(forms.Form):
    """The sign-up page's input; user_sign_up judges uniqueness and the password."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        help_text=_("For logging in. Other players never see it."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}),
    )
    screen_name = forms.CharField(
        label=_("Screen name"),
        min_length=SCREEN_NAME_MIN_LENGTH,
        max_length=32,
        help_text=_("Shown at the tables and in the standings."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    email = forms.EmailField(
        label=_("Email address"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        help_text=lazy(password_validators_help_text_html, str)(),  # in the reader's language
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_confirm = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    country = forms.ChoiceField(label=_("Country"), choices=_country_choices)
    national_id = forms.CharField(
        label=_("National identity number"),
        required=False,
        max_length=20,
        help_text=_(
            "Residents of Denmark: your CPR number (required). We ask ROFUS, the Danish register of excluded "
            "players, about it when you sign up and every time you log in. Other players never see it."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "inputmode": "numeric"}),
    )
    preferred_currency = forms.ChoiceField(
        label=_("Preferred currency"),
        choices=[(currency.value, currency.label) for currency in SIGN_UP_CURRENCIES],
        initial=SIGN_UP_CURRENCIES[0].value,
    )
    language = forms.ChoiceField(label=_("Language"), choices=_language_choices)

    def clean_password(self):
        # user_sign_up judges it again; asking here too shows a weak password in the
        # same round as the other fields' errors.
        password = self.cleaned_data["password"]
        candidate = User(username=self.cleaned_data.get("username", ""), email=self.cleaned_data.get("email", ""))
        validate_password(password, candidate)
        return password

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        password, again = cleaned.get("password"), cleaned.get("password_confirm")
        if password and again and password != again:
            self.add_error("password_confirm", _("The two passwords are not the same."))
        return cleaned

    def sign_up_arguments(self) -> dict[str, str]:
        """The cleaned input as user_sign_up's keyword arguments."""
        return {name: value for name, value in self.cleaned_data.items() if name != "password_confirm"}


class LogInForm(AuthenticationForm):
    """Django's log-in form, its username no longer than an account's: Django sets
    the field's length once the field is made, so it is never checked, and the log of
    failed log-ins (django-axes) cannot keep a longer one."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        assert isinstance(username, forms.CharField)  # Django's UsernameField
        assert username.max_length is not None  # set from the user model's field
        username.validators.append(MaxLengthValidator(username.max_length))

    def confirm_login_allowed(self, user):
        """A player on a break, excluded, or in the national register (responsible
        gaming) is told so, not let in."""
        super().confirm_login_allowed(user)
        if (refusal := login_refusal(user, timezone.now())) is not None:
            raise forms.ValidationError(refusal, code="excluded")
