"""Playing by keyboard (issue 28): on his turn a player folds with F, checks or calls
with C, and with R goes to the amount, where Enter bets or raises it; the page lists
the keys. Never while he types in a box."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.test_live import LIVE, log_in
from tests.tables import act, acting, in_play, started
from tournaments.models import Entry, Hand
from tournaments.rules.hands import ActionKind
from tournaments.selectors.replays import entry_of, replay

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def at_the_table(new_page, tournament, row):
    """The page of the player whose turn it is, signed in, at his table."""
    player = acting(row).player
    page = new_page()
    log_in(page, player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    expect(page.locator(".own-seat form.actions")).to_be_visible()
    return page


def last_action(row) -> tuple[int, str, int | None]:
    seat, kind, amount = Hand.objects.get(pk=row.pk).actions[-1]
    return seat, kind, amount


def test_a_hand_played_with_the_keys_alone(new_page):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)

    first = at_the_table(new_page, tournament, row)
    expect(first.get_by_text("Keys: F fold, C check or call, R the bet or raise amount")).to_be_visible()
    seat = row.to_act
    first.keyboard.press("r")
    amount = first.locator('.own-seat input[name="amount"]')
    expect(amount).to_be_focused()
    first.keyboard.type("300")  # into the box: a key typed there is text, not an action
    first.keyboard.press("Enter")
    expect(first.locator(".own-seat")).to_contain_text("Waiting for the other players")
    row.refresh_from_db()
    assert last_action(row) == (seat, ActionKind.BET_RAISE.value, 300)

    second = at_the_table(new_page, tournament, row)
    seat = row.to_act
    second.keyboard.press("c")
    expect(second.locator(".own-seat")).to_contain_text("Waiting for the other players")
    row.refresh_from_db()
    assert last_action(row)[:2] == (seat, ActionKind.CHECK_CALL.value)

    third = at_the_table(new_page, tournament, row)
    seat = row.to_act
    third.keyboard.press("f")
    expect(third.locator(".own-seat form.actions")).to_have_count(0)
    row.refresh_from_db()
    assert last_action(row)[:2] == (seat, ActionKind.FOLD.value)


def test_a_fold_when_the_player_could_check_is_asked_once_more(new_page):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    for _ in range(3):  # everyone calls the big blind: on the flop the first may check
        row = act(row, ActionKind.CHECK_CALL)
    page = at_the_table(new_page, tournament, row)
    seat, before = row.to_act, len(row.actions)
    fold = page.locator('.own-seat form.actions button[value="f"]')
    asked = []

    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    fold.click()
    assert asked == ["Fold when you can check?"]
    page.keyboard.press("c")  # he thinks again and checks: the fold never went
    expect(page.locator(".own-seat")).to_contain_text("Waiting for the other players")
    row.refresh_from_db()
    assert row.actions[before:] == [[seat, ActionKind.CHECK_CALL.value, None]]

    nxt = at_the_table(new_page, tournament, row)
    nxt.once("dialog", lambda dialog: dialog.accept())
    nxt.keyboard.press("f")  # the key asks too; yes: he folds
    expect(nxt.locator(".own-seat form.actions")).to_have_count(0)
    row.refresh_from_db()
    assert row.actions[-1][1] == ActionKind.FOLD.value


def test_a_pre_action_chosen_while_waiting_is_played_the_moment_his_turn_comes(asgi_page):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    ahead = replay(row)
    ahead.act(row.to_act, ActionKind.BET_RAISE, 300)
    waiter = Entry.objects.get(pk=entry_of(row, ahead.to_act))  # next to act once the first raises
    page = asgi_page()
    log_in(page, waiter.player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    expect(page.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)
    pre = page.locator("[data-pre-actions]")
    expect(pre).to_contain_text(f"Call {20 - ahead.setup.stacks[ahead.to_act] + replay(row).stack(ahead.to_act)}")
    pre.get_by_label("Call any").check()

    row = act(row, ActionKind.BET_RAISE, 300)  # the first raises: his turn, facing more than he chose to call

    seat = ahead.to_act
    expect(page.locator(f'li[data-seat="{seat}"] .said')).to_have_text("Call", timeout=LIVE)  # played, and shown
    row.refresh_from_db()
    assert row.actions[-1] == [seat, ActionKind.CHECK_CALL.value, None]  # called the raise: "any"
    expect(page.locator(".own-seat form.actions")).to_have_count(0)


def test_a_pre_chosen_call_of_an_amount_that_has_changed_is_not_played(asgi_page):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    ahead = replay(row)
    ahead.act(row.to_act, ActionKind.BET_RAISE, 300)
    waiter = Entry.objects.get(pk=entry_of(row, ahead.to_act))
    page = asgi_page()
    log_in(page, waiter.player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    expect(page.locator("body")).to_have_attribute("data-live-state", "open", timeout=LIVE)
    page.locator('[data-pre-actions] input[value="call"]').check()

    row = act(row, ActionKind.BET_RAISE, 300)  # the amount to call is not the one he chose

    expect(page.locator(".own-seat form.actions")).to_be_visible(timeout=LIVE)  # his turn: he chooses again
    expect(page.locator('.own-seat button[value="cc"]')).to_contain_text("Call")
    row.refresh_from_db()
    assert [kind for _seat, kind, _amount in row.actions] == [ActionKind.BET_RAISE.value]  # nothing played for him


def test_without_javascript_enter_in_the_amount_raises_and_never_folds(new_page):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    seat = row.to_act
    page = new_page(java_script_enabled=False)
    log_in(page, acting(row).player.username)
    page.goto(reverse("lobby:table", args=[tournament.pk, row.table.number]))
    amount = page.locator('.own-seat input[name="amount"]')
    amount.fill("300")
    amount.press("Enter")
    expect(page.locator(".own-seat")).to_contain_text("Waiting for the other players")
    row.refresh_from_db()
    assert last_action(row) == (seat, ActionKind.BET_RAISE.value, 300)
