"""Responsible gaming on the staff console: a player's limits and locks are his own
(read-only here), except that staff lift a break or exclusion set by mistake, with a
reason the audit log keeps. Staff only."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from responsible.exclusions import exclusion_lift
from responsible.models import Exclusion
from responsible.services import ResponsibleRefusal
from support.forms import LiftForm
from support.views import staff_required


@require_POST
@staff_required
def lift(request, pk: int, exclusion_id: int):
    exclusion = get_object_or_404(Exclusion, pk=exclusion_id, player_id=pk)
    form = LiftForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Say why the lock is lifted: the reason is kept in the audit log."))
        return redirect("support:player", pk=pk)
    try:
        exclusion_lift(
            exclusion_id=exclusion.pk, staff=request.user, reason=form.cleaned_data["reason"], now=timezone.now()
        )
    except ResponsibleRefusal as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, _("The lock is lifted: the player may log in and play again."))
    return redirect("support:player", pk=pk)
