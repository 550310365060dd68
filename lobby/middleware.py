import zoneinfo
from urllib.parse import unquote

from django.utils import timezone

TIMEZONE_COOKIE = "tz"


class ViewerTimezoneMiddleware:
    """Show times in the viewer's own time zone, which the page's script stores in
    a cookie; without it (first visit, no JavaScript) times are shown in UTC."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # The script stores the zone URL-encoded ("Europe%2FCopenhagen").
        name = unquote(request.COOKIES.get(TIMEZONE_COOKIE, ""))
        try:
            timezone.activate(zoneinfo.ZoneInfo(name)) if name else timezone.deactivate()
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.deactivate()
        return self.get_response(request)
