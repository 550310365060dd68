"""A fixed-window attempt counter on Django's cache, who is asking, and the limits
of logging in and signing up (the web pages' and the API token's alike).

Fixed windows are coarse (a burst across a window's edge gets twice the limit) but
need one atomic increment per attempt and nothing else; on Redis `add` and `incr`
are atomic, so every process shares one count.
"""

import hashlib
import ipaddress
import math
import os
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpRequest


def limit_exceeded(scope: str, key: str, *, limit: int, window_seconds: int) -> int:
    """Count one attempt; return 0 while within `limit` per window, else the
    seconds until the window ends (a Retry-After)."""
    now = time.time()
    window = int(now // window_seconds)
    digest = hashlib.blake2b(key.encode(), digest_size=16).hexdigest()  # any length or character is a safe key
    cache_key = f"rate-limit:{scope}:{digest}:{window}"
    # The key names its window, so a late expiry cannot stretch one.
    if cache.add(cache_key, 1, timeout=window_seconds):
        count = 1
    else:
        try:
            count = cache.incr(cache_key)
        except ValueError:  # expired between add and incr
            cache.add(cache_key, 1, timeout=window_seconds)
            count = 1
    if count <= limit:
        return 0
    return max(1, math.ceil((window + 1) * window_seconds - now))


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
    its /64, which one subscriber usually holds whole.
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
        return str(ipaddress.ip_network(f"{client}/64", strict=False))
    return str(client)


@dataclass(frozen=True)
class Limit:
    attempts: int
    window_seconds: int


# Enough for a player who mistypes, too few to guess passwords or mass-produce accounts.
LOGIN_LIMIT = Limit(attempts=10, window_seconds=5 * 60)
SIGN_UP_LIMIT = Limit(attempts=5, window_seconds=60 * 60)


def over_limit(scope: str, key: str, limit: Limit) -> int:
    """limit_exceeded with one of the limits above."""
    return limit_exceeded(scope, key, limit=limit.attempts, window_seconds=limit.window_seconds)


def login_wait(request: HttpRequest, username: str) -> int:
    """Count one password attempt per client address and per username, each alone
    enough to stop a guesser (rotating addresses meets the username's limit); the
    web login and the API's token share the counts. The seconds to wait, or 0."""
    waits = [over_limit("login:ip", client_address(request), LOGIN_LIMIT)]
    if username := username.strip().casefold():
        waits.append(over_limit("login:username", username, LOGIN_LIMIT))
    return max(waits)
