"""The player's responsible-gaming page: his deposit limits, set, raised, lowered and
removed by himself, a raise or removal pending for 24 hours and cancellable."""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from responsible.exclusions import exclusion_start
from responsible.forms import DepositLimitForm, ExclusionForm, PendingCancelForm
from responsible.selectors import limits_shown
from responsible.services import DepositRefused, deposit_limit_cancel, deposit_limit_set, exclusion_message
from wallet.money import minor_units


@never_cache
@login_required
def limits(request):
    now = timezone.now()
    form = DepositLimitForm()
    exclusion_form = ExclusionForm()
    status = 200
    if request.method == "POST" and request.POST.get("cancel") == "1":
        cancel = PendingCancelForm(request.POST)
        if cancel.is_valid():
            deposit_limit_cancel(player=request.user, period=cancel.cleaned_data["period"], now=now)
            messages.success(request, _("The pending change is cancelled: your limit stays as it is."))
            return redirect("responsible:limits")
        status = 400
    elif request.method == "POST" and request.POST.get("exclude") == "1":
        exclusion_form = ExclusionForm(request.POST)
        if exclusion_form.is_valid():
            data = exclusion_form.cleaned_data
            exclusion = exclusion_start(player=request.user, kind=data["kind"], days=data["days"], now=now)
            logout(request)
            return render(request, "responsible/excluded.html", {"message": exclusion_message(exclusion)})
        status = 400
    elif request.method == "POST":
        form = DepositLimitForm(request.POST)
        if form.is_valid():
            amount = form.cleaned_data["amount"]
            try:
                row = deposit_limit_set(
                    player=request.user,
                    period=form.cleaned_data["period"],
                    amount=None if amount is None else minor_units(amount),
                    now=now,
                )
            except DepositRefused as refused:
                form.add_error("amount", refused.message)
            else:
                if row.pending_from is not None:
                    messages.success(
                        request, _("Your limit goes up or away in 24 hours; until then the lower one applies.")
                    )
                else:
                    messages.success(request, _("Your limit applies now."))
                return redirect("responsible:limits")
        status = 400
    shown = limits_shown(request.user, now)
    return render(
        request,
        "responsible/limits.html",
        {"form": form, "limits": shown, "exclusion_form": exclusion_form},
        status=status,
    )
