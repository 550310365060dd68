"""The wallet API (/api/v1/wallet/): only ever the signed-in player's own."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from accounts.api import AUTH_ERRORS, PlayerApiView, by_status
from wallet.selectors import wallet_summary
from wallet.serializers import WalletSerializer


class WalletApi(PlayerApiView):
    @extend_schema(
        summary="The player's own wallet",
        description=(
            "Only ever the signed-in player's own: balances in minor units (the preferred currency even at zero, "
            "other zero balances left out) and the tickets they hold, usable or reserved by a registration."
        ),
        responses=by_status({200: WalletSerializer, **AUTH_ERRORS}),
    )
    def get(self, request) -> Response:
        return Response(WalletSerializer(wallet_summary(request.user, now=timezone.now())).data)
