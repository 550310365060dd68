"""`{% load money %}`: amounts of money in templates, as wallet.money writes them."""

from django import template

from wallet.money import format_money

register = template.Library()
register.filter("money", format_money)
