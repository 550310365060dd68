"""What the whole API (/api/) shares beyond DRF's settings: its JSON parser, which
takes only a JSON object of Unicode text, and JSON answers where Django itself answers an error
under /api/ (an unknown address, a bad request, a crash), so a client never gets
an HTML page. The shape is the API's own `{"code", "message"}`
(config.api_errors)."""

from datetime import UTC

from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser


class UtcDateTimeField(serializers.DateTimeField):
    """An instant in UTC, whatever zone the viewer's cookie activated for the pages."""

    def __init__(self, **kwargs):
        super().__init__(default_timezone=UTC, **kwargs)


class JSONObjectParser(JSONParser):
    """JSON whose top level is an object: every body the API takes is one, so a list,
    a string or a number is a 400 before any view reads it."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if not isinstance(data, dict):
            raise ParseError(
                _('Send a JSON object, such as {"name": value}, not a list, a string or a number.'), code="invalid"
            )
        if not _is_unicode(data):
            # "\ud800" is valid JSON but no text: nothing could store it or write it back.
            raise ParseError(_("Send text as Unicode: a lone surrogate (such as \\ud800) is not a character."))
        return data


def _is_unicode(data) -> bool:
    """Whether every string in `data`, names included, is text UTF-8 can encode."""
    if isinstance(data, str):
        try:
            data.encode()
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(data, dict):
        return all(_is_unicode(key) and _is_unicode(value) for key, value in data.items())
    if isinstance(data, list):
        return all(_is_unicode(value) for value in data)
    return True


class PageNumbers(PageNumberPagination):
    """DRF's page numbers, but a blank `page` names no page and is refused like any
    other (DRF would read it as the first), as the schema says: a page is a number."""

    def get_page_number(self, request, paginator):
        if request.query_params.get(self.page_query_param) == "":
            raise NotFound(_("Invalid page."))
        return super().get_page_number(request, paginator)


def api_error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "message": message}, status=status)


# Nothing to protect: it changes nothing and only says the address is unknown, for
# every method (Django's CSRF check would otherwise answer a POST with its HTML page).
@csrf_exempt
def api_not_found(request, exception=None) -> HttpResponse:
    return api_error("not_found", _("There is no such API address."), 404)


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def bad_request(request, exception) -> HttpResponse:
    if _is_api(request):
        return api_error("bad_request", _("The API cannot read this request."), 400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception) -> HttpResponse:
    if _is_api(request):
        return api_error("permission_denied", _("You do not have permission to do this."), 403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception) -> HttpResponse:
    if _is_api(request):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


def server_error(request) -> HttpResponse:
    if _is_api(request):
        return api_error(
            "server_error", _("Something went wrong on our side; it has been logged. Try again later."), 500
        )
    return defaults.server_error(request)
