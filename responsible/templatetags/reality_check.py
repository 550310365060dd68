"""`{% reality_check %}`: on a signed-in player's page, the slot that asks for his
next reality check when it is due (responsible.reality)."""

from django import template

from responsible.reality import next_reminder

register = template.Library()


@register.inclusion_tag("responsible/reality_check_slot.html", takes_context=True)
def reality_check(context) -> dict:
    upcoming = next_reminder(context["request"])
    return {"delay": upcoming.delay if upcoming else None}
