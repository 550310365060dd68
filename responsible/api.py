"""The player's own deposit limits in the API (/api/v1/wallet/limits/): read them,
set one (lower at once, higher or none after 24 hours), cancel a pending change."""

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api import AUTH_ERRORS, PlayerApiView, by_status
from accounts.serializers import InvalidRequestSerializer
from responsible.models import LimitPeriod
from responsible.selectors import limits_shown
from responsible.services import deposit_limit_cancel, deposit_limit_set


class LimitSerializer(serializers.Serializer):
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    currency = serializers.CharField()
    amount = serializers.IntegerField(source="limit.amount", allow_null=True, help_text="Minor units; null: none.")
    pending_amount = serializers.IntegerField(source="limit.pending_amount", allow_null=True)
    pending_from = serializers.DateTimeField(source="limit.pending_from", allow_null=True)


class LimitRequestSerializer(serializers.Serializer):
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    amount = serializers.IntegerField(
        allow_null=True, min_value=1, max_value=10**12, help_text="Minor units; null removes the limit."
    )


class PeriodRequestSerializer(serializers.Serializer):
    period = serializers.ChoiceField(choices=LimitPeriod.choices)


INVALID = OpenApiResponse(
    InvalidRequestSerializer, description="`invalid` (with `fields`): a period or amount it cannot take."
)


def _limits(request: Request) -> Response:
    return Response(LimitSerializer(limits_shown(request.user, timezone.now()), many=True).data)


class DepositLimitsApi(PlayerApiView):
    @extend_schema(
        summary="The player's deposit limits",
        responses=by_status({200: LimitSerializer(many=True), **AUTH_ERRORS}),
    )
    def get(self, request: Request) -> Response:
        return _limits(request)

    @extend_schema(
        summary="Set a deposit limit",
        description="A lower limit applies at once; a higher one, or none, after 24 hours (pending until then).",
        request=LimitRequestSerializer,
        responses=by_status({200: LimitSerializer(many=True), 400: INVALID, **AUTH_ERRORS}),
    )
    def put(self, request: Request) -> Response:
        body = LimitRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        deposit_limit_set(
            player=request.user,  # type: ignore[arg-type]  # signed in
            period=body.validated_data["period"],
            amount=body.validated_data["amount"],
            now=timezone.now(),
        )
        return _limits(request)


class DepositLimitCancelApi(PlayerApiView):
    @extend_schema(
        summary="Cancel a pending raise or removal of a deposit limit",
        request=PeriodRequestSerializer,
        responses=by_status({200: LimitSerializer(many=True), 400: INVALID, **AUTH_ERRORS}),
    )
    def post(self, request: Request) -> Response:
        body = PeriodRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        deposit_limit_cancel(player=request.user, period=body.validated_data["period"], now=timezone.now())  # type: ignore[arg-type]  # signed in
        return _limits(request)
