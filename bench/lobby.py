"""How fast is the lobby, the busiest page of the room, against a trivial Django view?

Production-like settings (DEBUG=0, PostgreSQL in a throwaway database, the Redis
cache), 10,000 tournaments with varied fields, then requests straight through
Django's WSGI handler in this process (the same middleware stack a server runs,
without the HTTP parsing both views would share). The views are measured in
interleaved one-second rounds so machine noise hits them alike (one second per
round, like the lobby's cache: a hot page misses once per round, as in production):

- trivial: `/bench/trivial`, HttpResponse("ok"), added by this bench's urlconf;
- lobby: `/`, default filters, page 1, a first-time visitor (no cookies): the page
  kept whole for visitors;
- mix: filter and sort variants, page 2, an htmx swap, Danish, a viewer's time zone;
- uncached: `/` with nothing cached: every request reads the database and renders
  the filter form, the results and the page;
- signed in: `/` for a logged-in player: the page rendered for them around the
  shared filter form and results (session from the cache, one query for the user,
  one for their own marks);
- user only: `/bench/trivial-signed-in`, the same player's session and user read and
  nothing else: the ceiling of any signed-in page.

    uv run python bench/lobby.py [--rounds 8] [--seconds 1.0] [--profile]

--profile prints a cProfile of signed-in requests (the page most players see) instead
of measuring.

Ends with `RESULT lobby_ratio` (lobby req/s over trivial req/s; target >= 0.25),
`RESULT lobby_mix_ratio`, `RESULT lobby_uncached_ratio`, `RESULT lobby_signed_in_ratio`,
`RESULT lobby_signed_in_floor_ratio` (user only over trivial) and `RESULT lobby_queries`
(SQL queries of a lobby request that misses the cache). The run takes about 60 s.
"""

import argparse
import contextlib
import os
import random
import secrets
import sys
import tempfile
import time
from datetime import timedelta
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path and its name would hide the `lobby` app.
sys.path[0] = str(ROOT)


from bench.harness import DATABASE_SERVER, throwaway_database, with_database  # noqa: E402

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13")
TOURNAMENTS = 10_000
TIME_BUDGET = 85.0  # seconds; measuring stops early rather than overrun

BROWSER = {
    "HTTP_USER_AGENT": "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0",
    "HTTP_ACCEPT": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9",
    "HTTP_ACCEPT_ENCODING": "gzip, deflate, br",
}
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": "http://127.0.0.1/"}
TRIVIAL = [("/bench/trivial", "", {})]
LOBBY = [("/", "", {})]
MIX = [
    ("/", "", {}),
    ("/", "page=2", {}),
    ("/", "sort=-buy_in", {}),
    ("/", "game=omaha&limit=pl", {}),
    ("/", "tag=knockout&sort=-prize_pool", {}),
    ("/", "currency=USD&buy_in_max=50", {}),
    ("/", "q=Sunday", {}),
    ("/", "status=registering&sort=start", HTMX),
    ("/da/", "", {"HTTP_ACCEPT_LANGUAGE": "da"}),
    ("/", "", {"HTTP_COOKIE": "tz=Europe/Copenhagen"}),
]


def configure(database: str, static_root: Path) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=with_database(DATABASE_SERVER, database),
        REDIS_URL=REDIS_URL,
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        HTTPS="0",
        DEBUG="0",
        STATIC_ROOT=str(static_root),
        LOG_LEVEL="WARNING",
    )


def trivial(request):
    from django.http import HttpResponse

    return HttpResponse("ok")


def trivial_signed_in(request):
    """The least any signed-in page does: its session and its user read."""
    from django.http import HttpResponse

    return HttpResponse("ok" if request.user.is_authenticated else "no")


class BenchUrls:
    """The project's URLs plus the trivial view; i18n_patterns must stay at the root,
    so the project's patterns are spliced in rather than included."""

    def __init__(self):
        from django.urls import path

        from config.urls import urlpatterns

        self.urlpatterns = [
            path("bench/trivial", trivial),
            path("bench/trivial-signed-in", trivial_signed_in),
            *urlpatterns,
        ]


def seed(now) -> None:
    """10,000 tournaments over the last three weeks and the next ten days: most of the
    past is finished or cancelled, the last twelve hours are running or just over."""
    from tournaments.models import (
        BettingStructure,
        BlindLevel,
        BlindStructure,
        BountyKind,
        EntryKind,
        Game,
        PrizeStructure,
        Speed,
        Status,
        Tournament,
    )

    rng = random.Random(20261201)
    structures = []
    for name, minutes in (("Regular 12-minute", 12), ("Turbo 6-minute", 6)):
        structure = BlindStructure.objects.create(name=name)
        BlindLevel.objects.bulk_create(
            BlindLevel(structure=structure, position=i, small_blind=10 * i, big_blind=20 * i, minutes=minutes)
            for i in range(1, 21)
        )
        structures.append(structure)
    names = ["Daily Freezeout", "Sunday Major", "Turbo Knockout", "Omaha Hi/Lo Classic", "Night Owl", "Deepstack"]
    buy_ins = [0, 110, 220, 550, 1_100, 2_200, 5_500, 10_900, 21_500]

    def tournament(number: int, target=None) -> Tournament:
        start = now + timedelta(minutes=rng.randint(-21 * 24 * 60, 10 * 24 * 60))
        age = now - start
        if age > timedelta(hours=12):
            status = Status.CANCELLED if rng.random() < 0.05 else Status.FINISHED
        elif age > timedelta(0):
            status = rng.choice([Status.LATE_REGISTRATION, Status.RUNNING, Status.ON_BREAK, Status.FINISHED])
        else:
            status = Status.REGISTERING if age > -timedelta(days=1) else Status.ANNOUNCED
        kind = rng.choices(list(EntryKind), [7, 1, 1, 1])[0]  # cash, T-Money, freeroll, ticket only
        buy_in = 0 if kind == EntryKind.FREEROLL else rng.choice(buy_ins[1:])
        bounty = rng.choice([BountyKind.NONE] * 3 + [BountyKind.KNOCKOUT, BountyKind.FIXED])
        heads_up = rng.random() < 0.03
        entrants = rng.randint(0, 1_000)
        return Tournament(
            name=f"{rng.choice(names)} #{number}",
            game=rng.choices(list(Game), [8, 3, 1])[0],
            betting=rng.choices(list(BettingStructure), [8, 3, 1])[0],
            speed=rng.choice(list(Speed)),
            deepstack=rng.random() < 0.1,
            status=status,
            entry_kind=kind,
            currency="TMY" if kind == EntryKind.TMONEY else rng.choice(["EUR", "EUR", "USD", "DKK"]),
            buy_in=buy_in,
            fee=buy_in // 10,
            table_size=2 if heads_up else rng.choice([6, 9]),
            heads_up=heads_up,
            max_entrants=rng.choice([100, 1_000, 5_000]) + entrants,
            scheduled_start=start,
            blind_structure=rng.choice(structures),
            rebuy_chips=rng.choice([0, 0, 0, 10_000]),
            rebuy_levels=6,
            rebuy_price=buy_in,
            guarantee=rng.choice([0, 0, 100_000, 1_000_000]),
            bounty_kind=bounty,
            bounty_amount=0 if bounty == BountyKind.NONE else max(buy_in // 2, 100),
            satellite_target=target,
            satellite_seats=1 if target else 0,
            prize_structure=PrizeStructure.SATELLITE if target else PrizeStructure.STANDARD,
            entries_count=entrants,
            prize_contributions=entrants * buy_in,
        )

    targets = Tournament.objects.bulk_create([tournament(n) for n in range(1, TOURNAMENTS - 499)], batch_size=2_000)
    satellites = [tournament(n, target=rng.choice(targets)) for n in range(TOURNAMENTS - 499, TOURNAMENTS + 1)]
    Tournament.objects.bulk_create(satellites, batch_size=2_000)
    assert Tournament.objects.count() == TOURNAMENTS
    from django.db import connection

    with connection.cursor() as cursor:  # what autovacuum would have done by the time anyone looks
        cursor.execute("ANALYZE tournaments_tournament")


class Driver:
    """Requests straight through the WSGI handler, the way a server calls it."""

    def __init__(self, handler):
        self.handler = handler

    def environ(self, path: str, query: str, headers: dict) -> dict:
        return {
            "REQUEST_METHOD": "GET",
            "SCRIPT_NAME": "",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "127.0.0.1",
            **BROWSER,
            **headers,
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": BytesIO(b""),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": False,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }

    def get(self, request: tuple[str, str, dict]) -> bytes:
        statuses = []
        response = self.handler(self.environ(*request), lambda status, headers, exc_info=None: statuses.append(status))
        try:
            body = b"".join(response)
        finally:
            response.close()  # request_finished: what the server does after each response
        if not statuses[0].startswith("200"):
            raise RuntimeError(f"GET {request[0]}?{request[1]}: {statuses[0]}")
        return body

    def run(self, requests: list, seconds: float, offset: int = 0) -> tuple[int, float]:
        """As many requests as fit in `seconds`, cycling through `requests`."""
        count = 0
        started = time.perf_counter()
        stop_at = started + seconds
        while time.perf_counter() < stop_at:
            self.get(requests[(offset + count) % len(requests)])
            count += 1
        return count, time.perf_counter() - started


@contextlib.contextmanager
def every_request_a_miss():
    """The lobby with its sharing off: nothing cached."""
    from django.test.utils import override_settings

    dummy = {alias: {"BACKEND": "django.core.cache.backends.dummy.DummyCache"} for alias in ("default", "local")}
    with override_settings(CACHES=dummy):
        yield


def queries_per_request(driver: Driver, request: tuple, *, miss: bool) -> int:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    with every_request_a_miss() if miss else contextlib.nullcontext():
        driver.get(request)  # a hit needs an entry to find
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            driver.get(request)
    return len(captured)


def signed_in_cookie() -> str:
    """A logged-in player's cookies, as the browser sends them on every page."""
    from django.test import Client
    from django.utils.crypto import get_random_string

    from accounts.models import User

    player = User.objects.create_user("bench-player", "player@example.com", "bench-pass", screen_name="Player")
    client = Client()
    client.force_login(player)
    return f"sessionid={client.cookies['sessionid'].value}; csrftoken={get_random_string(32)}"


def sign_out(cookie: str) -> None:
    """End the bench's session, so it does not outlive the run in the shared cache."""
    from importlib import import_module

    from django.conf import settings

    session_key = cookie.split("sessionid=", 1)[1].split(";", 1)[0]
    import_module(settings.SESSION_ENGINE).SessionStore(session_key).delete()


def measure(driver: Driver, kinds: dict, args: argparse.Namespace, began: float) -> tuple[dict, dict]:
    """Interleaved rounds: every kind gets `args.seconds` per round, in a rotating order
    so none always goes first. Returns req/s per kind and each round's ratio to trivial."""
    totals = {kind: [0, 0.0] for kind in kinds}
    ratios: dict[str, list[float]] = {kind: [] for kind in kinds if kind != "trivial"}
    for number in range(args.rounds):
        if time.monotonic() - began > TIME_BUDGET - len(kinds) * args.seconds - 3:
            print(f"time budget: stopped after {number} rounds")
            break
        rates = {}
        turn = number % len(kinds)
        for kind in list(kinds)[turn:] + list(kinds)[:turn]:
            with every_request_a_miss() if kind == "uncached" else contextlib.nullcontext():
                count, elapsed = driver.run(kinds[kind], args.seconds, offset=number)
            totals[kind][0] += count
            totals[kind][1] += elapsed
            rates[kind] = count / elapsed
        for kind, spread in ratios.items():
            spread.append(rates[kind] / rates["trivial"])
    rps = {kind: count / elapsed for kind, (count, elapsed) in totals.items()}
    for kind in kinds:
        line = f"{kind:>9}: {rps[kind]:8.1f} req/s ({totals[kind][0]} requests)"
        if kind in ratios:
            spread = ratios[kind]
            line += f"  ratio {rps[kind] / rps['trivial']:.3f} (rounds {min(spread):.3f}..{max(spread):.3f})"
        print(line)
    return rps, ratios


def bench(args: argparse.Namespace, began: float, database: str) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command
    from django.test.utils import override_settings
    from django.utils import timezone

    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", interactive=False, verbosity=0)
    seed(timezone.now())
    print(f"setup (database, static files, migrate, {TOURNAMENTS:,} tournaments): {time.monotonic() - began:.1f} s")

    # The Redis database is shared with other benches: this run's keys get their own prefix.
    caches = {**settings.CACHES, "default": {**settings.CACHES["default"], "KEY_PREFIX": database}}
    with override_settings(ROOT_URLCONF=BenchUrls(), CACHES=caches):
        cookie = signed_in_cookie()
        signed_in = [(path, query, {**headers, "HTTP_COOKIE": cookie}) for path, query, headers in LOBBY]
        driver = Driver(WSGIHandler())
        for request in TRIVIAL + MIX + signed_in:  # warm-up: templates, URL resolvers, connections
            driver.get(request)
        body = driver.get(LOBBY[0]).decode()
        assert "lobby-table" in body, "the lobby did not render its results"
        assert "tournaments</p>" in body, "the lobby did not count its results"
        queries = {"miss": queries_per_request(driver, LOBBY[0], miss=True)}
        queries["hit"] = queries_per_request(driver, LOBBY[0], miss=False)
        queries["signed in"] = queries_per_request(driver, signed_in[0], miss=False)
        if args.profile:
            profile(driver, signed_in)
            sign_out(cookie)
            return
        user_only = [("/bench/trivial-signed-in", "", {"HTTP_COOKIE": cookie})]
        kinds = {
            "trivial": TRIVIAL,
            "lobby": LOBBY,
            "mix": MIX,
            "uncached": LOBBY,
            "signed in": signed_in,
            "user only": user_only,
        }
        rps, ratios = measure(driver, kinds, args, began)
        sign_out(cookie)

    print(
        f"SQL queries per lobby request: {queries['miss']} on a cache miss, {queries['hit']} on a hit, "
        f"{queries['signed in']} on a hit signed in (the session, from the cache if there, and the user)"
    )
    print(f"total {time.monotonic() - began:.1f} s, {len(ratios['lobby'])} rounds of {args.seconds} s per view")
    print(f"RESULT lobby_ratio {rps['lobby'] / rps['trivial']:.3f}")
    print(f"RESULT lobby_mix_ratio {rps['mix'] / rps['trivial']:.3f}")
    print(f"RESULT lobby_uncached_ratio {rps['uncached'] / rps['trivial']:.4f}")
    print(f"RESULT lobby_signed_in_ratio {rps['signed in'] / rps['trivial']:.3f}")
    # The ceiling of any signed-in page here: a view that only reads its session and user.
    print(f"RESULT lobby_signed_in_floor_ratio {rps['user only'] / rps['trivial']:.3f}")
    print(f"RESULT lobby_queries {queries['miss']}")


def profile(driver: Driver, requests: list) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    count, elapsed = driver.run(requests, 3.0)
    profiler.disable()
    print(f"profiled: {count} signed-in requests in {elapsed:.1f} s (slower than unprofiled)")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(25)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="interleaved measuring rounds")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per view per round")
    parser.add_argument("--profile", action="store_true", help="profile signed-in requests instead of measuring")
    args = parser.parse_args()
    began = time.monotonic()

    database = f"portal_bench_{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="portal-bench-") as tmp, throwaway_database(database):
        configure(database, Path(tmp) / "static")
        bench(args, began, database)
        return 0


if __name__ == "__main__":
    sys.exit(main())
