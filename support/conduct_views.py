"""Conduct at the tables (rules 19, 20, 21): staff read any table's chat log, held
messages included, mute a player in every table chat for a while, and move a seat
to another account when the room decides to; each with a reason. Staff only."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from support.forms import ChatLogForm, MuteForm, SeatTransferForm
from support.views import player_or_404, staff_required
from tournaments.dates import moment_text
from tournaments.models import ChatMessage, Table
from tournaments.services.chat import chat_mute
from tournaments.services.refusals import TournamentError
from tournaments.services.seats import entry_transfer

LOG_SHOWN = 500


@require_GET
@staff_required
def chat_log(request):
    """A table's chat, every message with its time, newest first; held ones marked."""
    form = ChatLogForm(request.GET or None)
    table, log = None, []
    if form.is_valid():
        table = Table.objects.filter(
            tournament_id=form.cleaned_data["tournament"], number=form.cleaned_data["table"]
        ).first()
        if table is None:
            form.add_error(None, _("That tournament has no such table."))
        else:
            log = list(ChatMessage.objects.filter(table=table).select_related("player").order_by("-pk")[:LOG_SHOWN])
    return render(request, "support/chat_log.html", {"form": form, "table": table, "log": log})


@require_POST
@staff_required
def mute(request, pk: int):
    """Mute the player in every table chat for a number of minutes, with a reason."""
    player = player_or_404(pk)
    form = MuteForm(request.POST)
    if form.is_valid():
        try:
            muted = chat_mute(
                player=player,
                minutes=form.cleaned_data["minutes"],
                reason=form.cleaned_data["reason"],
                staff=request.user,
                now=timezone.now(),
            )
        except TournamentError as refused:
            messages.error(request, refused.message)
        else:
            until = moment_text(muted.until)
            messages.success(request, _("%(player)s is muted until %(until)s.") % {"player": player, "until": until})
    else:
        messages.error(request, _("Give the minutes (1 to 43,200) and a reason."))
    return redirect("support:player", pk=player.pk)


@require_http_methods(["GET", "POST"])
@staff_required
def seat_transfer(request):
    """Rule 21: a seat in play moves to another account, by staff's decision with a reason."""
    form = SeatTransferForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            entry_transfer(
                tournament_id=data["tournament"],
                source=data["source"],
                target=data["target"],
                actor=request.user,
                reason=data["reason"],
                now=timezone.now(),
            )
        except TournamentError as refused:
            form.add_error(None, refused.message)
        else:
            messages.success(
                request,
                _("%(source)s's seat in tournament #%(tournament)s is now %(target)s's.")
                % {"source": data["source"], "target": data["target"], "tournament": data["tournament"]},
            )
            return redirect("support:seat_transfer")
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "support/seat_transfer.html", {"form": form}, status=status)
