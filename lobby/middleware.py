import zoneinfo
from urllib.parse import unquote

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.utils import timezone

TIMEZONE_COOKIE = "tz"


class ViewerTimezoneMiddleware:
    """Show times in the viewer's own time zone, which the page's script stores in
    a cookie; without it (first visit, no JavaScript) times are shown in UTC."""

    # Both handlers (config.middleware says why).
    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        self._activate(request)
        return self.get_response(request)  # awaited by the caller under ASGI

    @staticmethod
    def _activate(request) -> None:
        # The script stores the zone URL-encoded ("Europe%2FCopenhagen").
        name = unquote(request.COOKIES.get(TIMEZONE_COOKIE, ""))
        try:
            timezone.activate(zoneinfo.ZoneInfo(name)) if name else timezone.deactivate()
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.deactivate()
