"""The public, read-only tournament API (/api/v1/) and its one error shape.

Every error is `{"code", "message"}` with DRF's status code; a refused filter adds
`"fields"`, the form's messages by field.
"""

from dataclasses import dataclass

from django import forms
from django.core.exceptions import PermissionDenied
from django.db.models import Case, F, QuerySet, Value, When
from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.forms import LobbyFilterForm
from tournaments.models import EntryKind, Tournament
from tournaments.rules.schedule import Deadlines, Schedule
from tournaments.selectors import Payouts, tournament_deadlines, tournament_payouts, tournament_schedule
from tournaments.serializers import (
    ErrorSerializer,
    InvalidFilterSerializer,
    TournamentDetailSerializer,
    TournamentListItemSerializer,
)
from tournaments.services import TournamentError
from wallet.models import Currency


class InvalidFilter(exceptions.ValidationError):
    """The lobby's filter form refused the query string; says why in the form's words."""

    default_code = "invalid_filter"

    def __init__(self, form: LobbyFilterForm):
        super().__init__({name: list(messages) for name, messages in form.errors.items()})
        self.message = form.error_message()


class Refused(exceptions.APIException):
    """A TournamentError: the rules refused a well-formed request."""

    status_code = 400
    default_code = "refused"


def exception_handler(exc, context):
    """The API's one error shape, `{"code", "message"}`, with DRF's status codes."""
    if isinstance(exc, TournamentError):
        exc = Refused(exc.message, code=exc.code)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not ours to explain: Django answers 500 and logs it
    if isinstance(exc.detail, dict | list):
        response.data = {"code": exc.default_code, "message": getattr(exc, "message", None) or _sentence(exc.detail)}
        if isinstance(exc.detail, dict):
            response.data["fields"] = exc.detail
    else:
        response.data = {"code": exc.detail.code, "message": str(exc.detail)}
    return response


def _sentence(detail) -> str:
    if isinstance(detail, dict):
        return " ".join(f"{name}: {_sentence(value)}" for name, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_sentence(item) for item in detail)
    return str(detail)


def _tournaments() -> QuerySet[Tournament]:
    # T-Money events are paid and pay out in T-Money whatever `currency` says (as in
    # entry_register and the lobby), so every amount is labelled with that.
    return Tournament.objects.annotate(
        money_currency=Case(When(entry_kind=EntryKind.TMONEY, then=Value(Currency.TMONEY)), default=F("currency"))
    )


def _filter_parameters() -> list[OpenApiParameter]:
    """The lobby form's fields as query parameters, so the schema follows the form."""
    parameters = []
    for name, field in LobbyFilterForm.base_fields.items():
        if isinstance(field, forms.ChoiceField):
            kind, enum = str, [value for value, _label in field.choices if value]
        elif isinstance(field, forms.DecimalField):
            kind, enum = OpenApiTypes.NUMBER, None
        else:
            kind, enum = str, None
        parameters.append(OpenApiParameter(name, kind, enum=enum, description=field.label))
    return parameters


class PublicApiView:
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
        form = LobbyFilterForm(self.request.query_params)
        if not form.is_valid():
            raise InvalidFilter(form)
        return form.filter(_tournaments())


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
        info = TournamentInfo(
            tournament=tournament,
            schedule=tournament_schedule(tournament),
            deadlines=tournament_deadlines(tournament),
            payouts=payouts,
            places=[{"place": place, "amount": amount} for place, amount in enumerate(payouts.places, start=1)],
            rebuy=tournament if tournament.is_rebuy else None,
            addon=tournament if tournament.has_addon else None,
            satellite=tournament if tournament.satellite_target_id else None,
        )
        return Response(self.get_serializer(info).data)
