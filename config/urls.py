from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.http import HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.api import AuthTokenApi
from config.api import api_not_found
from deals.api import DealAnswerApi, DealConsentApi, DealRequestApi, NegotiationApi
from responsible.api import DepositLimitCancelApi, DepositLimitsApi
from tournaments.api import (
    AddonApi,
    PaymentOptionsApi,
    RebuyApi,
    RegistrationApi,
    TournamentDetailApi,
    TournamentListApi,
)
from tournaments.leader_board_api import LeaderBoardApi, OwnPointsApi
from wallet.api import WalletApi


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


def favicon(request):
    # Browsers ask for /favicon.ico whatever the page links; the static file's address carries its hash.
    return HttpResponseRedirect(static("favicon.ico"))


# Swagger UI's page carries a small <style> block and its own inline styles; its
# scripts are separate files (the split view), so only styles are relaxed, here only.
api_docs = csp_override({**settings.SECURE_CSP, "style-src": [CSP.SELF, CSP.UNSAFE_INLINE]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema")
)


# Django's own error answers, as JSON under /api/ (config.api).
handler400 = "config.api.bad_request"
handler403 = "config.api.permission_denied"
handler404 = "config.api.page_not_found"
handler500 = "config.api.server_error"

# Every app's API routes, in one place: the apps know nothing of each other's.
api_urlpatterns = [
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
    path("wallet/limits/", DepositLimitsApi.as_view(), name="api-deposit-limits"),
    path("wallet/limits/cancel/", DepositLimitCancelApi.as_view(), name="api-deposit-limit-cancel"),
    path("leader-boards/<str:kind>/", LeaderBoardApi.as_view(), name="api-leader-board"),
    path("me/points/", OwnPointsApi.as_view(), name="api-own-points"),
    path("auth/token/", AuthTokenApi.as_view(), name="api-auth-token"),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include(api_urlpatterns)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
    re_path(r"^api/", api_not_found),
    path("admin/", admin.site.urls),
    *i18n_patterns(
        path("", include("lobby.urls")),
        path("accounts/", include("accounts.urls")),
        path("support/", include("support.urls")),
        path("deals/", include("deals.urls")),
        path("responsible-gaming/", include("responsible.urls")),
        prefix_default_language=False,
    ),
]
