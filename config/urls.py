from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.http import HttpResponse, JsonResponse
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


def api_not_found(request):
    return JsonResponse({"code": "not_found", "message": "There is no such API address."}, status=404)


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("tournaments.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^api/", api_not_found),
    path("admin/", admin.site.urls),
    *i18n_patterns(
        path("", include("lobby.urls")),
        path("accounts/", include("accounts.urls")),
        path("support/", include("support.urls")),
        path("deals/", include("deals.urls")),
        prefix_default_language=False,
    ),
]
