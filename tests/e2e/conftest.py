"""A real headless Chromium against pytest-django's live server.

One browser for the whole e2e package (launching is the slow part), a fresh context per test
so no cookie, time zone or language leaks from one test into the next. Playwright
must drive Debian's Chromium (PLAYWRIGHT_CHROMIUM, default /usr/bin/chromium): its
own browser download is not available here.
"""

import os

import pytest

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
# Long enough for a slow CI machine, short enough that a missing element fails fast.
TIMEOUT_MS = 5_000


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


@pytest.fixture
def new_page(browser, live_server):
    """Open pages in a fresh context on the live server: `new_page(java_script_enabled=False)`.

    Any JavaScript error on a page, or a failed request for one of its scripts or
    styles, fails the test.
    """
    contexts, problems = [], []

    def open_page(**options):
        context = browser.new_context(
            base_url=live_server.url, timezone_id=BROWSER_TIME_ZONE, locale="en-GB", **options
        )
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"JavaScript error: {error}"))
        page.on(
            "response",
            lambda response: (
                problems.append(f"{response.status} for {response.url}")
                if response.request.resource_type in {"script", "stylesheet"}
                and not (response.ok or response.status == 304)  # 304: the browser's copy is current
                else None
            ),
        )
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not problems, problems


@pytest.fixture
def page(new_page):
    return new_page()
