"""The API's signed-in player, and their API token (/api/v1/auth/token/).

A player's API call authenticates by token or by session (with its CSRF token),
with DRF's own authentication classes (settings.REST_FRAMEWORK); PlayerApiView is
what every app's player endpoints build on.
"""

from django.contrib.auth import authenticate
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.serializers import ErrorSerializer, InvalidRequestSerializer, TokenRequestSerializer, TokenSerializer
from accounts.views import LOCKED_OUT, lockout_seconds
from responsible.services import login_refusal

NOT_LOGGED_IN = _("Log in to register, rebuy or see your wallet: send your API token, or use your session.")
AUTH_ERRORS = {
    401: OpenApiResponse(
        ErrorSerializer, description="`not_authenticated`: no token and no session; `authentication_failed`."
    ),
    403: OpenApiResponse(ErrorSerializer, description="`permission_denied`: a session request without CSRF token."),
}


def by_status(responses: dict) -> dict:
    """A schema's responses in the order of their status codes."""
    return dict(sorted(responses.items()))


class PlayerApiView(APIView):
    """The signed-in player's own things: by token, or by session with its CSRF token.

    Token first (settings.REST_FRAMEWORK): DRF answers a request without credentials
    with the first authenticator's challenge, and only the token has one (401 and
    WWW-Authenticate: Token; the session first would make it a 403)."""

    permission_classes = (IsAuthenticated,)

    def permission_denied(self, request, message=None, code=None):
        if request.authenticators and not request.successful_authenticator:
            raise exceptions.NotAuthenticated(NOT_LOGGED_IN)
        super().permission_denied(request, message=message, code=code)


class InvalidCredentials(exceptions.APIException):
    status_code = 400
    default_code = "invalid_credentials"
    default_detail = _("Unable to log in with that username and password.")


class AuthTokenApi(PlayerApiView):
    """The player's API token: get it with username and password, revoke it to log the API out."""

    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "DELETE" else [AllowAny()]

    @extend_schema(
        summary="Get the API token",
        description="The same token until it is revoked; every client of the player shares it.",
        request=TokenRequestSerializer,
        responses=by_status(
            {
                200: TokenSerializer,
                400: OpenApiResponse(
                    InvalidRequestSerializer, description="`invalid_credentials`; `invalid` (with `fields`)."
                ),
                401: OpenApiResponse(
                    ErrorSerializer,
                    description="`authentication_failed`: an `Authorization` header with an unknown or revoked "
                    "token; send none to get a token.",
                ),
                403: AUTH_ERRORS[403],
                429: OpenApiResponse(
                    ErrorSerializer,
                    description="`throttled`: too many failed log-ins from this address or for this username "
                    "(the web and admin log-ins' too); Retry-After says when to try again.",
                ),
            }
        ),
    )
    def post(self, request) -> Response:
        body = TokenRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = authenticate(request, **body.validated_data)
        # django-axes marks a locked-out attempt on the request it was given: DRF's.
        if getattr(request, "axes_locked_out", False):
            wait = lockout_seconds()
            raise exceptions.Throttled(wait, detail=LOCKED_OUT % {"minutes": -(-wait // 60)})
        if user is None:
            raise InvalidCredentials
        if (refusal := login_refusal(user, timezone.now())) is not None:
            raise exceptions.PermissionDenied(refusal)
        token, _created = Token.objects.get_or_create(user=user)
        return Response(TokenSerializer(token).data)

    @extend_schema(
        summary="Revoke the API token",
        description="Logs every client of the player out of the API; the session, if any, stays.",
        responses=by_status({204: None, **AUTH_ERRORS}),
    )
    def delete(self, request) -> Response:
        Token.objects.filter(user=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
