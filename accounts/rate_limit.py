"""A fixed-window attempt counter on Django's cache, who is asking, and the limit
of signing up. Failed log-ins are django-axes' (settings.AXES_*): it watches every
authentication, the admin's and the API token's included; it asks this module who
is asking (client_address, login_username).

Fixed windows are coarse (a burst across a window's edge gets twice the limit) but
need one atomic increment per attempt and nothing else; on Redis `add` and `incr`
are atomic, so every process shares one count.
"""

import contextlib
import hashlib
import ipaddress
import math
import os
import time
import unicodedata
from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpRequest


def _window_key(scope: str, key: str, window: int) -> str:
    digest = hashlib.blake2b(key.encode(), digest_size=16).hexdigest()  # any length or character is a safe key
    # The key names its window, so a late expiry cannot stretch one.
    return f"rate-limit:{scope}:{digest}:{window}"


@dataclass(frozen=True)
class Attempt:
    """One counted attempt: where it was counted, and 0 while within the limit,
    else the seconds until the window ends (a Retry-After)."""

    cache_key: str
    retry_after: int


def attempt_count(scope: str, key: str, *, limit: int, window_seconds: int) -> Attempt:
    """Count one attempt against `limit` per window."""
    now = time.time()
    window = int(now // window_seconds)
    cache_key = _window_key(scope, key, window)
    if cache.add(cache_key, 1, timeout=window_seconds):
        count = 1
    else:
        try:
            count = cache.incr(cache_key)
        except ValueError:  # expired between add and incr
            cache.add(cache_key, 1, timeout=window_seconds)
            count = 1
    retry_after = 0 if count <= limit else max(1, math.ceil((window + 1) * window_seconds - now))
    return Attempt(cache_key=cache_key, retry_after=retry_after)


def attempt_forgive(attempt: Attempt) -> None:
    """Take back an attempt counted within the limit that turned out not to be
    what the limit is for. Counting first and taking back after keeps the count
    atomic: racing attempts never pass the limit together."""
    if attempt.retry_after:
        return
    with contextlib.suppress(ValueError):  # its window has ended, and the count with it
        cache.decr(attempt.cache_key)


def _trusted_proxies() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network] | None:
    """The addresses allowed to say who the client is: the FORWARDED_ALLOW_IPS the
    Procfile's servers already trust (their default too). None means "*", anyone."""
    value = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    if "*" in entries:
        return None
    return [ipaddress.ip_network(entry, strict=False) for entry in entries]


TRUSTED_PROXIES = _trusted_proxies()


def _parse(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.strip())
    except ValueError:
        return None


def _is_trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return TRUSTED_PROXIES is None or any(address in network for network in TRUSTED_PROXIES)


def client_address(request) -> str:
    """The client's address, as a rate-limit key.

    Behind the reverse proxy every request comes from the proxy, so the client is
    the nearest X-Forwarded-For entry that a trusted proxy added; entries further
    left are the client's own word and may be forged. An IPv6 client is keyed by
    the first address of its /64, which one subscriber usually holds whole (still
    an address, as axes stores it).
    """
    peer = _parse(request.META.get("REMOTE_ADDR", ""))
    if peer is None:
        return request.META.get("REMOTE_ADDR", "")
    client = peer
    if _is_trusted(peer):
        hops = [_parse(hop) for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        for hop in reversed(hops):
            if hop is None:
                break  # garbage from the client: stop at the last address a proxy vouched for
            client = hop
            if TRUSTED_PROXIES is None or not _is_trusted(hop):
                break
    if client.version == 6:
        return str(ipaddress.ip_network(f"{client}/64", strict=False).network_address)
    return str(client)


def login_username(request: HttpRequest, credentials: dict | None) -> str | None:
    """The username a failed log-in counts against: as Django's login form
    normalises it (NFKC: a name in fullwidth letters is the same name), stripped,
    and casefolded, as the database keeps names unique whatever their case."""
    username = (credentials or {}).get("username")
    if not isinstance(username, str):
        return None
    return unicodedata.normalize("NFKC", username).strip().casefold() or None


@dataclass(frozen=True)
class Limit:
    attempts: int
    window_seconds: int


# Enough for a family behind one address, too few to mass-produce accounts.
SIGN_UP_LIMIT = Limit(attempts=5, window_seconds=60 * 60)


def over_limit(scope: str, key: str, limit: Limit) -> Attempt:
    """attempt_count with one of the limits above."""
    return attempt_count(scope, key, limit=limit.attempts, window_seconds=limit.window_seconds)
