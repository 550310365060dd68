"""The lobby's filters, shared by the lobby page and the API so both accept and
refuse exactly the same input; and the idempotency keys both take."""

import re
from datetime import timedelta

from django import forms
from django.conf import settings
from django.db.models import (
    Case,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest, Least
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.models import ENTERED, TAG_FILTERS, BettingStructure, Entry, EntryKind, Game, Status, Tag, Tournament
from wallet.models import Currency
from wallet.money import minor_units

# A client's key for one request (a purchase made once however often it is sent):
# the API's Idempotency-Key header, the key the pages' buttons carry.
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,64}")
# The largest id the database's integers hold.
LARGEST_ID = 2**63 - 1

# The prize pool the lobby shows and sorts by: what entrants paid in, or the guarantee.
POOL = Greatest(F("prize_contributions"), F("guarantee"))
# Rule 28: a fixed bounty event's named bounty players with no entry in it.
_ABSENT = Tournament.bounty_players.through.objects.filter(tournament_id=OuterRef("pk")).filter(
    ~Exists(
        Entry.objects.filter(tournament_id=OuterRef("tournament_id"), player_id=OuterRef("user_id"), status__in=ENTERED)
    )
)
ABSENT_BOUNTY_PLAYERS = Coalesce(
    # django-stubs' plugin does not see an annotation made after values().
    Subquery(_ABSENT.values("tournament_id").annotate(n=Count("pk")).values("n")[:1]),  # type: ignore[misc]
    Value(0),
)


def in_reference_currency(field: str) -> ExpressionWrapper:
    """`field`, minor units of the event's pool currency, at the reference rates of
    settings.LOBBY_SORT_RATES: a sort key across currencies, never an amount."""
    rates = settings.LOBBY_SORT_RATES
    rate = Case(
        When(entry_kind=EntryKind.TMONEY, then=Value(rates[Currency.TMONEY])),
        *(When(currency=code, then=Value(rate)) for code, rate in rates.items()),
        default=Value(1.0),
        output_field=FloatField(),
    )
    return ExpressionWrapper(F(field) * rate, output_field=FloatField())


SORTS = {
    "start": ("scheduled_start", "id"),
    "name": ("name", "id"),
    "buy_in": (in_reference_currency("buy_in"), in_reference_currency("fee"), "id"),
    "entrants": ("entries_count", "id"),
    "prize_pool": (in_reference_currency("pool"), "id"),
    "status": ("status", "scheduled_start", "id"),
}
SORT_CHOICES = [(key, key) for key in SORTS] + [(f"-{key}", f"-{key}") for key in SORTS]
# Finished and cancelled events stay in the default lobby this long after their start.
RECENT = timedelta(hours=12)
# Still to play or in play; a partial index (Tournament.Meta) covers exactly these.
IN_PLAY = ~Q(status__in=[Status.FINISHED, Status.CANCELLED])


AMOUNT_INPUT = forms.TextInput(attrs={"inputmode": "decimal"})


class LobbyFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=80)
    game = forms.ChoiceField(label=_("Game"), required=False, choices=[("", _("Any game")), *Game.choices])
    limit = forms.ChoiceField(
        label=_("Limit"), required=False, choices=[("", _("Any limit")), *BettingStructure.choices]
    )
    currency = forms.ChoiceField(
        label=_("Currency"), required=False, choices=[("", _("Any currency")), *Currency.choices]
    )
    status = forms.ChoiceField(label=_("Status"), required=False, choices=[("", _("Active")), *Status.choices])
    tag = forms.ChoiceField(label=_("Tag"), required=False, choices=[("", _("Any tag")), *Tag.choices])
    # Text, not a number box: the browser would keep an amount it refuses (-5, "1e")
    # from the server, and htmx drops an invalid form's request without a word; the
    # form's own errors say what is wrong, in the page's language.
    buy_in_min = forms.DecimalField(
        label=_("Buy-in from"), required=False, min_value=0, max_digits=12, decimal_places=2, widget=AMOUNT_INPUT
    )
    buy_in_max = forms.DecimalField(
        label=_("Buy-in to"), required=False, min_value=0, max_digits=12, decimal_places=2, widget=AMOUNT_INPUT
    )
    sort = forms.ChoiceField(label=_("Sort"), required=False, choices=SORT_CHOICES)

    def clean(self):
        super().clean()
        data = self.cleaned_data
        low, high = data.get("buy_in_min"), data.get("buy_in_max")
        if low is not None and high is not None and low > high:
            raise forms.ValidationError(_("The lowest buy-in cannot be above the highest."))
        return data

    def filter(self, queryset: QuerySet[Tournament]) -> QuerySet[Tournament]:
        """Apply the cleaned filters and the sort; call after is_valid()."""
        data = self.cleaned_data
        if data.get("q"):
            queryset = queryset.filter(name__icontains=data["q"])
        if data.get("game"):
            queryset = queryset.filter(game=data["game"])
        if data.get("limit"):
            queryset = queryset.filter(betting=data["limit"])
        if data.get("currency"):
            queryset = queryset.filter(currency=data["currency"])
        if data.get("status"):
            queryset = queryset.filter(status=data["status"])
        else:
            recent = timezone.now() - RECENT
            queryset = queryset.filter(
                Q(scheduled_start__gte=recent) | IN_PLAY, scheduled_start__gte=_earliest_start_shown(recent)
            )
        if data.get("tag"):
            queryset = queryset.filter(TAG_FILTERS[data["tag"]])
        # Buy-ins are typed in whole currency units and stored in minor units.
        if data.get("buy_in_min") is not None:
            queryset = queryset.filter(buy_in__gte=minor_units(data["buy_in_min"]))
        if data.get("buy_in_max") is not None:
            queryset = queryset.filter(buy_in__lte=minor_units(data["buy_in_max"]))
        sort = data.get("sort") or "start"
        keys = [F(key) if isinstance(key, str) else key for key in SORTS[sort.lstrip("-")]]
        descending = sort.startswith("-")
        order = [key.desc() if descending else key.asc() for key in keys]
        return queryset.annotate(pool=POOL, absent_bounty_players=ABSENT_BOUNTY_PLAYERS).order_by(*order)

    def error_message(self) -> str:
        """All problems in one sentence per field, for a 400 response."""
        return " ".join(
            f"{self.fields[name].label if name in self.fields else ''}: {' '.join(map(str, messages))}".lstrip(": ")
            for name, messages in self.errors.items()
        )


def _earliest_start_shown(recent):
    """`recent`, or the start of an older event still in play: implied by the default
    filter, it lets the database read the start index from there on instead of
    filtering out every finished event since the room opened."""
    oldest_in_play = Tournament.objects.filter(IN_PLAY).order_by("scheduled_start").values("scheduled_start")[:1]
    return Least(Value(recent), Coalesce(Subquery(oldest_in_play), Value(recent)))
