"""The Leader Boards' API: a board's standings in a period (anyone), and the
signed-in player's own points on each board."""

from datetime import date

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api import AUTH_ERRORS, PlayerApiView, by_status
from accounts.serializers import ErrorSerializer, InvalidRequestSerializer
from tournaments.api import PublicApiView
from tournaments.models import BoardKind
from tournaments.rules.leader_boards import Period
from tournaments.selectors.leader_boards import board_span, board_standings, board_totals, player_points, room_zone


class PeriodQuery(serializers.Serializer):
    period = serializers.ChoiceField(choices=[p.value for p in Period], default=Period.MONTH.value)
    date = serializers.DateField(required=False, help_text="Any day of the period, in the room's time zone.")

    def span(self):
        today = timezone.now().astimezone(room_zone()).date()
        day: date = self.validated_data.get("date") or today
        return board_span(Period(self.validated_data["period"]), day)


def period_query(request: Request) -> PeriodQuery:
    query = PeriodQuery(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query


class StandingSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    player = serializers.CharField(source="name")
    points = serializers.DecimalField(max_digits=12, decimal_places=2)
    finishes = serializers.IntegerField()


BAD_PERIOD = OpenApiResponse(InvalidRequestSerializer, description="`invalid`: a period or date it cannot read.")


@extend_schema(
    parameters=[
        PeriodQuery,
        OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=BoardKind.values, description="The board."),
    ],
    summary="A Leader Board's standings",
    description="Points earned in the day, month or year (the room's time zone) holding `date`, best first.",
    responses=by_status(
        {
            200: StandingSerializer(many=True),
            400: BAD_PERIOD,
            404: OpenApiResponse(ErrorSerializer, description="`not_found`: no such board, or no such page."),
        }
    ),
)
class LeaderBoardApi(PublicApiView, ListAPIView):
    serializer_class = StandingSerializer

    def list(self, request: Request, *args, **kwargs) -> Response:
        kind = self.kwargs["kind"]
        if kind not in BoardKind.values:
            raise NotFound("No such Leader Board.")
        totals = board_totals(kind, period_query(request).span())
        page = self.paginate_queryset(totals)
        first = (self.paginator.page.start_index() if page is not None else 1) or 1  # type: ignore[union-attr]
        rows = board_standings(totals, list(page if page is not None else totals), first)
        return self.get_paginated_response(StandingSerializer(rows, many=True).data)


class OwnPointsSerializer(serializers.Serializer):
    period = serializers.CharField()
    points = serializers.DictField(child=serializers.DecimalField(max_digits=12, decimal_places=2))


class OwnPointsApi(PlayerApiView):
    @extend_schema(
        parameters=[PeriodQuery],
        summary="The player's own Leader Board points",
        responses=by_status({200: OwnPointsSerializer, 400: BAD_PERIOD, **AUTH_ERRORS}),
    )
    def get(self, request: Request) -> Response:
        query = period_query(request)
        points = player_points(request.user.pk, query.span())  # type: ignore[arg-type]  # signed in
        every = {kind: points.get(kind, 0) for kind in BoardKind.values}
        return Response(OwnPointsSerializer({"period": query.validated_data["period"], "points": every}).data)
