from datetime import timedelta

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from accounts.forms import LogInForm, SignUpForm
from accounts.rate_limit import SIGN_UP_LIMIT, attempt_forgive, client_address, over_limit
from accounts.services import TAKEN, user_sign_up
from responsible.signals import session_key_changed


def too_many_attempts(request, retry_after: int):
    """429 with when to try again, for people and for clients that read Retry-After."""
    context = {"retry_at": timezone.now() + timedelta(seconds=retry_after), "minutes": -(-retry_after // 60)}
    response = render(request, "accounts/too_many_attempts.html", context, status=429)
    response["Retry-After"] = str(retry_after)
    return response


LOCKED_OUT = _("Too many failed log-ins. Please wait %(minutes)s minutes and try again.")


def lockout_seconds() -> int:
    """How long a lockout lasts from the last attempt (settings.AXES_COOLOFF_TIME)."""
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


def locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a locked-out log-in: the 429 page, or JSON under /api/."""
    retry_after = lockout_seconds()
    if request.path.startswith("/api/"):
        message = LOCKED_OUT % {"minutes": -(-retry_after // 60)}
        response = JsonResponse({"code": "throttled", "message": message}, status=429)
        response["Retry-After"] = str(retry_after)
        return response
    return too_many_attempts(request, retry_after)


def _safe_next(request) -> str:
    url = request.POST.get("next") or request.GET.get("next", "")
    allowed = url_has_allowed_host_and_scheme(url, {request.get_host()}, require_https=request.is_secure())
    return url if allowed else ""


@sensitive_post_parameters("password", "password_confirm")
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def sign_up(request):
    """Open an account, log it in, and continue in the language it chose.

    The limit counts the accounts opened and the attempts that learn whose a name
    or address is (how one finds out which accounts exist); a form merely filled
    in wrong is given back."""
    if request.user.is_authenticated:
        # One account per person (rule 21): nobody opens a second one from the first.
        status = 403 if request.method == "POST" else 200
        return render(request, "accounts/signup.html", {"signed_in": True}, status=status)
    status = 200
    if request.method == "POST":
        attempt = over_limit("signup:ip", client_address(request), SIGN_UP_LIMIT)
        if attempt.retry_after:
            return too_many_attempts(request, attempt.retry_after)
        form = SignUpForm(request.POST)
        probed = False
        if form.is_valid():
            try:
                user = user_sign_up(**form.sign_up_arguments())
            except ValidationError as error:
                form.add_error(None, error)
                probed = any(problem.code == TAKEN for problems in error.error_dict.values() for problem in problems)
            else:
                return _signed_up(request, user)
        if not probed:
            attempt_forgive(attempt)
        status = 400
    else:
        form = SignUpForm(initial={"language": translation.get_language()})
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request)}, status=status)


def _signed_up(request, user):
    # The backend that authenticates (the first, axes', only watches).
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    translation.activate(user.language)
    with translation.override(user.language):
        lobby = reverse("lobby:lobby")
    response = HttpResponseRedirect(_safe_next(request) or lobby)
    # As the language switcher would; the unprefixed pages stay English by design.
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        user.language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response


class FormErrorIs400:
    """A refused form answers 400, as the lobby's filters do; htmx swaps it in."""

    def form_invalid(self, form):
        response = super().form_invalid(form)  # type: ignore[misc]  # a mixin: the form view it joins has it
        response.status_code = 400
        return response


class LogIn(FormErrorIs400, auth_views.LoginView):
    """Django's login; django-axes limits failed attempts (settings.AXES_*)."""

    template_name = "accounts/login.html"
    authentication_form = LogInForm


class LogOut(auth_views.LogoutView):
    """POST only, so another site cannot log a player out with a link."""

    def http_method_not_allowed(self, request, *args, **kwargs):
        response = render(request, "accounts/logout_by_post.html", status=405)
        allowed = self._allowed_methods()  # type: ignore[attr-defined]  # Django's View has it; django-stubs omits it
        response["Allow"] = ", ".join(method.upper() for method in allowed)
        return response


class PasswordChange(FormErrorIs400, auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def form_valid(self, form):
        # Django gives the session a new key: the player's kept sessions follow it,
        # so that a break still ends this one (responsible gaming).
        old_key = self.request.session.session_key
        response = super().form_valid(form)
        session_key_changed(old_key, self.request.session.session_key)
        return response


class PasswordChangeDone(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"
