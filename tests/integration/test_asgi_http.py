"""Pages served over ASGI (the demo serves every page from config.asgi)."""

import asyncio

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.utils import timezone
from django.utils.module_loading import import_string

from config.middleware import StaticFilesMiddleware, TextInputMiddleware
from lobby.middleware import ViewerTimezoneMiddleware


def test_every_middleware_runs_async_so_a_browser_leaving_mid_request_breaks_nothing():
    # A synchronous-only middleware makes Django run the rest of an ASGI request in
    # async_to_sync; a browser that left mid-request (htmx replacing a request, a
    # click on) broke its executor, and the demo's log showed Django's end of the
    # request failing with "CurrentThreadExecutor already quit or is broken".
    sync_only = [path for path in settings.MIDDLEWARE if not getattr(import_string(path), "async_capable", False)]
    assert sync_only == []


def test_the_viewers_time_zone_reaches_an_async_view(rf):
    async def page(request):
        return HttpResponse(timezone.get_current_timezone_name())

    request = rf.get("/", headers={"cookie": "tz=Europe/Copenhagen"})
    response = asyncio.run(ViewerTimezoneMiddleware(page)(request))
    assert response.content.decode() == "Europe/Copenhagen"


# Closing the file's response sends request_finished, whose handler checks the
# database connections a test before may have left open.
@pytest.mark.django_db
def test_static_files_and_pages_both_pass_the_async_static_middleware(rf):
    async def page(request):
        return HttpResponse("the page")

    middleware = StaticFilesMiddleware(page)
    assert asyncio.run(middleware(rf.get("/"))).content == b"the page"
    static = asyncio.run(middleware(rf.get(f"{settings.STATIC_URL}css/portal.css")))
    assert static.status_code == 200
    assert static["content-type"].startswith("text/css")
    static.close()


def test_text_that_cannot_be_read_is_refused_before_an_async_view(rf):
    async def page(request):
        return HttpResponse("the page")

    middleware = TextInputMiddleware(page)
    refused = asyncio.run(middleware(rf.post("/", "q=a%00b", content_type="application/x-www-form-urlencoded")))
    passed = asyncio.run(middleware(rf.get("/?q=caf%C3%A9")))

    assert refused.status_code == 400
    assert "NUL character" in refused.content.decode()
    assert passed.content == b"the page"
