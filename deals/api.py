"""The deal workflow for players, by API (rule 23): ask for a deal, say whether
you want to negotiate, read the negotiation, accept or reject a proposal. Staff
mediate from the pages. Refusals are `{"code", "message"}` with a 4xx status, as
everywhere in the API (config.api_errors.exception_handler)."""

from accounts.api import AUTH_ERRORS, PlayerApiView, by_status
from accounts.serializers import ErrorSerializer, InvalidRequestSerializer
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from deals import services
from deals.models import Negotiation, Proposal, ProposalKind
from deals.selectors import open_proposal, proposal_lines
from deals.serializers import DealAnswerSerializer, DealConsentSerializer

REFUSED = {400: InvalidRequestSerializer, 404: ErrorSerializer}

LINE = inline_serializer(
    "DealLine",
    {
        "entry": serializers.IntegerField(),
        "player": serializers.CharField(),
        "chips": serializers.IntegerField(),
        "amount": serializers.IntegerField(),
        "icm": serializers.IntegerField(),
        "chip_chop": serializers.IntegerField(),
        "answer": serializers.BooleanField(allow_null=True),
    },
    many=True,
)
NEGOTIATION = inline_serializer(
    "Negotiation",
    {
        "id": serializers.IntegerField(),
        "tournament": serializers.IntegerField(),
        "status": serializers.CharField(),
        "ticket": serializers.CharField(),
        "players": inline_serializer(
            "DealPlayer",
            {
                "entry": serializers.IntegerField(),
                "player": serializers.CharField(),
                "wants_to_negotiate": serializers.BooleanField(allow_null=True, help_text="Null: not said yet."),
            },
            many=True,
        ),
        "proposal": inline_serializer(
            "DealProposal",
            {
                "id": serializers.IntegerField(),
                "kind": serializers.ChoiceField(choices=ProposalKind.choices),
                "play_for": serializers.IntegerField(help_text="Left to play for, in minor units."),
            },
            allow_null=True,
            help_text="The open proposal; null when none is open.",
        ),
        "lines": LINE,
    },
)


def negotiation_data(negotiation: Negotiation) -> dict:
    proposal = open_proposal(negotiation)
    return {
        "id": negotiation.pk,
        "tournament": negotiation.tournament_id,
        "status": negotiation.status,
        "ticket": negotiation.ticket.title,
        "players": [
            {"entry": p.entry_id, "player": p.entry.player.screen_name, "wants_to_negotiate": p.wants_to_negotiate}
            for p in negotiation.participants.select_related("entry__player")
        ],
        "proposal": (
            {"id": proposal.pk, "kind": proposal.kind, "play_for": proposal.play_for} if proposal is not None else None
        ),
        "lines": [
            {
                "entry": line.entry_id,
                "player": line.player,
                "chips": line.chips,
                "amount": line.amount,
                "icm": line.icm,
                "chip_chop": line.chip_chop,
                "answer": line.answer,
            }
            for line in (proposal_lines(proposal) if proposal else [])
        ],
    }


def _negotiation_for(request, pk: int) -> Negotiation:
    negotiation = get_object_or_404(Negotiation.objects.select_related("ticket"), pk=pk)
    if not request.user.is_staff and not negotiation.participants.filter(entry__player=request.user).exists():
        raise PermissionDenied("Only the players in this deal and staff can see it.")
    return negotiation


class DealRequestApi(PlayerApiView):
    @extend_schema(
        summary="Ask for a deal at the final table",
        description="Opens an urgent support ticket and asks every player left whether they want to negotiate.",
        request=None,
        responses=by_status({201: NEGOTIATION, **REFUSED, **AUTH_ERRORS}),
    )
    def post(self, request, pk: int) -> Response:
        negotiation = services.chop_request(tournament_id=pk, player=request.user, now=timezone.now())
        return Response(negotiation_data(negotiation), status=status.HTTP_201_CREATED)


class NegotiationApi(PlayerApiView):
    @extend_schema(
        summary="A deal negotiation",
        description="The players, who wants to negotiate, and the open proposal beside ICM and a chip chop.",
        responses=by_status({200: NEGOTIATION, 403: ErrorSerializer, 404: ErrorSerializer, **AUTH_ERRORS}),
    )
    def get(self, request, pk: int) -> Response:
        return Response(negotiation_data(_negotiation_for(request, pk)))


class DealConsentApi(PlayerApiView):
    @extend_schema(
        summary="Say whether you want to negotiate",
        request=DealConsentSerializer,
        responses=by_status({200: NEGOTIATION, **REFUSED, **AUTH_ERRORS}),
    )
    def post(self, request, pk: int) -> Response:
        body = DealConsentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        wants = body.validated_data["wants"]
        negotiation = services.chop_consent(negotiation_id=pk, player=request.user, wants=wants, now=timezone.now())
        return Response(negotiation_data(negotiation))


class DealAnswerApi(PlayerApiView):
    @extend_schema(
        summary="Accept or reject a proposal",
        description="Only this counts as acceptance (rule 23.6). When every player has accepted, the deal is made.",
        request=DealAnswerSerializer,
        responses=by_status({200: NEGOTIATION, **REFUSED, **AUTH_ERRORS}),
    )
    def post(self, request, pk: int, proposal_id: int) -> Response:
        body = DealAnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        accept = body.validated_data["accept"]
        proposal = get_object_or_404(Proposal, pk=proposal_id, negotiation_id=pk)
        services.proposal_answer(proposal_id=proposal.pk, player=request.user, accept=accept, now=timezone.now())
        return Response(negotiation_data(_negotiation_for(request, pk)))
