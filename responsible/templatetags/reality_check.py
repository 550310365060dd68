"""`{% reality_check %}`: on a signed-in player's page, the slot that asks for his
next reality check when it is due (responsible.reality)."""

from django import template

from responsible.reality import reminder_delay

register = template.Library()


@register.inclusion_tag("responsible/reality_check_slot.html", takes_context=True)
def reality_check(context) -> dict:
    return {"delay": reminder_delay(context["request"])}
