"""Instants as the site writes them, in the viewer's time zone (lobby.middleware
activates it) and language: "Thu 31 Dec, 23:59", "tor 31. dec, 23:59", with the
year when it is not this year's. static/js/portal.js writes them the same way in
the browser's own zone."""

from datetime import datetime

from django.utils import formats, timezone
from django.utils.translation import gettext as _


def moment_format(moment: datetime, *, now: datetime | None = None) -> str:
    """The date filter's format for `moment`: with the year only when it is not this year."""
    zone = timezone.get_current_timezone()
    this_year = (now or timezone.now()).astimezone(zone).year
    if moment.astimezone(zone).year == this_year:
        # Translators: a date format for the date filter: D weekday, j day, M month (b: lower case), Y year, H:i time.
        return _("D j M, H:i")
    return _("D j M Y, H:i")


def moment_text(moment: datetime, *, now: datetime | None = None) -> str:
    """`moment` written out in the site's one format, as text (a message, a refusal)."""
    return formats.date_format(timezone.localtime(moment), moment_format(moment, now=now))
