"""An instant as the site shows times: rendered in the viewer's zone (the "tz"
cookie, lobby.middleware) inside <time data-local>, which static/js/portal.js
rewrites in the browser's own zone before the cookie exists."""

from datetime import datetime

from django import template
from django.template.defaultfilters import date
from django.utils import timezone
from django.utils.html import format_html

register = template.Library()


@register.filter
def local_time(moment: datetime | None, format_string: str = "H:i") -> str:
    if moment is None:
        return ""
    return format_html(
        '<time datetime="{}" data-local>{}</time>', moment.isoformat(), date(timezone.localtime(moment), format_string)
    )
