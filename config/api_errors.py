"""The API's one error shape, for every app's views (DRF's EXCEPTION_HANDLER): every
error is `{"code", "message"}`; a body, header or filter the API cannot take adds
`"fields"`, the messages by field. A refusal by the rules (a TournamentError, a
WalletError) is a 400, except those in REFUSAL_STATUS. Apart from config.api, which
DRF's settings load while the apps' modules are still being imported."""

from django.apps import apps
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.models import Tournament
from tournaments.services.refusals import TournamentError
from wallet.services import InsufficientFunds, WalletError


class Refused(exceptions.APIException):
    """A TournamentError or WalletError: the rules refused a well-formed request."""

    status_code = 400
    default_code = "refused"

    def __init__(self, message: str, code: str, status_code: int = 400):
        super().__init__(message, code=code)
        self.status_code = status_code


# Refusals that are not a plain 400; the schema's responses list them too.
REFUSAL_STATUS = {
    "insufficient_funds": status.HTTP_402_PAYMENT_REQUIRED,
    "not_registered": status.HTTP_404_NOT_FOUND,
    "already_registered": status.HTTP_409_CONFLICT,
    "addon_taken": status.HTTP_409_CONFLICT,
    "duplicate_request": status.HTTP_409_CONFLICT,
    "terms_changed": status.HTTP_409_CONFLICT,
}
NO_SUCH_TOURNAMENT = gettext_lazy("No Tournament matches the given query.")


def exception_handler(exc, context):
    """The API's one error shape, `{"code", "message"}`, with DRF's status codes."""
    if isinstance(exc, TournamentError):
        exc = Refused(exc.message, code=exc.code, status_code=REFUSAL_STATUS.get(exc.code, 400))
    elif isinstance(exc, WalletError):
        exc = Refused(str(exc), code=exc.code, status_code=402 if isinstance(exc, InsufficientFunds) else 400)
    elif isinstance(exc, Tournament.DoesNotExist):  # a service locking an unknown id
        exc = exceptions.NotFound(NO_SUCH_TOURNAMENT)
    elif isinstance(exc, ObjectDoesNotExist):  # another service's unknown id
        exc = exceptions.NotFound(_("There is no such %(thing)s.") % {"thing": _missing_thing(exc)})
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not ours to explain: Django answers 500 and logs it
    if isinstance(exc.detail, dict | list):
        response.data = {"code": exc.default_code, "message": getattr(exc, "message", None) or _sentence(exc.detail)}
        if isinstance(exc.detail, dict):
            response.data["fields"] = exc.detail
    else:
        response.data = {"code": exc.detail.code, "message": str(exc.detail)}
    return response


def _missing_thing(exc: ObjectDoesNotExist) -> str:
    """The verbose name of the model whose DoesNotExist this is."""
    for model in apps.get_models():
        if type(exc) is model.DoesNotExist:  # type: ignore[attr-defined]  # every concrete model has one
            return str(model._meta.verbose_name)
    return str(_("object"))


def _sentence(detail) -> str:
    if isinstance(detail, dict):
        return " ".join(f"{name}: {_sentence(value)}" for name, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_sentence(item) for item in detail)
    return str(detail)
