"""`{% reality_check %}`: on a signed-in player's page, his reality check when it is
due as the page is made (an open dialog, which works without JavaScript; the script
makes it modal), else the slot that asks for it when it is (responsible.reality)."""

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from responsible.reality import next_reminder, reminder_shown

register = template.Library()


@register.simple_tag(takes_context=True)
def reality_check(context) -> SafeString | str:
    request = context["request"]
    if (upcoming := next_reminder(request)) is None:
        return ""
    if upcoming.delay > 0:
        return render_to_string("responsible/reality_check_slot.html", {"delay": upcoming.delay})
    return render_to_string(
        "responsible/reality_check.html", {**reminder_shown(request, upcoming), "open": True}, request=request
    )
