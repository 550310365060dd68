"""Account use cases."""

import unicodedata
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import MinLengthValidator, RegexValidator
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.countries import COUNTRIES
from accounts.models import User
from audit.services import audit_log
from responsible.rules import cpr_valid, national_id_normalized
from responsible.services import sign_up_refusal
from wallet.models import Currency

# Cash currencies a player can prefer; T-Money is won, never chosen.
SIGN_UP_CURRENCIES = (Currency.EUR, Currency.USD, Currency.DKK)
SCREEN_NAME_MIN_LENGTH = 3
screen_name_validators: list[Callable[[Any], None]] = [
    MinLengthValidator(SCREEN_NAME_MIN_LENGTH),
    RegexValidator(
        r"\A[^\W_][\w .-]*\Z",
        gettext_lazy("Use letters, digits, spaces, dots, hyphens and underscores, starting with a letter or a digit."),
    ),
]


def _normalized_screen_name(screen_name: str) -> str:
    # Compatibility forms (fullwidth letters) and doubled spaces would let two players look alike.
    return " ".join(unicodedata.normalize("NFKC", screen_name).split())


# The code of the errors that tell something of a person (an account exists; an
# account may not be opened for his national identity number): whoever reads them
# learns it, so the sign-up's limit counts them.
TAKEN = "taken"


def _taken(user: User) -> dict[str, ValidationError]:
    """The fields of `user` that an existing account already uses, ignoring case."""
    others = User.objects.exclude(pk=user.pk) if user.pk else User.objects.all()
    taken = {}
    if others.filter(username__iexact=user.username).exists():
        taken["username"] = ValidationError(_("A user with that username already exists."), code=TAKEN)
    if others.filter(screen_name__iexact=user.screen_name).exists():
        taken["screen_name"] = ValidationError(_("That screen name is taken."), code=TAKEN)
    if user.email and others.filter(email__iexact=user.email).exists():
        taken["email"] = ValidationError(_("An account with that email address already exists."), code=TAKEN)
    if user.national_id and others.filter(national_id=user.national_id).exists():
        taken["national_id"] = ValidationError(
            _("An account with that national identity number already exists."), code=TAKEN
        )
    return taken


def _national_id_problem(user: User) -> str | None:
    if user.country == "DK" and not cpr_valid(user.national_id):
        return _("Enter your CPR number: ten digits, as on your health insurance card.")
    if user.national_id and not (user.national_id.isascii() and user.national_id.isalnum()):
        return _("Use only the letters and digits of your national identity number.")
    return None


def _sign_up_errors(user: User, password: str) -> dict[str, list[ValidationError]]:
    errors: dict[str, list[ValidationError]] = {}

    def add(field: str, problem: ValidationError | str) -> None:
        problems = problem.error_list if isinstance(problem, ValidationError) else [ValidationError(problem)]
        errors.setdefault(field, []).extend(problems)

    try:
        user.clean_fields(exclude=["password"])  # required fields, lengths, the username's characters
    except ValidationError as error:
        for field, field_errors in error.error_dict.items():
            for field_error in field_errors:
                add(field, field_error)
    for validator in screen_name_validators if user.screen_name else ():
        try:
            validator(user.screen_name)
        except ValidationError as error:
            add("screen_name", error)
    if not user.email:  # optional on the model for staff accounts, required of players
        add("email", _("Enter your email address."))
    if user.country not in COUNTRIES:
        add("country", _("Choose a country from the list."))
    if user.preferred_currency not in SIGN_UP_CURRENCIES:
        add("preferred_currency", _("Choose EUR, USD or DKK."))
    if user.language not in dict(settings.LANGUAGES):
        add("language", _("Choose a language from the list."))
    if problem := _national_id_problem(user):
        add("national_id", problem)
    for field, message in _taken(user).items():
        add(field, message)
    try:
        validate_password(password, user)
    except ValidationError as error:
        add("password", error)
    return errors


def user_sign_up(
    *,
    username: str,
    screen_name: str,
    email: str,
    password: str,
    country: str,
    preferred_currency: str,
    language: str,
    national_id: str = "",
) -> User:
    """Open a new person's account and return it, saved but not logged in.

    Rule 21 allows one account per person; for now that means username, screen
    name, email address and national identity number each unique ignoring case
    (the integrity tools that look further come later). A person with a national
    identity number (required of residents of Denmark) is asked about in the
    national register of excluded players, and refused while it excludes him or
    within a year of his closing an account here (responsible.services). Raises
    ValidationError keyed by argument name with every problem found, the password
    judged by AUTH_PASSWORD_VALIDATORS; a name or address another account has is an error with the code TAKEN. One
    transaction, which the case-insensitive unique constraints back: of two
    sign-ups racing for a name, the second gets the same error as if it had come
    later. Side effect: an `accounts.user.signed_up` audit row, its actor the
    new account.
    """
    user = User(
        username=User.normalize_username(username.strip()),
        screen_name=_normalized_screen_name(screen_name),
        email=User.objects.normalize_email(email.strip()),
        country=country.strip().upper(),
        preferred_currency=preferred_currency,
        language=language,
        national_id=national_id_normalized(national_id),
    )
    errors = _sign_up_errors(user, password)
    if errors:
        raise ValidationError(errors)
    # Asked last, of a person otherwise ready to sign up: the register is a service
    # of the authorities, not a way to test a form.
    if user.national_id and (refusal := sign_up_refusal(user.national_id, timezone.now())):
        raise ValidationError({"national_id": ValidationError(refusal, code=TAKEN)})
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            audit_log(
                action="accounts.user.signed_up",
                subject=user,
                actor=user,
                data={
                    "username": user.username,
                    "screen_name": user.screen_name,
                    "country": user.country,
                    "preferred_currency": user.preferred_currency,
                    "language": user.language,
                },
            )
    except IntegrityError:
        user.pk = None
        raise ValidationError(
            _taken(user) or {"username": _("The account could not be created just now; please try again.")}
        ) from None
    return user
