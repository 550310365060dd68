"""The staff console's wallet tools: find a player, see their wallet, deposit,
adjust, issue T-Money and tickets. Staff only; every change goes through the
wallet's services, which audit it (rule 1)."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from responsible.selectors import exclusions_shown, limits_shown, responsible_history
from support.forms import AdjustForm, DepositForm, MuteForm, PlayerSearchForm, TicketForm, TMoneyForm
from support.models import Ticket, TicketStatus
from tournaments.models import ChatMute, Tournament
from tournaments.selectors.transfers import transfer_tournament_ids
from wallet.models import Currency, TransferReason
from wallet.money import format_money, format_money_change, minor_units
from wallet.selectors import wallet_balance, wallet_history, wallet_summary
from wallet.services import InsufficientFunds, WalletError, deposit_create, staff_adjust, tmoney_issue
from wallet.tickets import ticket_issue

SEARCH_LIMIT = 50
HISTORY_SHOWN = 25
REASON_LABELS = dict(TransferReason.choices)
FORMS = {"deposit": DepositForm, "adjust": AdjustForm, "tmoney": TMoneyForm, "ticket": TicketForm}


def staff_required(view):
    """Anonymous visitors go to the login page; signed-in non-staff get 403."""

    @wraps(view)
    def guarded(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return never_cache(guarded)


@require_GET
@staff_required
def home(request):
    """The console's front page: what waits for staff, and every tool."""
    waiting = Ticket.objects.exclude(status=TicketStatus.CLOSED)
    deals = waiting.filter(negotiation__isnull=False).select_related("tournament", "claimed_by", "negotiation")
    context = {
        "open_tickets": waiting.count(),
        "unclaimed": waiting.filter(claimed_by=None).count(),
        "deals": deals.order_by("-urgent", "created_at"),
        "form": PlayerSearchForm(),
    }
    return render(request, "support/home.html", context)


@require_GET
@staff_required
def player_search(request):
    form = PlayerSearchForm(request.GET)
    query = form.cleaned_data["q"].strip() if form.is_valid() else ""
    players = []
    if query:
        players = list(
            get_user_model()
            .objects.filter(Q(username__icontains=query) | Q(screen_name__icontains=query) | Q(email__icontains=query))
            .order_by("screen_name", "pk")[:SEARCH_LIMIT]
        )
    return render(request, "support/player_search.html", {"form": form, "query": query, "players": players})


@require_GET
@staff_required
def player_wallet(request, pk: int):
    return _wallet_page(request, player_or_404(pk))


@require_POST
@staff_required
def deposit(request, pk: int):
    def act(player, form, key):
        data = form.cleaned_data
        amount = minor_units(data["amount"])
        deposit_create(user=player, currency=data["currency"], amount=amount, idempotency_key=key, actor=request.user)
        return _("Deposited %(amount)s.") % {"amount": format_money(amount, data["currency"])}

    return _money_form(request, pk, "deposit", act)


@require_POST
@staff_required
def adjust(request, pk: int):
    def act(player, form, key):
        data = form.cleaned_data
        amount = minor_units(data["amount"])
        try:
            staff_adjust(
                user=player,
                currency=data["currency"],
                amount=amount,
                reason=data["reason"],
                actor=request.user,
                idempotency_key=key,
            )
        except InsufficientFunds:
            balance = format_money(wallet_balance(player, data["currency"]), data["currency"])
            message = _("That would take %(player)s below zero: the balance is %(balance)s.")
            raise ValidationError({"amount": message % {"player": player, "balance": balance}}) from None
        signed = format_money_change(amount, data["currency"])
        return _("Adjusted by %(amount)s.") % {"amount": signed}

    return _money_form(request, pk, "adjust", act)


@require_POST
@staff_required
def tmoney(request, pk: int):
    def act(player, form, key):
        data = form.cleaned_data
        amount = minor_units(data["amount"])
        tmoney_issue(user=player, amount=amount, reason=data["reason"], actor=request.user, idempotency_key=key)
        return _("Issued %(amount)s.") % {"amount": format_money(amount, Currency.TMONEY)}

    return _money_form(request, pk, "tmoney", act)


@require_POST
@staff_required
def ticket(request, pk: int):
    def act(player, form, key):
        data = form.cleaned_data
        value = minor_units(data["value"])
        ticket_issue(
            idempotency_key=key,
            owner=player,
            value=value,
            currency=data["currency"],
            expires_at=form.expires_at(),
            tournament_ref=data["tournament"],
            reason=data["reason"],
            actor=request.user,
        )
        return _("Issued a ticket worth %(value)s.") % {"value": format_money(value, data["currency"])}

    return _money_form(request, pk, "ticket", act)


def _money_form(request, pk: int, name: str, act):
    """One of the console's forms, posted: `act(player, valid_form, key)` moves the
    value through the wallet and says what it did; a refusal comes back on the form
    (ValidationError on its field, WalletError above it), with nothing changed."""
    player = player_or_404(pk)
    form = FORMS[name](request.POST, prefix=name)
    if form.is_valid():
        try:
            message = act(player, form, form.ledger_key(name))
        except ValidationError as error:
            form.add_error(None, error)
        except WalletError as error:
            form.add_error(None, str(error))
        else:
            return _done(request, player, message)
    return _wallet_page(request, player, **{name: form})


def player_or_404(pk: int):
    return get_object_or_404(get_user_model(), pk=pk)


def _done(request, player, message: str):
    messages.success(request, message)
    return redirect("support:player", pk=player.pk)


def _wallet_page(request, player, **bound):
    """The player's wallet with the four forms: a form that failed comes back bound,
    with its errors; every form shown carries a new key."""
    for form in bound.values():
        form.renew_key()
    forms = {name: bound.get(name) or form_class.fresh(prefix=name) for name, form_class in FORMS.items()}
    summary = wallet_summary(player)
    rows = list(wallet_history(player)[:HISTORY_SHOWN])
    about = transfer_tournament_ids(rows)
    tournaments = Tournament.objects.only("pk", "name").in_bulk(set(about.values()))
    history = [_history_row(row, tournaments.get(about.get(row["pk"], 0))) for row in rows]
    context = {
        "player": player,
        "mute_form": MuteForm(),
        "muted": ChatMute.objects.filter(player=player, until__gt=timezone.now()).order_by("-until").first(),
        "balances": summary.balances,
        "tickets": summary.tickets,
        "history": history,
        "forms": forms,
        "limits": limits_shown(player, timezone.now()),
        "exclusions": exclusions_shown(player, timezone.now()),
        "responsible_history": responsible_history(player),
    }
    return render(request, "support/player_wallet.html", context, status=400 if bound else 200)


def _history_row(row: dict, tournament: Tournament | None) -> dict:
    amount = row["signed_amount"]
    return {
        **row,
        "reason_label": REASON_LABELS.get(row["reason"], row["reason"]),
        "credit": amount > 0,
        "amount_text": format_money_change(amount, row["currency"]),
        "tournament": tournament,
    }


@require_GET
@staff_required
def tickets(request):
    """The staff queue: open and claimed tickets, urgent first, live."""
    queue = (
        Ticket.objects.exclude(status=TicketStatus.CLOSED)
        .select_related("tournament", "opened_by", "claimed_by", "negotiation")
        .order_by("-urgent", "created_at")
    )
    template = "support/tickets.html#queue" if request.GET.get("part") == "queue" else "support/tickets.html"
    return render(request, template, {"tickets": queue})
