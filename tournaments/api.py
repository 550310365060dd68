"""The tournament API (/api/v1/).

Anyone may read the tournaments. A signed-in player (token or session) registers,
unregisters, rebuys and takes the add-on (their own wallet: wallet.api); nothing takes a
player id, so nobody reaches another player's entry or money.

Every error has the API's one shape (config.api_errors.exception_handler).
"""

from dataclasses import dataclass
from typing import cast

from django import forms
from django.db.models import Case, F, QuerySet, Value, When
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import AUTH_ERRORS, PlayerApiView, by_status
from accounts.serializers import ErrorSerializer, InvalidRequestSerializer
from tournaments.filters import LobbyFilter
from tournaments.forms import IDEMPOTENCY_KEY
from tournaments.models import ENTERED, Entry, EntryKind, PurchaseKind, Tournament
from tournaments.rules.schedule import Deadlines, Schedule
from tournaments.selectors.entries import payment_options
from tournaments.selectors.payouts import Payouts, tournament_payouts
from tournaments.selectors.schedules import tournament_deadlines, tournament_schedule
from tournaments.selectors.standings import (
    ClockView,
    Finisher,
    TableView,
    chip_leaders,
    tournament_clock,
    tournament_standings,
    tournament_tables,
)
from tournaments.serializers import (
    ChipPurchaseSerializer,
    EntrySerializer,
    InvalidFilterSerializer,
    PaymentOptionSerializer,
    RegistrationRequestSerializer,
    TournamentDetailSerializer,
    TournamentListItemSerializer,
)
from tournaments.services.entries import Receipt, entry_chips_buy, entry_register_receipt, entry_unregister_receipt
from tournaments.services.refusals import refuse
from wallet.models import Currency


class InvalidFilter(exceptions.ValidationError):
    """The lobby's filters refused the query string; says why in the lobby's words."""

    default_code = "invalid_filter"

    def __init__(self, filters: LobbyFilter):
        super().__init__({name: list(map(str, messages)) for name, messages in filters.errors.items()})
        self.message = filters.error_message()


def _tournaments() -> QuerySet[Tournament]:
    # T-Money events are paid and pay out in T-Money whatever `currency` says (as in
    # entry_register and the lobby), so every amount is labelled with that.
    return Tournament.objects.annotate(
        money_currency=Case(When(entry_kind=EntryKind.TMONEY, then=Value(Currency.TMONEY)), default=F("currency"))
    )


def _filter_parameters() -> list[OpenApiParameter]:
    """The lobby filters' fields as query parameters, so the schema follows them: a
    blank value is "any", as in the lobby."""
    parameters = []
    for name, field in LobbyFilter().form.fields.items():
        if isinstance(field, forms.ChoiceField):
            values = [value for value, _label in cast("list[tuple[str, str]]", field.choices)]  # plain lists
            schema: dict[str, object] = {
                "type": "string",
                "enum": values if field.required or "" in values else ["", *values],
            }
        elif isinstance(field, forms.DecimalField):
            assert field.max_digits is not None  # amounts set both
            assert field.decimal_places is not None
            whole = field.max_digits - field.decimal_places
            digits = rf"\d{{1,{whole}}}(\.\d{{1,{field.decimal_places}}})?"
            schema = {"type": "string", "pattern": f"^({digits})?$", "example": "15.50"}
        else:
            schema = {"type": "string", "maxLength": getattr(field, "max_length", None)}
        parameters.append(OpenApiParameter(name, schema, description=field.label or ""))
    return parameters


class PublicApiView(APIView):
    """Anyone may read; nothing but GET (and HEAD) is allowed."""

    authentication_classes = ()
    permission_classes = (AllowAny,)
    http_method_names = ("get", "head")


@extend_schema(
    parameters=_filter_parameters(),
    responses={200: TournamentListItemSerializer(many=True), 400: InvalidFilterSerializer, 404: ErrorSerializer},
    description=(
        "The lobby's tournaments with the lobby's filters; without `status`, the active ones. "
        "Buy-in bounds are in whole currency units, amounts in the answer in minor units."
    ),
)
class TournamentListApi(PublicApiView, ListAPIView):
    serializer_class = TournamentListItemSerializer

    def get_queryset(self) -> QuerySet[Tournament]:
        filters = LobbyFilter(self.request.query_params, queryset=_tournaments())
        if not filters.is_valid():
            raise InvalidFilter(filters)
        return filters.qs


@dataclass(frozen=True)
class TournamentInfo:
    """A tournament with what Tournament Info computes for it; None where it has none."""

    tournament: Tournament
    schedule: Schedule
    deadlines: Deadlines
    payouts: Payouts
    places: list[dict]
    rebuy: Tournament | None
    addon: Tournament | None
    satellite: Tournament | None
    tables: list[TableView]
    standings: "Standings"


@dataclass(frozen=True)
class Standings:
    """Who is still in and who has finished, as Tournament Info's tables and clock show it."""

    clock: ClockView
    chip_leaders: list[dict]
    finished: list[Finisher]


@extend_schema(
    description="Everything Tournament Info shows, with levels and breaks timed from the scheduled start.",
    responses={200: TournamentDetailSerializer, 404: ErrorSerializer},
)
class TournamentDetailApi(PublicApiView, RetrieveAPIView):
    serializer_class = TournamentDetailSerializer

    def get_queryset(self) -> QuerySet[Tournament]:
        return (
            _tournaments()
            .select_related("blind_structure", "satellite_target")
            .prefetch_related("blind_structure__levels")
        )

    def retrieve(self, request, *args, **kwargs) -> Response:
        tournament = self.get_object()
        payouts = tournament_payouts(tournament, now=timezone.now())
        # As Tournament Info: before the start nobody is seated, placed or leading.
        started = tournament.started_at is not None
        standings = Standings(
            clock=tournament_clock(tournament),
            chip_leaders=[
                {
                    "player": leader.player,
                    "chips": leader.chips,
                    "bounty": leader.bounty,
                    "bounties_won": leader.bounties_won,
                }
                for leader in chip_leaders(tournament)
            ]
            if started
            else [],
            finished=tournament_standings(tournament) if started else [],
        )
        info = TournamentInfo(
            tournament=tournament,
            schedule=tournament_schedule(tournament),
            deadlines=tournament_deadlines(tournament),
            payouts=payouts,
            places=[{"place": place, "amount": amount} for place, amount in enumerate(payouts.places, start=1)],
            rebuy=tournament if tournament.is_rebuy else None,
            addon=tournament if tournament.has_addon else None,
            satellite=tournament if tournament.satellite_target_id else None,
            tables=tournament_tables(tournament) if started else [],
            standings=standings,
        )
        return Response(self.get_serializer(info).data)


# The signed-in player's own registration, purchases and wallet

IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "pattern": f"^{IDEMPOTENCY_KEY.pattern}$"},
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "1 to 64 printable ASCII characters, e.g. a UUID. A retry with the same key answers 200 "
        "with what the first request made, and charges nothing again."
    ),
)
NOT_FOUND = OpenApiResponse(ErrorSerializer, description="`not_found`: no such tournament.")
NOT_REGISTERED = OpenApiResponse(
    ErrorSerializer, description="`not_found`: no such tournament; `not_registered`: the player has no entry in it."
)
REFUSED = OpenApiResponse(
    InvalidRequestSerializer,
    description=(
        "A body or `Idempotency-Key` the API cannot take (`invalid`, with `fields`), or a refusal by the rules, "
        "e.g. `closed`, `not_open_yet`, `full`, `cancelled`, `form_not_accepted`, `ticket_required`, `no_ticket`."
    ),
)
PAYMENT_REQUIRED = OpenApiResponse(
    ErrorSerializer, description="`insufficient_funds`: not enough money in the currency it is paid in."
)


def _idempotency_key(request) -> str | None:
    """The client's Idempotency-Key, checked; the services scope it to the player,
    the event and the purchase."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not IDEMPOTENCY_KEY.fullmatch(key):
        message = _("Send 1 to 64 printable ASCII characters without spaces, for instance a UUID.")
        raise exceptions.ValidationError({"Idempotency-Key": [message]})
    return key


def registration_of(*, player, tournament_id: int) -> Receipt:
    """The player's entry in the tournament (registered or eliminated), with its purchases."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    entry = Entry.objects.filter(tournament=tournament, player=player, status__in=ENTERED).first()
    if entry is None:
        raise refuse("not_registered")
    return Receipt(entry, list(entry.purchases.order_by("pk")))


class RegistrationApi(PlayerApiView):
    """The signed-in player's registration in one tournament."""

    @extend_schema(
        summary="The player's own registration",
        responses=by_status({200: EntrySerializer, **AUTH_ERRORS, 404: NOT_REGISTERED}),
    )
    def get(self, request, pk: int) -> Response:
        return Response(EntrySerializer(registration_of(player=request.user, tournament_id=pk)).data)

    @extend_schema(
        summary="Register",
        description=(
            "Registers the player (late registration included) and pays the entry. See payment-options for the ways "
            "to pay. A retry with the same `Idempotency-Key` answers 200 with the same entry."
        ),
        parameters=[IDEMPOTENCY_KEY_HEADER],
        request=RegistrationRequestSerializer,
        responses=by_status(
            {
                201: EntrySerializer,
                200: OpenApiResponse(EntrySerializer, description="A retry: the entry the first request made."),
                400: REFUSED,
                **AUTH_ERRORS,
                402: PAYMENT_REQUIRED,
                404: NOT_FOUND,
                409: OpenApiResponse(
                    ErrorSerializer,
                    description="`already_registered`; `duplicate_request`; `terms_changed`: the event's buy-in, "
                    "start or stack changed while the request was handled, and nothing was paid.",
                ),
            }
        ),
    )
    def post(self, request, pk: int) -> Response:
        body = RegistrationRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        asked = body.validated_data
        receipt = entry_register_receipt(
            tournament_id=pk,
            player=request.user,
            now=timezone.now(),
            form=asked.get("form"),
            ticket_id=asked.get("ticket"),
            idempotency_key=_idempotency_key(request),
        )
        answer = EntrySerializer(receipt).data
        return Response(answer, status=status.HTTP_200_OK if receipt.retry else status.HTTP_201_CREATED)

    @extend_schema(
        summary="Unregister",
        description="Takes the entry back before the deadline and refunds exactly what was paid, in the form paid.",
        responses=by_status(
            {
                200: EntrySerializer,
                400: OpenApiResponse(
                    ErrorSerializer, description="`unregistration_closed`, `no_unregistration`, `closed`."
                ),
                **AUTH_ERRORS,
                404: NOT_REGISTERED,
            }
        ),
    )
    def delete(self, request, pk: int) -> Response:
        receipt = entry_unregister_receipt(tournament_id=pk, player=request.user, now=timezone.now())
        return Response(EntrySerializer(receipt).data)


class PaymentOptionsApi(PlayerApiView):
    @extend_schema(
        summary="How the player can pay an entry",
        description="Each way to pay, its amount, and whether the player's balance covers it now.",
        responses=by_status({200: PaymentOptionSerializer(many=True), **AUTH_ERRORS, 404: NOT_FOUND}),
    )
    def get(self, request, pk: int) -> Response:
        tournament = get_object_or_404(Tournament, pk=pk)
        options = payment_options(tournament=tournament, player=request.user, now=timezone.now())
        return Response(PaymentOptionSerializer(options, many=True).data)


def _chip_purchase_schema(what: str, refusals: str, conflict: str):
    return extend_schema(
        summary=f"Buy the {what}",
        description=(
            f"Buys the {what} with money in the tournament's currency and adds its chips to the entry. "
            "A retry with the same `Idempotency-Key` answers 200 with the same purchase."
        ),
        parameters=[IDEMPOTENCY_KEY_HEADER],
        request=None,
        responses=by_status(
            {
                201: ChipPurchaseSerializer,
                200: OpenApiResponse(ChipPurchaseSerializer, description="A retry: what the first request bought."),
                400: OpenApiResponse(InvalidRequestSerializer, description=f"{refusals}; `eliminated`; `invalid`."),
                **AUTH_ERRORS,
                402: PAYMENT_REQUIRED,
                404: NOT_REGISTERED,
                409: OpenApiResponse(ErrorSerializer, description=conflict),
            }
        ),
    )


def _chips_bought(request, pk: int, kind: str) -> Response:
    receipt = entry_chips_buy(
        tournament_id=pk, player=request.user, now=timezone.now(), kind=kind, idempotency_key=_idempotency_key(request)
    )
    (purchase,) = receipt.purchases
    return Response(
        ChipPurchaseSerializer(purchase).data, status=status.HTTP_200_OK if receipt.retry else status.HTTP_201_CREATED
    )


class RebuyApi(PlayerApiView):
    @_chip_purchase_schema(
        "rebuy",
        "`no_rebuys`, `rebuys_not_open`, `rebuy_period_over`, `rebuy_limit_reached`",
        "`duplicate_request`.",
    )
    def post(self, request, pk: int) -> Response:
        return _chips_bought(request, pk, PurchaseKind.REBUY)


class AddonApi(PlayerApiView):
    @_chip_purchase_schema(
        "add-on", "`no_addon`, `addon_not_open`, `addon_over`", "`addon_taken`: only one add-on; `duplicate_request`."
    )
    def post(self, request, pk: int) -> Response:
        return _chips_bought(request, pk, PurchaseKind.ADDON)
