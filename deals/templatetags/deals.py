"""{% load deals %}: the deal card Tournament Info shows its viewer (rule 23)."""

from django import template

from deals.views import deal_card_context

register = template.Library()


@register.inclusion_tag("deals/deal_card.html", takes_context=True)
def deal_card(context, tournament):
    """The viewer's own deal card on Tournament Info: ask for a deal, or open the
    negotiation they take part in. Never part of a shared page."""
    request = context["request"]
    return {**deal_card_context(request, tournament), "request": request, "csrf_token": context.get("csrf_token")}
