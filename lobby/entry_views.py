"""Register, unregister, rebuy and add-on buttons (Tournament Info and the lobby).

Each is a POST that calls one service; htmx swaps the player's registration card,
and without JavaScript the browser is sent back to the info page with a message.
"""

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from lobby.forms import PurchaseForm, RegisterForm
from tournaments.models import (
    ENTERED,
    Entry,
    EntryStatus,
    PaymentForm,
    PrizeStructure,
    Purchase,
    PurchaseKind,
    Status,
    Tournament,
)
from tournaments.selectors.entries import (
    PaymentOption,
    chips_refusal,
    entry_refusal,
    payment_options,
    unregister_refusal,
)
from tournaments.selectors.schedules import tournament_window
from tournaments.services.entries import entry_addon, entry_rebuy, entry_register, entry_unregister_receipt
from tournaments.services.refusals import TournamentError, refuse
from wallet.models import Currency
from wallet.money import format_money as money

FORM_LABELS = {
    PaymentForm.CASH: gettext_lazy("Register: pay %(amount)s"),
    PaymentForm.TMONEY: gettext_lazy("Register: pay %(amount)s in T-Money"),
    PaymentForm.TICKET: gettext_lazy("Register with a ticket"),
    PaymentForm.FREE: gettext_lazy("Register (free)"),
}


@dataclass(frozen=True)
class Button:
    label: str
    form: str = ""
    ticket: int | None = None
    affordable: bool = True


def registration_card_context(request, tournament: Tournament, *, message: str = "", error: str = "") -> dict:
    """What the player's registration card shows: their entry and what they can do now."""
    now = timezone.now()
    context = {"tournament": tournament, "message": message, "error": error, "key": uuid.uuid4().hex}
    if not request.user.is_authenticated:
        # After logging in, back to the page the card is on, not to a fragment's address.
        return_to = request.htmx.current_url_abs_path if request.htmx else None
        return {**context, "anonymous": True, "return_to": return_to or request.get_full_path()}
    entry = Entry.objects.filter(tournament=tournament, player=request.user, status__in=ENTERED).first()
    window = tournament_window(tournament)
    currency = tournament.pool_currency
    if entry is None:
        refusal = entry_refusal(tournament, now=now)
        options = [] if refusal else payment_options(tournament=tournament, player=request.user, now=now)
        refunded = (
            refusal == "cancelled"
            and tournament.entries.filter(player=request.user, status=EntryStatus.REFUNDED).exists()
        )
        return {
            **context,
            "closed": refusal,
            "refunded": refunded,
            "buttons": [_register_button(option) for option in options],
        }
    if entry.finish_best is not None:
        return {**context, "entry": entry, "finish": _finish(tournament, entry)}
    can = {
        "unregister": unregister_refusal(tournament, now=now) is None,
        "rebuy": chips_refusal(tournament, entry, kind=PurchaseKind.REBUY, now=now) is None,
        "addon": chips_refusal(tournament, entry, kind=PurchaseKind.ADDON, now=now) is None,
    }
    return {
        **context,
        "entry": entry,
        "can": can,
        "rebuy_price": money(tournament.rebuy_price + tournament.rebuy_fee, currency),
        "addon_price": money(tournament.addon_price + tournament.addon_fee, currency),
        "unregistration_closes_at": window.unregistration_closes_at,
    }


@dataclass(frozen=True)
class Finish:
    """How the viewer's entry ended: their place (rule 12) and what they won."""

    won: bool
    place: str
    prize_text: str  # "" when nothing was won or it is not paid yet
    prize_due: bool  # a cash prize not paid until the payouts are final (rule 7)


def _finish(tournament: Tournament, entry: Entry) -> Finish:
    best, worst = entry.finish_best, entry.finish_worst
    place = f"{best}" if worst in (None, best) else f"{best}-{worst}"
    satellite = tournament.prize_structure == PrizeStructure.SATELLITE  # seats, not money
    return Finish(
        won=best == 1 and worst in (None, 1) and tournament.status == Status.FINISHED,
        place=place,
        prize_text=money(entry.prize, tournament.pool_currency) if entry.prize else "",
        prize_due=entry.prize is None and not satellite,
    )


def registration_card(request, pk: int):
    """The viewer's registration card alone: a page fetches it again when the live
    socket says the viewer's entry changed (lobby.live)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    context = registration_card_context(request, tournament)
    return HttpResponse(render_to_string("lobby/registration_card.html", context, request))


def registration_row(request, pk: int):
    """The viewer's registration card for one lobby row, opened under it: the rows
    are shared by every viewer, the card is the viewer's own."""
    tournament = get_object_or_404(Tournament, pk=pk)
    return render(request, "lobby/registration_row.html", {"tournament": tournament})


def _register_button(option: PaymentOption) -> Button:
    label = str(FORM_LABELS[PaymentForm(option.form)]) % {"amount": money(option.amount, option.currency)}
    return Button(label=label, form=option.form, ticket=option.ticket_id, affordable=option.affordable)


def _act(request, pk: int, action, success: str):
    tournament = get_object_or_404(Tournament, pk=pk)
    if not request.user.is_authenticated:
        return _to_login(request, pk)
    try:
        action(tournament)
    except TournamentError as refused:
        return _answer(request, tournament, error=refused.message, status=400)
    return _answer(request, tournament, message=success)


def _to_login(request, pk: int):
    login = redirect_to_login(reverse("lobby:tournament", args=[pk]))
    return HttpResponseClientRedirect(login.url) if request.htmx else login


def _answer(request, tournament: Tournament, *, message: str = "", error: str = "", status: int = 200):
    if request.htmx:
        tournament.refresh_from_db()
        context = registration_card_context(request, tournament, message=message, error=error)
        return HttpResponse(render_to_string("lobby/registration_card.html", context, request), status=status)
    (messages.error if error else messages.success)(request, error or message)
    return redirect("lobby:tournament", pk=tournament.pk)


# What a registration, rebuy or add-on button posts is the page's own: changed, it is refused.
BUTTON_CHANGED = gettext_lazy("This button is out of date: load the page again and choose again.")


@require_POST
def register(request, pk: int):
    form = RegisterForm(request.POST)
    if not form.is_valid():
        return _refused(request, pk)
    return _act(
        request,
        pk,
        lambda tournament: entry_register(
            tournament_id=tournament.pk,
            player=request.user,
            now=timezone.now(),
            form=form.cleaned_data["form"] or None,
            ticket_id=form.cleaned_data["ticket"],
            idempotency_key=form.cleaned_data["key"] or None,
        ),
        _("You are registered. Good luck!"),
    )


def _refused(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    if not request.user.is_authenticated:
        return _to_login(request, pk)
    return _answer(request, tournament, error=str(BUTTON_CHANGED), status=400)


@require_http_methods(["GET", "POST"])
def unregister(request, pk: int):
    """Asks first (GET, or a POST without `confirm`): "Unregister from X? You get
    back Y", as the card (htmx) or a page of its own; the confirmed POST takes the
    entry back and says what was refunded."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        return _unregister(request, pk)
    tournament = get_object_or_404(Tournament, pk=pk)
    if not request.user.is_authenticated:
        return _to_login(request, pk)
    entry = Entry.objects.filter(tournament=tournament, player=request.user, status__in=ENTERED).first()
    refusal = "not_registered" if entry is None else unregister_refusal(tournament, now=timezone.now())
    if refusal:
        return _answer(request, tournament, error=refuse(refusal).message, status=400)
    assert entry is not None  # refused above otherwise
    refund = refund_text(entry.purchases.filter(refunded_at=None).order_by("pk"))
    context = {"tournament": tournament, "refund": refund}
    template = "lobby/unregister.html#card" if request.htmx else "lobby/unregister.html"
    return render(request, template, context)


def _unregister(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    if not request.user.is_authenticated:
        return _to_login(request, pk)
    try:
        receipt = entry_unregister_receipt(tournament_id=tournament.pk, player=request.user, now=timezone.now())
    except TournamentError as refused:
        return _answer(request, tournament, error=refused.message, status=400)
    done = _("You are unregistered from %(name)s. Back in your wallet: %(refund)s.")
    return _answer(
        request, tournament, message=done % {"name": tournament.name, "refund": refund_text(receipt.purchases)}
    )


def refund_text(purchases: Iterable[Purchase]) -> str:
    """What a refund of `purchases` gives back, in the form each was paid (rule 10):
    cash, T-Money (a satellite seat's too) or the ticket."""
    parts = []
    for purchase in purchases:
        if purchase.form == PaymentForm.CASH:
            parts.append(_("%(amount)s in cash") % {"amount": money(purchase.total, purchase.currency)})
        elif purchase.form in (PaymentForm.TMONEY, PaymentForm.SEAT):
            parts.append(_("%(amount)s in T-Money") % {"amount": money(purchase.total, Currency.TMONEY)})
        elif purchase.form == PaymentForm.TICKET:
            parts.append(_("your ticket (worth %(amount)s)") % {"amount": money(purchase.total, purchase.currency)})
    return ", ".join(parts) or _("nothing: the entry was free")


def _buy_chips(request, pk: int, service, success: str):
    form = PurchaseForm(request.POST)
    if not form.is_valid():
        return _refused(request, pk)
    return _act(
        request,
        pk,
        lambda tournament: service(
            tournament_id=tournament.pk,
            player=request.user,
            now=timezone.now(),
            idempotency_key=form.cleaned_data["key"] or None,
        ),
        success,
    )


@require_POST
def rebuy(request, pk: int):
    return _buy_chips(request, pk, entry_rebuy, _("Rebuy done: the chips are added to your stack."))


@require_POST
def addon(request, pk: int):
    return _buy_chips(request, pk, entry_addon, _("Add-on taken: the chips are added to your stack."))
