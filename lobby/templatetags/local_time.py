"""An instant as the site shows times: rendered in the viewer's zone (the "tz"
cookie, lobby.middleware) inside <time data-local>, which static/js/portal.js
rewrites in the browser's own zone before the cookie exists. `moment` writes a
day and a time (tournaments.dates); `local_time` a time alone, or its format."""

from datetime import datetime

from django import template
from django.template.defaultfilters import date
from django.utils import timezone
from django.utils.html import format_html

from tournaments.dates import moment_text

register = template.Library()


@register.filter
def local_time(moment: datetime | None, format_string: str = "H:i") -> str:
    if moment is None:
        return ""
    return format_html(
        '<time datetime="{}" data-local>{}</time>', moment.isoformat(), date(timezone.localtime(moment), format_string)
    )


@register.filter
def moment(value: datetime | None) -> str:
    """An instant in the site's one format (tournaments.dates), its year shown when
    it is not this year's, inside <time data-local>."""
    if value is None:
        return ""
    return format_html('<time datetime="{}" data-local>{}</time>', value.isoformat(), moment_text(value))
