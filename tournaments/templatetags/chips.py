"""`{% load chips %}`: chip counts in templates, in the viewer's language."""

from django import template
from django.utils import formats

register = template.Library()


@register.filter
def chips(amount: int | None) -> str:
    return formats.number_format(int(amount or 0), 0, use_l10n=True, force_grouping=True)
