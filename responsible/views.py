"""The player's responsible-gaming page: his deposit limits, set, raised, lowered and
removed by himself, a raise or removal pending for 24 hours and cancellable; his
reality check; a break or self-exclusion. And the reality check itself."""

from datetime import datetime

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from responsible.exclusions import exclusion_start
from responsible.forms import DepositLimitForm, ExclusionForm, PendingCancelForm, RealityCheckForm
from responsible.reality import next_reminder, reality_check_set, reminder_shown
from responsible.selectors import limits_shown
from responsible.services import ResponsibleRefusal, deposit_limit_cancel, deposit_limit_set, exclusion_message
from wallet.money import minor_units


@never_cache
@login_required
def limits(request):
    """The page; each of its forms posts here, told apart by its button's name."""
    now = timezone.now()
    forms = {
        "form": DepositLimitForm(),
        "exclusion_form": ExclusionForm(),
        "reality_form": RealityCheckForm(initial={"every": request.user.reality_check_minutes}),
    }
    status = 200
    if request.method == "POST":
        handler = next((POSTS[name] for name in POSTS if request.POST.get(name) == "1"), _limit_set)
        handled = handler(request, now)
        if isinstance(handled, HttpResponse):
            return handled
        forms.update(handled)  # the form that failed, with its errors
        status = 400
    context = {**forms, "limits": limits_shown(request.user, now)}
    return render(request, "responsible/limits.html", context, status=status)


def _limit_set(request, now: datetime) -> HttpResponse | dict:
    form = DepositLimitForm(request.POST)
    if not form.is_valid():
        return {"form": form}
    amount = form.cleaned_data["amount"]
    try:
        row = deposit_limit_set(
            player=request.user,
            period=form.cleaned_data["period"],
            amount=None if amount is None else minor_units(amount),
            now=now,
        )
    except ResponsibleRefusal as refused:
        form.add_error("amount", refused.message)
        return {"form": form}
    if row.pending_from is not None:
        messages.success(request, _("Your limit goes up or away in 24 hours; until then the lower one applies."))
    else:
        messages.success(request, _("Your limit applies now."))
    return redirect("responsible:limits")


def _pending_cancel(request, now: datetime) -> HttpResponse | dict:
    cancel = PendingCancelForm(request.POST)
    if not cancel.is_valid():
        return {}
    deposit_limit_cancel(player=request.user, period=cancel.cleaned_data["period"], now=now)
    messages.success(request, _("The pending change is cancelled: your limit stays as it is."))
    return redirect("responsible:limits")


def _reality_check_set(request, now: datetime) -> HttpResponse | dict:
    form = RealityCheckForm(request.POST)
    if not form.is_valid():
        return {"reality_form": form}
    every = form.cleaned_data["every"]
    reality_check_set(player=request.user, minutes=every)
    if every is None:
        messages.success(request, _("No more reality checks."))
    else:
        messages.success(request, _("You will be reminded every %(minutes)d minutes of play.") % {"minutes": every})
    return redirect("responsible:limits")


def _exclusion_start(request, now: datetime) -> HttpResponse | dict:
    form = ExclusionForm(request.POST)
    if not form.is_valid():
        return {"exclusion_form": form}
    exclusion = exclusion_start(
        player=request.user, kind=form.cleaned_data["kind"], days=form.cleaned_data["days"], now=now
    )
    logout(request)
    return render(request, "responsible/excluded.html", {"message": exclusion_message(exclusion)})


# A post's button name: what it asks; without one of these, a deposit limit is set.
POSTS = {"reality": _reality_check_set, "cancel": _pending_cancel, "exclude": _exclusion_start}


@never_cache
@require_GET
def reality_check(request):
    """The reality check when it is due, else the slot that asks again when it is.
    Nothing (204) for a visitor or a player who asked for no reminders."""
    if (upcoming := next_reminder(request)) is None:
        return HttpResponse(status=204)
    if upcoming.delay > 0:
        return render(request, "responsible/reality_check_slot.html", {"delay": upcoming.delay})
    return render(request, "responsible/reality_check.html", reminder_shown(request, upcoming))
