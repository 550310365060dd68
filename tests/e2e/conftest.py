"""A real headless Chromium against pytest-django's live server.

One browser for the whole e2e package (launching is the slow part), a fresh context per test
so no cookie, time zone or language leaks from one test into the next. Playwright
must drive Debian's Chromium (PLAYWRIGHT_CHROMIUM, default /usr/bin/chromium): its
own browser download is not available here.
"""

import contextlib
import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PLAYWRIGHT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # the tests run as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The room's players are in Denmark; the schedule tests compute local times in this zone.
BROWSER_TIME_ZONE = "Europe/Copenhagen"
# How long an action or an expectation waits before it fails: a page waits for
# nothing once what it expects is there, so this is only a failure's patience,
# long enough for a 2-core CI machine whose other cores are busy.
TIMEOUT_MS = 15_000


@pytest.fixture(scope="package")
def browser():
    """One Chromium for all of tests/e2e.

    Playwright's sync API marks its event loop as running in this thread between
    calls, and Django refuses database access whenever a loop runs (the factories,
    and pytest-django's flush after each test): DJANGO_ALLOW_ASYNC_UNSAFE lifts that
    for exactly as long as the browser is open. Package scope, not session scope,
    closes the browser (and restores the check) before the rest of the suite runs.
    """
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"No Chromium at {CHROMIUM}; set PLAYWRIGHT_CHROMIUM to its path.")
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Pages:
    """Fresh browser contexts on one server; any JavaScript error on a page, or a
    failed request for one of its scripts or styles, fails the test."""

    def __init__(self, browser, base_url: str):
        self.browser, self.base_url = browser, base_url
        self.contexts, self.problems = [], []

    def open(self, **options):
        context = self.browser.new_context(
            base_url=self.base_url, timezone_id=BROWSER_TIME_ZONE, locale="en-GB", **options
        )
        context.set_default_timeout(TIMEOUT_MS)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.problems.append(f"JavaScript error: {error}"))
        page.on(
            "response",
            lambda response: (
                self.problems.append(f"{response.status} for {response.url}")
                if response.request.resource_type in {"script", "stylesheet"}
                and not (response.ok or response.status == 304)  # 304: the browser's copy is current
                else None
            ),
        )
        return page

    def close(self):
        for context in self.contexts:
            context.close()
        assert not self.problems, self.problems


@pytest.fixture
def new_page(browser, live_server):
    """Open pages in a fresh context on the live server: `new_page(java_script_enabled=False)`."""
    pages = Pages(browser, live_server.url)
    yield pages.open
    pages.close()


class AsgiServer:
    """The ASGI application (HTTP and WebSocket) served by uvicorn, as the Procfile's
    `ws` line does, in a subprocess on the test database: pytest-django's live server
    speaks no WebSocket. Stop and start it again to drop every socket."""

    def __init__(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        db = connections["default"].settings_dict
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": settings.REDIS_URL,
        }
        self.url = f"http://localhost:{self.port}"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(  # noqa: S603  (our own application)
            [
                *(sys.executable, "-m", "uvicorn", "config.asgi:application"),
                *("--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"),
            ],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            assert self.process.poll() is None, "the ASGI server exited"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                break
            assert time.monotonic() < deadline, "the ASGI server did not start"
            time.sleep(0.1)
        # Its first answer loads Django's URLs, templates and translations: on a busy
        # machine that took longer than a page's wait, so it is asked for here.
        first = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        first.request("GET", "/accounts/login/", headers={"Host": "localhost"})
        assert first.getresponse().status == 200, "the ASGI server does not answer"
        first.close()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)


@pytest.fixture
def asgi_server(transactional_db):
    server = AsgiServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def asgi_page(browser, asgi_server):
    """Open pages in a fresh context on the ASGI server, live updates included."""
    pages = Pages(browser, asgi_server.url)
    yield pages.open
    pages.close()


@pytest.fixture
def page(new_page):
    return new_page()


@pytest.fixture
def migrated_data(transactional_db):
    """What the migrations put in the database (the Support staff group), which an
    earlier test's flush emptied; serialized rollback cannot restore it beside the
    browser's event loop (another connection object), so the migration runs again."""
    call_command("migrate", "support", "0001", verbosity=0)
    call_command("migrate", "support", verbosity=0)
