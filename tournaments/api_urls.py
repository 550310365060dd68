from django.urls import path

from deals.api import DealAnswerApi, DealConsentApi, DealRequestApi, NegotiationApi
from tournaments.api import (
    AddonApi,
    AuthTokenApi,
    PaymentOptionsApi,
    RebuyApi,
    RegistrationApi,
    TournamentDetailApi,
    TournamentListApi,
    WalletApi,
)

urlpatterns = [
    path("tournaments/", TournamentListApi.as_view(), name="api-tournament-list"),
    path("tournaments/<int:pk>/", TournamentDetailApi.as_view(), name="api-tournament-detail"),
    path("tournaments/<int:pk>/registration/", RegistrationApi.as_view(), name="api-registration"),
    path("tournaments/<int:pk>/payment-options/", PaymentOptionsApi.as_view(), name="api-payment-options"),
    path("tournaments/<int:pk>/rebuys/", RebuyApi.as_view(), name="api-rebuys"),
    path("tournaments/<int:pk>/addons/", AddonApi.as_view(), name="api-addons"),
    path("tournaments/<int:pk>/deal/", DealRequestApi.as_view(), name="api-deal-request"),
    path("deals/<int:pk>/", NegotiationApi.as_view(), name="api-negotiation"),
    path("deals/<int:pk>/consent/", DealConsentApi.as_view(), name="api-deal-consent"),
    path("deals/<int:pk>/proposals/<int:proposal_id>/answer/", DealAnswerApi.as_view(), name="api-deal-answer"),
    path("wallet/", WalletApi.as_view(), name="api-wallet"),
    path("auth/token/", AuthTokenApi.as_view(), name="api-auth-token"),
]
