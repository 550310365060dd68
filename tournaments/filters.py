"""The lobby's filters (django-filter), one definition for the lobby page and the API
list: the same input accepted, the same refused with the same words."""

from datetime import timedelta
from typing import Any

import django_filters
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

SIT_AND_GO = "sit_and_go"
FORMATS = [(SIT_AND_GO, _("Sit & Go"))]

# Text, not a number box: the browser would keep an amount it refuses (-5, "1e") from
# the server, and htmx drops an invalid form's request without a word; the form's own
# errors say what is wrong, in the page's language.
AMOUNT: dict[str, Any] = {
    "min_value": 0,
    "max_digits": 12,
    "decimal_places": 2,
    "widget": forms.TextInput(attrs={"inputmode": "decimal"}),
}


class LobbyFilterForm(forms.Form):
    """The filters' form: the buy-in bounds checked together, and every problem said
    in one sentence per field (the lobby's and the API's 400)."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("buy_in_min"), data.get("buy_in_max")
        if low is not None and high is not None and low > high:
            raise forms.ValidationError(_("The lowest buy-in cannot be above the highest."))
        return data

    def error_message(self) -> str:
        return " ".join(
            f"{self.fields[name].label if name in self.fields else ''}: {' '.join(map(str, messages))}".lstrip(": ")
            for name, messages in self.errors.items()
        )


class LobbyFilter(django_filters.FilterSet):
    """The lobby's tournaments: without a status, the active ones (and those that
    ended in the last RECENT); sorted by `sort`, the start by default. Buy-ins are
    typed in whole currency units and stored in minor units."""

    q = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label=_("Search"), max_length=80)
    game = django_filters.ChoiceFilter(label=_("Game"), choices=Game.choices, empty_label=_("Any game"))
    limit = django_filters.ChoiceFilter(
        field_name="betting", label=_("Limit"), choices=BettingStructure.choices, empty_label=_("Any limit")
    )
    currency = django_filters.ChoiceFilter(label=_("Currency"), choices=Currency.choices, empty_label=_("Any currency"))
    status = django_filters.ChoiceFilter(label=_("Status"), choices=Status.choices, empty_label=_("Active"))
    tag = django_filters.ChoiceFilter(
        label=_("Tag"), choices=Tag.choices, empty_label=_("Any tag"), method="filter_tag"
    )
    buy_in_min = django_filters.NumberFilter(label=_("Buy-in from"), method="filter_buy_in", **AMOUNT)
    buy_in_max = django_filters.NumberFilter(label=_("Buy-in to"), method="filter_buy_in", **AMOUNT)
    sort = django_filters.ChoiceFilter(label=_("Sort"), choices=SORT_CHOICES, method="filter_sort")
    # The lobby's tabs: scheduled tournaments (none given), or Sit & Gos.
    # (Not "format": the API's renderer is chosen by that one.)
    kind = django_filters.ChoiceFilter(
        label=_("Format"), choices=FORMATS, empty_label=_("Scheduled"), method="filter_kind"
    )

    class Meta:
        model = Tournament
        fields: list[str] = []
        form = LobbyFilterForm

    def filter_tag(self, queryset: QuerySet[Tournament], name: str, value: str) -> QuerySet[Tournament]:
        return queryset.filter(TAG_FILTERS[Tag(value)])

    def filter_buy_in(self, queryset: QuerySet[Tournament], name: str, value) -> QuerySet[Tournament]:
        lookup = "buy_in__gte" if name == "buy_in_min" else "buy_in__lte"
        return queryset.filter(**{lookup: minor_units(value)})

    def filter_kind(self, queryset: QuerySet[Tournament], name: str, value: str) -> QuerySet[Tournament]:
        return queryset  # applied in filter_queryset, the scheduled tab's default included

    def filter_sort(self, queryset: QuerySet[Tournament], name: str, value: str) -> QuerySet[Tournament]:
        return queryset  # the sort is applied last, default included (filter_queryset)

    def filter_queryset(self, queryset: QuerySet[Tournament]) -> QuerySet[Tournament]:
        data = self.form.cleaned_data
        queryset = super().filter_queryset(queryset)
        queryset = queryset.filter(sit_and_go__isnull=data.get("kind") != SIT_AND_GO)
        if not data.get("status"):
            recent = timezone.now() - RECENT
            queryset = queryset.filter(
                Q(scheduled_start__gte=recent) | IN_PLAY, scheduled_start__gte=_earliest_start_shown(recent)
            )
        sort = data.get("sort") or "start"
        keys = [F(key) if isinstance(key, str) else key for key in SORTS[sort.lstrip("-")]]
        descending = sort.startswith("-")
        order = [key.desc() if descending else key.asc() for key in keys]
        return queryset.annotate(pool=POOL, absent_bounty_players=ABSENT_BOUNTY_PLAYERS).order_by(*order)

    def error_message(self) -> str:
        """All problems in one sentence per field, for a 400 response."""
        form = self.form
        assert isinstance(form, LobbyFilterForm)  # Meta.form
        return form.error_message()


def _earliest_start_shown(recent):
    """`recent`, or the start of an older event still in play: implied by the default
    filter, it lets the database read the start index from there on instead of
    filtering out every finished event since the room opened."""
    oldest_in_play = Tournament.objects.filter(IN_PLAY).order_by("scheduled_start").values("scheduled_start")[:1]
    return Least(Value(recent), Coalesce(Subquery(oldest_in_play), Value(recent)))
