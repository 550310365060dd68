"""The national register of excluded players (ROFUS), asked at every log-in.

A small provider interface: `check(national_id)` answers ALLOWED, EXCLUDED or
UNAVAILABLE. Production's HttpRegister asks the register's HTTP service (its address,
token and timeout from the environment: ROFUS_URL, ROFUS_TOKEN, ROFUS_TIMEOUT_SECONDS);
the demo's and the tests' LocalRegister reads a table staff edit in the admin. The
failure rule: a register that does not answer, answers an error or something it
cannot read is UNAVAILABLE, and UNAVAILABLE never lets a person play."""

import json
import urllib.error
import urllib.request
from enum import StrEnum
from typing import Protocol

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from responsible.models import LocalRegisterEntry


class Answer(StrEnum):
    ALLOWED = "allowed"
    EXCLUDED = "excluded"
    UNAVAILABLE = "unavailable"


class ExclusionRegister(Protocol):
    def check(self, national_id: str) -> Answer: ...


class LocalRegister:
    """The register as the local table holds it."""

    def check(self, national_id: str) -> Answer:
        excluded = LocalRegisterEntry.objects.filter(national_id=national_id).filter(
            Q(excluded_until__isnull=True) | Q(excluded_until__gt=timezone.now())
        )
        return Answer.EXCLUDED if excluded.exists() else Answer.ALLOWED


class HttpRegister:
    """The register's HTTP service: POST {"national_id": ...} to its address with the
    room's token; it answers 200 with {"excluded": true|false}."""

    def __init__(self, url: str, token: str, timeout: float):
        self.url, self.token, self.timeout = url, token, timeout

    def check(self, national_id: str) -> Answer:
        request = urllib.request.Request(  # noqa: S310  (the register's configured https address)
            self.url,
            data=json.dumps({"national_id": national_id}).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                answer = json.loads(response.read(4096))
        except (OSError, ValueError):  # refused, timed out, an HTTP error, not JSON
            return Answer.UNAVAILABLE
        excluded = answer.get("excluded") if isinstance(answer, dict) else None
        if not isinstance(excluded, bool):
            return Answer.UNAVAILABLE
        return Answer.EXCLUDED if excluded else Answer.ALLOWED


def exclusion_register() -> ExclusionRegister:
    """The register the settings name (ROFUS_URL set: production's HTTP service)."""
    if settings.ROFUS_URL:
        return HttpRegister(settings.ROFUS_URL, settings.ROFUS_TOKEN, settings.ROFUS_TIMEOUT_SECONDS)
    return LocalRegister()
