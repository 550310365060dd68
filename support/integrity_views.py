"""Rule 20 in the staff console: the open integrity flags with their hands, and the
prizes withheld for review. Staff clear or confirm a flag, withhold a flagged
player's prize, then pay or confiscate it; each with a reason, through the services
(tournaments.services.integrity), which move the money through the ledger and audit it."""

from collections import defaultdict

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from support.forms import FlagDecisionForm, PrizeDecisionForm, WithholdForm
from support.views import staff_required
from tournaments.models import ENTERED, Entry, FlagStatus, IntegrityFlag, IntegritySignal, PrizeHold
from tournaments.services.integrity import flag_decide, prize_confiscate, prize_release, prize_withhold
from tournaments.services.refusals import TournamentError

DECIDED_SHOWN = 20


@require_GET
@staff_required
def flags(request):
    return _page(request)


def _page(request, *, status: int = 200):
    """The open flags, each with its hands and both players' entries in its
    tournament; the prizes withheld; the last flags decided."""
    shown = IntegrityFlag.objects.select_related("tournament", "player", "other", "decided_by")
    open_flags = list(shown.filter(status=FlagStatus.OPEN).order_by("created_at", "pk"))
    decided = list(shown.exclude(status=FlagStatus.OPEN).order_by("-decided_at", "-pk")[:DECIDED_SHOWN])
    hands = defaultdict(list)
    rows = IntegritySignal.objects.filter(flag__in=open_flags).order_by("hand_id", "ref")
    for row in rows.values("flag_id", "hand_id", "hand__tournament_id", "detail"):
        hands[row["flag_id"]].append(row)
    players = {(flag.tournament_id, who) for flag in open_flags for who in (flag.player_id, flag.other_id)}
    entries = {
        (entry.tournament_id, entry.player_id): entry
        for entry in Entry.objects.filter(
            tournament__in={tournament for tournament, _who in players},
            player__in={who for _tournament, who in players},
            status__in=ENTERED,
        ).select_related("player")
    }
    for flag in open_flags:  # what the page shows beside each flag
        flag.hand_rows = hands[flag.pk]  # type: ignore[attr-defined]
        flag.entries = [entries.get((flag.tournament_id, who)) for who in (flag.player_id, flag.other_id)]  # type: ignore[attr-defined]
    withheld = (
        Entry.objects.filter(prize_hold=PrizeHold.WITHHELD)
        .select_related("tournament", "player")
        .order_by("tournament", "pk")
    )
    context = {"flags": open_flags, "decided": decided, "withheld": withheld}
    return render(request, "support/integrity.html", context, status=status)


def _refused(request, message: str):
    messages.error(request, message)
    return _page(request, status=400)


@require_POST
@staff_required
def decide(request, pk: int):
    form = FlagDecisionForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Choose clear or confirm, and give a reason."))
    try:
        flag_decide(
            flag_id=pk,
            status=form.cleaned_data["decision"],
            actor=request.user,
            reason=form.cleaned_data["reason"],
            now=timezone.now(),
        )
    except TournamentError as refused:
        return _refused(request, refused.message)
    messages.success(request, _("Flag #%(flag)s is decided.") % {"flag": pk})
    return redirect("support:integrity")


@require_POST
@staff_required
def withhold(request, pk: int):
    form = WithholdForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Choose the player and give a reason."))
    try:
        entry = prize_withhold(
            flag_id=pk,
            player_id=form.cleaned_data["player"],
            actor=request.user,
            reason=form.cleaned_data["reason"],
            now=timezone.now(),
        )
    except TournamentError as refused:
        return _refused(request, refused.message)
    messages.success(
        request,
        _("%(player)s's winnings in %(tournament)s are withheld until the review ends.")
        % {"player": entry.player, "tournament": entry.tournament},
    )
    return redirect("support:integrity")


@require_POST
@staff_required
def pay(request, pk: int):
    return _prize(request, pk, prize_release, _("The withheld prize is paid (or, not due yet, no longer withheld)."))


@require_POST
@staff_required
def confiscate(request, pk: int):
    return _prize(request, pk, prize_confiscate, _("The withheld prize is confiscated: it went to the house."))


def _prize(request, pk: int, service, done: str):
    form = PrizeDecisionForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Give a reason."))
    try:
        service(entry_id=pk, actor=request.user, reason=form.cleaned_data["reason"], now=timezone.now())
    except TournamentError as refused:
        return _refused(request, refused.message)
    messages.success(request, done)
    return redirect("support:integrity")
