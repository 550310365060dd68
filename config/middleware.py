"""Middleware that runs in either handler. Under ASGI (the demo serves every page
from config.asgi) a middleware that can only run synchronously makes Django run
the rest of the request through async_to_sync; a browser that leaves mid-request
then breaks that executor, and Django's end of the request fails on it
("CurrentThreadExecutor already quit or is broken")."""

from urllib.parse import unquote_to_bytes

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django_htmx.http import reswap, retarget
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise, which is synchronous only, for both handlers: a static file is
    served from a thread, anything else goes on down the chain as it came."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        super().__init__(get_response)
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request):
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve, thread_sensitive=False)(static_file, request)
        return await self.get_response(request)


class TextInputMiddleware:
    """Refuses, with a 400 that says why, a page's query string or form whose text
    holds a NUL character or bytes that are not UTF-8 (a lone surrogate's, for one),
    before any view reads it: Django would read such bytes as replacement
    characters, and PostgreSQL cannot store a NUL in text. Once here for every page,
    the admin's included. The API refuses such text in its own words and shape (its
    JSON parser, its serializers' and forms' fields)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        if _refused(request):
            return _refusal(request)
        return self.get_response(request)

    async def _acall(self, request):
        if _refused(request):
            return await sync_to_async(_refusal)(request)  # the page reads the session
        return await self.get_response(request)


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _bad_text(request) -> bool:
    # WSGI and ASGI both hand the query string over as its bytes read as Latin-1.
    if not _is_text(request.META.get("QUERY_STRING", "").encode("latin-1", errors="replace")):
        return True
    if request.method != "POST" or request.content_type not in FORM_TYPES:
        return False
    if request.content_type == FORM_TYPES[0]:
        return not _is_text(request.body)
    # Multipart's parts are decoded by Django; a NUL is what is left to find.
    return any("\x00" in text for key, values in request.POST.lists() for text in (key, *values))


def _is_text(encoded: bytes) -> bool:
    """Whether every name and value of a URL-encoded `encoded` is UTF-8 without a NUL."""
    for pair in encoded.split(b"&"):
        try:
            text = unquote_to_bytes(pair.replace(b"+", b" ")).decode()
        except UnicodeDecodeError:
            return False
        if "\x00" in text:
            return False
    return True


def _refused(request) -> bool:
    return not request.path.startswith("/api/") and _bad_text(request)


def _refusal(request) -> HttpResponse:
    """The refusal as a page, or to an htmx request, in the page's own refusal line
    (base.html's #page-refusal): the form that sent it stays as it was."""
    message = _(
        "This request holds text that cannot be read: a NUL character or bytes that are not UTF-8. "
        "Type the text again and send it."
    )
    if getattr(request, "htmx", False):  # set by HtmxMiddleware, before this one
        response = HttpResponse(format_html('<p class="form-error">{}</p>', message), status=400)
        return reswap(retarget(response, "#page-refusal"), "innerHTML")
    back = request.headers.get("referer", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = "/"
    return render(request, "refused.html", {"message": message, "back": back}, status=400)
