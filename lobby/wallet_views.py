"""The player's wallet page: balances, tickets and the history of their money."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.cache import never_cache

from tournaments.models import Tournament
from tournaments.selectors.transfers import transfer_tournament_ids
from wallet.models import TransferReason
from wallet.money import format_money, format_money_change
from wallet.selectors import wallet_history, wallet_summary

HISTORY_PAGE_SIZE = 25
REASON_LABELS = dict(TransferReason.choices)


@never_cache  # someone's own money: no shared or back-button copies
@login_required
def wallet(request):
    """The signed-in player's own wallet (never anyone else's: it takes no id); only
    the history when htmx turns its pages."""
    summary = wallet_summary(request.user)
    page = Paginator(wallet_history(request.user), HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    about = transfer_tournament_ids(page.object_list)
    tickets_for = {ticket.tournament_ref for ticket in summary.tickets if ticket.tournament_ref is not None}
    names = _tournament_names(tickets_for | set(about.values()))
    context = {
        "balances": summary.balances,
        "tickets": [_ticket_row(ticket, names) for ticket in summary.tickets],
        "page": page,
        "history": [_history_row(row, about.get(row["pk"]), names) for row in page.object_list],
    }
    template = "lobby/wallet.html#history" if request.htmx else "lobby/wallet.html"
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request",))
    return response


def _tournament_names(ids: set[int]) -> dict[int, str]:
    # The ledger keeps tournament ids only (wallet imports nothing from
    # tournaments); one query names those on this page.
    if not ids:
        return {}
    return dict(Tournament.objects.filter(pk__in=ids).values_list("pk", "name"))


def _ticket_row(ticket, names: dict[int, str]) -> dict:
    tournament_id = ticket.tournament_ref
    return {
        "ticket": ticket,
        "value_text": format_money(ticket.value, ticket.currency),
        "tournament_id": tournament_id if tournament_id in names else None,
        "tournament_name": names.get(tournament_id),
        "any_event": tournament_id is None,
    }


def _history_row(row: dict, tournament_id: int | None, names: dict[int, str]) -> dict:
    amount = row["signed_amount"]
    return {
        **row,
        "reason_label": REASON_LABELS.get(row["reason"], row["reason"]),
        "credit": amount > 0,
        "amount_text": format_money_change(amount, row["currency"]),
        "tournament_id": tournament_id if tournament_id in names else None,
        "tournament_name": names.get(tournament_id) if tournament_id is not None else None,
    }
