"""The deal pages (rule 23): the negotiation page every participant and staff
member sees, with each one's own buttons, and the card on Tournament Info. Every
action is a service call; a refusal comes back as a message on the page."""

from decimal import Decimal, InvalidOperation

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from tournaments.models import Entry, EntryStatus, Table, Tournament
from tournaments.services.refusals import TournamentError
from wallet.money import format_money, minor_units

from deals import services
from deals.models import Negotiation, NegotiationStatus, Proposal, ProposalKind
from deals.selectors import active_negotiation, open_proposal, proposal_lines

# Far above any prize pool, and well inside the database's integers.
MAX_AMOUNT = Decimal("9999999999.99")


def deal_card_context(request, tournament: Tournament) -> dict:
    user = request.user
    negotiation = active_negotiation(tournament.pk)
    taking_part = bool(
        negotiation
        and user.is_authenticated
        and (user.is_staff or negotiation.participants.filter(entry__player=user).exists())
    )
    at_final_table = (
        user.is_authenticated
        and tournament.deals_allowed
        and tournament.entries.filter(player=user, status=EntryStatus.ACTIVE, finish_best=None).exists()
        and Table.objects.filter(tournament=tournament, broken_at=None).count() == 1
    )
    return {
        "tournament": tournament,
        "negotiation": negotiation,
        "taking_part": taking_part,
        "can_ask": at_final_table and negotiation is None and not hasattr(tournament, "deal"),
        "all_want_to": bool(negotiation and not negotiation.participants.exclude(wants_to_negotiate=True).exists()),
        "deal": (deal := getattr(tournament, "deal", None)),
        "deal_lines": _deal_lines(deal),
    }


def _deal_lines(deal) -> list[tuple[str, int]]:
    """Who agreed to what in the deal (rule 23), by amount: what everyone may see."""
    if deal is None:
        return []
    names = dict(Entry.objects.filter(pk__in=[int(pk) for pk in deal.amounts]).values_list("pk", "player__screen_name"))
    return sorted(((names[int(pk)], amount) for pk, amount in deal.amounts.items()), key=lambda line: -line[1])


@require_GET
@never_cache
def deal_card(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return render(request, "deals/deal_card.html", deal_card_context(request, tournament))


@require_POST
def deal_request(request, tournament_id: int):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    get_object_or_404(Tournament, pk=tournament_id)
    try:
        negotiation = services.chop_request(tournament_id=tournament_id, player=request.user, now=timezone.now())
    except TournamentError as error:
        messages.error(request, error.message)
        return redirect("lobby:tournament", tournament_id)
    messages.success(
        request, _("Support has been called to the table. Every player is asked whether they want to negotiate.")
    )
    return redirect("deals:negotiation", negotiation.pk)


def _allowed(view):
    """Participants and staff only; anonymous visitors go to log in."""

    def guarded(request, pk: int, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        negotiation = get_object_or_404(Negotiation.objects.select_related("tournament", "ticket"), pk=pk)
        if not request.user.is_staff and not negotiation.participants.filter(entry__player=request.user).exists():
            raise PermissionDenied
        return view(request, negotiation, *args, **kwargs)

    return never_cache(guarded)


def _page_context(request, negotiation: Negotiation, typed: dict[str, str] | None = None) -> dict:
    user = request.user
    participants = list(negotiation.participants.select_related("entry__player"))
    mine = next((p for p in participants if p.entry.player_id == user.pk), None)
    proposal = open_proposal(negotiation)
    lines = proposal_lines(proposal) if proposal else []
    deal = getattr(negotiation, "deal", None) if negotiation.status == NegotiationStatus.AGREED else None
    return {
        "negotiation": negotiation,
        "tournament": negotiation.tournament,
        "currency": negotiation.tournament.pool_currency,
        "participants": participants,
        "mine": mine,
        "mediator": user.is_staff and negotiation.ticket.claimed_by_id == user.pk,
        "proposal": proposal,
        "lines": lines,
        "my_answer": next((line.answer for line in lines if mine and line.entry_id == mine.entry_id), None),
        "history": negotiation.proposals.exclude(pk__in=[proposal.pk] if proposal else []).order_by("-created_at"),
        "deal": deal,
        "deal_lines": [
            {"player": p.entry.player.screen_name, "amount": deal.amount_for(p.entry_id)} for p in participants
        ]
        if deal
        else [],
        "all_want_to": all(p.wants_to_negotiate for p in participants),
        # A player's own proposal is her acceptance: the page says whose it is.
        "proposer": proposal.created_by.screen_name if proposal and not proposal.created_by.is_staff else "",
        "kinds": ProposalKind.choices,
        # The proposal form's amounts as typed, kept when the form comes back refused.
        "typed": typed or {},
        "amount_fields": [
            (participant, (typed or {}).get(f"amount-{participant.entry_id}", "")) for participant in participants
        ],
        "active": negotiation.status in (NegotiationStatus.ASKING, NegotiationStatus.NEGOTIATING),
    }


@require_GET
@_allowed
def negotiation_page(request, negotiation: Negotiation):
    return render(request, "deals/negotiation.html", _page_context(request, negotiation))


@require_GET
@_allowed
def negotiation_card(request, negotiation: Negotiation):
    return render(request, "deals/negotiation.html#card", _page_context(request, negotiation))


def _refused(request, negotiation: Negotiation, *errors: str, typed: dict[str, str] | None = None):
    """The page again with what is wrong (a 400): the request changed nothing."""
    for error in errors:
        messages.error(request, error)
    return render(request, "deals/negotiation.html", _page_context(request, negotiation, typed), status=400)


def _act(request, negotiation: Negotiation, action, done: str = ""):
    try:
        action()
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        if done:
            messages.success(request, done)
    return redirect("deals:negotiation", negotiation.pk)


@require_POST
@_allowed
def consent(request, negotiation: Negotiation):
    choice = request.POST.get("wants")
    if choice not in ("yes", "no"):
        return _refused(request, negotiation, _("Answer yes or no: do you want to negotiate a deal?"))
    wants = choice == "yes"
    return _act(
        request,
        negotiation,
        lambda: services.chop_consent(
            negotiation_id=negotiation.pk, player=request.user, wants=wants, now=timezone.now()
        ),
    )


def _staff_only(request) -> None:
    if not request.user.is_staff:
        raise PermissionDenied


@require_POST
@_allowed
def claim(request, negotiation: Negotiation):
    _staff_only(request)
    return _act(
        request,
        negotiation,
        lambda: services.chop_claim(negotiation_id=negotiation.pk, staff=request.user, now=timezone.now()),
        _("You mediate this deal."),
    )


@require_POST
@_allowed
def stop_clock(request, negotiation: Negotiation):
    _staff_only(request)
    return _act(
        request,
        negotiation,
        lambda: services.chop_stop_clock(negotiation_id=negotiation.pk, staff=request.user, now=timezone.now()),
        _("The clock is stopped: a deal is in progress."),
    )


@require_POST
@_allowed
def end(request, negotiation: Negotiation):
    _staff_only(request)
    reason = request.POST.get("reason", "")
    return _act(
        request,
        negotiation,
        lambda: services.negotiation_end(
            negotiation_id=negotiation.pk, staff=request.user, reason=reason, now=timezone.now()
        ),
        _("The negotiation has ended; the clock goes again."),
    )


@require_POST
@_allowed
def propose(request, negotiation: Negotiation):
    kind = request.POST.get("kind", "")
    if kind not in ProposalKind.values or (kind != ProposalKind.CUSTOM and not request.user.is_staff):
        messages.error(request, _("Choose how to share: ICM, chip-count chop, equal split or custom amounts."))
        return redirect("deals:negotiation", negotiation.pk)
    currency = negotiation.tournament.pool_currency
    typed = {name: value for name, value in request.POST.items() if name == "play_for" or name.startswith("amount-")}
    errors = []
    play_for = None
    if request.user.is_staff:
        try:
            play_for = _minor_units(request.POST.get("play_for", ""), currency=currency)
        except AmountError as error:
            errors.append(_("Left to play for: %(problem)s") % {"problem": error})
    amounts = None
    if kind == ProposalKind.CUSTOM:
        amounts = {}
        for participant in negotiation.participants.select_related("entry__player"):
            try:
                amount = _minor_units(request.POST.get(f"amount-{participant.entry_id}", ""), currency=currency)
            except AmountError as error:
                errors.append(f"{participant.entry.player.screen_name}: {error}")
                continue
            if amount is None:
                errors.append(
                    _("%(player)s: give an amount, 0 or more.") % {"player": participant.entry.player.screen_name}
                )
            else:
                amounts[participant.entry_id] = amount
    if errors:
        return _refused(request, negotiation, *errors, typed=typed)
    try:
        proposal = services.proposal_create(
            negotiation_id=negotiation.pk,
            author=request.user,
            kind=kind,
            play_for=play_for,
            amounts=amounts,
            now=timezone.now(),
        )
    except TournamentError as error:
        return _refused(request, negotiation, error.message, typed=typed)
    if proposal.created_by_id == request.user.pk and not request.user.is_staff:
        messages.success(request, _("Your proposal is on every player's screen; it counts as your acceptance."))
    else:
        messages.success(request, _("The proposal is on every player's screen."))
    return redirect("deals:negotiation", negotiation.pk)


@require_POST
@_allowed
def withdraw(request, negotiation: Negotiation, proposal_id: int):
    _staff_only(request)
    proposal = get_object_or_404(Proposal, pk=proposal_id, negotiation=negotiation)
    reason = request.POST.get("reason", "")
    return _act(
        request,
        negotiation,
        lambda: services.proposal_withdraw(
            proposal_id=proposal.pk, staff=request.user, reason=reason, now=timezone.now()
        ),
        _("The proposal is withdrawn."),
    )


@require_POST
@_allowed
def answer(request, negotiation: Negotiation, proposal_id: int):
    proposal = get_object_or_404(Proposal, pk=proposal_id, negotiation=negotiation)
    choice = request.POST.get("answer")
    if choice not in ("accept", "reject"):
        return _refused(request, negotiation, _("Answer the proposal: accept it or reject it."))
    accept = choice == "accept"
    return _act(
        request,
        negotiation,
        lambda: services.proposal_answer(
            proposal_id=proposal.pk, player=request.user, accept=accept, now=timezone.now()
        ),
    )


class AmountError(ValueError):
    """An amount typed that is not one; the message says what is wrong with it."""


def _minor_units(text: str, *, currency: str) -> int | None:
    """An amount typed in whole currency units, in minor units (None when blank);
    AmountError saying what is wrong for anything that is not a finite number of
    at most two decimals from 0 to MAX_AMOUNT."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        amount = Decimal(text.replace(",", ""))
    except InvalidOperation:
        amount = None
    # Decimal also reads "Infinity", "sNaN" and "1e40": refuse them before any arithmetic.
    if amount is None or not amount.is_finite():
        raise AmountError(_("“%(typed)s” is not an amount: write a number, like 12.50.") % {"typed": text})
    if amount < 0:
        raise AmountError(_("“%(typed)s” is negative: an amount is 0 or more.") % {"typed": text})
    if amount > MAX_AMOUNT:
        most = format_money(minor_units(MAX_AMOUNT), currency)
        raise AmountError(_("“%(typed)s” is too large: an amount is at most %(most)s.") % {"typed": text, "most": most})
    if amount != amount.quantize(Decimal("0.01")):
        raise AmountError(_("“%(typed)s” has more than two decimals: write it like 12.50.") % {"typed": text})
    return minor_units(amount)
