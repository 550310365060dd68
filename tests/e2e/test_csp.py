"""Content-Security-Policy in the browser: every main page, the admin and the API
docs are sent the policy, and nothing on them breaks it (no inline script, no inline
style, nothing from elsewhere), live updates and htmx swaps included."""

import pytest
from playwright.sync_api import expect

from deals.models import Negotiation
from tests.e2e.test_deals import final_table  # noqa: F401  (the fixture)
from tests.e2e.test_live import listening, log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# The browser reports each violation as a securitypolicyviolation event on the document.
WATCH_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile}:${event.lineNumber}`);
});
"""


class Watched:
    """A page whose CSP violations (events and console reports) are collected."""

    def __init__(self, page):
        self.page, self.console = page, []
        page.add_init_script(WATCH_VIOLATIONS)
        page.on(
            "console",
            lambda message: self.console.append(message.text) if "Content Security Policy" in message.text else None,
        )

    def visit(self, path: str, *, live: bool = False):
        """Open `path`, check it was sent the policy, and return the page."""
        if live:
            listening(self.page, path)
            response = None
        else:
            response = self.page.goto(path)
        if response is not None:
            assert "script-src 'self'" in response.headers["content-security-policy"], path
        return self.page

    def violations(self) -> list[str]:
        return self.console + self.page.evaluate("window.cspViolations")


def test_the_pages_keep_to_the_content_security_policy(asgi_page, final_table):  # noqa: F811
    tournament, _players = final_table
    UserFactory(username="ada", screen_name="Ada", is_staff=True, is_superuser=True)

    player = Watched(asgi_page())
    player.page.goto("/accounts/login/", timeout=30_000)  # the server's first answer is slow on a busy machine
    log_in(player.page, "alice")
    # The lobby, live, and its filters swapped in by htmx.
    lobby = player.visit("/", live=True)
    lobby.get_by_label("Search").fill(tournament.name)
    expect(lobby.locator("#results")).to_contain_text(tournament.name)
    assert player.violations() == []

    info = player.visit(f"/tournaments/{tournament.pk}/", live=True)
    expect(info.locator("#clock")).to_contain_text("Level 1")
    assert player.violations() == []

    table = player.visit(f"/tournaments/{tournament.pk}/tables/1/", live=True)
    expect(table.get_by_role("heading", name="Table 1")).to_be_visible()
    assert player.violations() == []

    wallet = player.visit("/wallet/")
    expect(wallet.get_by_role("heading", name="Your wallet")).to_be_visible()
    assert player.violations() == []

    info = player.visit(f"/tournaments/{tournament.pk}/", live=True)
    info.get_by_role("button", name="Ask for a deal").click()
    expect(info.get_by_role("heading", name=f"URGENT Tournament #{tournament.pk} chop")).to_be_visible()
    deal = player.visit(f"/deals/{Negotiation.objects.get().pk}/", live=True)
    expect(deal.get_by_role("region", name="Asking the players")).to_be_visible()
    assert player.violations() == []

    docs = player.visit("/api/docs/")
    expect(docs.locator(".swagger-ui .info")).to_contain_text("Tournament portal API")
    assert player.violations() == []

    admin = Watched(asgi_page())
    admin.page.goto("/admin/login/")
    admin.page.get_by_label("Username").fill("ada")
    admin.page.get_by_label("Password").fill("correct horse battery")
    admin.page.get_by_role("button", name="Log in").click()
    expect(admin.page.get_by_role("button", name="Log out")).to_be_visible()
    for path in ("/admin/", "/admin/tournaments/tournament/", f"/admin/tournaments/tournament/{tournament.pk}/change/"):
        admin.visit(path)
        expect(admin.page.locator("#content")).to_be_visible()
    # The postpone confirmation, with the admin's date and time widgets.
    changelist = admin.visit("/admin/tournaments/tournament/")
    changelist.locator(f'input[name="_selected_action"][value="{tournament.pk}"]').check()
    changelist.locator('select[name="action"]').select_option(label="Postpone")
    changelist.locator('button[name="index"]').click()
    expect(changelist.locator('input[name="new_start_0"]')).to_be_visible()
    changelist.locator(".datetimeshortcuts a").first.click()  # "Today", by the admin's JavaScript
    assert admin.violations() == []
