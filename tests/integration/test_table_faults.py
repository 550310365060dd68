"""Rule 22 at the tables: staff roll back the hands in play at one table or at every
table, with a reason. Every player keeps the chips he had when the hand was dealt,
the hand stays in the history marked as rolled back, and the table deals again
from the same button; a cancelled event pays from the chips of the hands' start."""

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from tests.integration.test_admin_cancel import confirm, grant, run_action, shown_messages
from tests.tables import act, chips, in_play, prepare, seat_of, started
from tournaments.models import Entry, Hand, HandStatus, Status
from tournaments.rules.cancellation import roll_forward
from tournaments.rules.hands import ActionKind
from tournaments.selectors.payouts import tournament_payouts
from tournaments.selectors.replays import replay
from tournaments.services.cancellation import CancelMode, tournament_cancel
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import hand_act, hand_report, hands_catch_up, hands_roll_back
from wallet.services import account_get, wallet_account_spec

pytestmark = pytest.mark.django_db


def two_tables() -> tuple:
    """Eight players at two tables of four, 1,000 chips each, both tables in a hand."""
    tournament, entries = started([1000] * 8)
    assert Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).count() == 2
    return tournament, entries


def at_table(tournament, number: int) -> Hand:
    return in_play(tournament, table__number=number)


def raise_and_call(row: Hand) -> Hand:
    """The first player raises to 300 and the next calls: chips in the pot."""
    row = act(row, ActionKind.BET_RAISE, 300)
    return act(row, ActionKind.CHECK_CALL)


def test_rolling_back_one_table_gives_back_every_bet_and_deals_again_from_the_same_button(staff):
    tournament, entries = two_tables()
    row, other = at_table(tournament, 1), at_table(tournament, 2)
    raise_and_call(row)
    other = act(other, ActionKind.CHECK_CALL)

    voided = hands_roll_back(
        tournament_id=tournament.pk, table=1, actor=staff, reason="Dealer server restarted", now=timezone.now()
    )

    assert voided == [row.pk]
    row.refresh_from_db()
    assert (row.status, row.voided_reason, row.result) == (HandStatus.VOIDED, "Dealer server restarted", None)
    assert chips(*entries) == [1000] * 8
    again = at_table(tournament, 1)
    assert again.pk != row.pk
    assert again.setup["stacks"] == row.setup["stacks"]
    for key in ("button", "small_blind_seat", "big_blind_seat"):
        assert again.setup[key] == row.setup[key]
    assert again.actions == []
    # The other table's hand goes on untouched.
    assert at_table(tournament, 2).pk == other.pk
    assert at_table(tournament, 2).actions == other.actions
    audit = AuditEntry.objects.get(action="tournaments.hands.rolled_back")
    assert (audit.actor, audit.reason, audit.data["hands"], audit.data["tables"]) == (
        staff,
        "Dealer server restarted",
        [row.pk],
        [1],
    )


def test_rolling_back_every_table_voids_each_hand_in_play(staff):
    tournament, entries = two_tables()
    first, second = at_table(tournament, 1), at_table(tournament, 2)
    raise_and_call(first)
    raise_and_call(second)

    voided = hands_roll_back(tournament_id=tournament.pk, table=None, actor=staff, reason="Outage", now=timezone.now())

    assert sorted(voided) == sorted([first.pk, second.pk])
    assert set(Hand.objects.filter(pk__in=voided).values_list("status", flat=True)) == {HandStatus.VOIDED}
    assert chips(*entries) == [1000] * 8
    assert Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).count() == 2


def test_a_hand_finished_but_not_yet_given_to_the_floor_is_voided_and_never_paid(staff):
    tournament, (short, deep) = started([1000, 1000])
    row = in_play(tournament)
    prepare(row, {short: "AsAh", deep: "7c2d"}, "3c8d5h4sJd")
    row = act(row, ActionKind.BET_RAISE, 1000)
    row = act(row, ActionKind.CHECK_CALL)
    assert row.status == HandStatus.FINISHED  # the aces won everything, on the table

    hands_roll_back(tournament_id=tournament.pk, table=None, actor=staff, reason="Outage", now=timezone.now())

    # The report the worker had queued comes, finds nothing to do; the sweep neither.
    assert not hand_report(hand_id=row.pk, now=timezone.now())
    hands_catch_up(now=timezone.now(), before=timezone.now())
    assert chips(short, deep) == [1000, 1000]
    tournament.refresh_from_db()
    assert tournament.status != Status.FINISHED
    assert in_play(tournament).setup["stacks"] == row.setup["stacks"]


def test_an_action_sent_to_a_rolled_back_hand_is_refused_and_changes_nothing(staff):
    tournament, _ = started([1000, 1000, 1000])
    row = in_play(tournament)
    player = Entry.objects.get(pk=row.seats[str(row.to_act)]).player_id
    hands_roll_back(tournament_id=tournament.pk, table=1, actor=staff, reason="Outage", now=timezone.now())

    with pytest.raises(TournamentError, match="This hand is over"):
        hand_act(hand_id=row.pk, player_id=player, at=0, kind="cc", now=timezone.now())

    row.refresh_from_db()
    assert (row.status, row.actions) == (HandStatus.VOIDED, [])


@pytest.mark.parametrize(
    ("table", "reason", "code"),
    [(1, "  ", "reason_required"), (7, "Outage", "no_such_table")],
)
def test_a_roll_back_without_a_reason_or_at_an_unknown_table_is_refused(staff, table, reason, code):
    tournament, _ = two_tables()
    row = raise_and_call(at_table(tournament, 1))

    with pytest.raises(TournamentError) as refused:
        hands_roll_back(tournament_id=tournament.pk, table=table, actor=staff, reason=reason, now=timezone.now())

    assert refused.value.code == code
    row.refresh_from_db()
    assert row.status == HandStatus.PLAYING
    assert not AuditEntry.objects.filter(action="tournaments.hands.rolled_back").exists()


def test_cancelling_mid_hand_shares_the_pool_by_the_chips_at_the_hands_start_and_voids_them(staff):
    tournament, entries = started([1000, 2000, 3000])
    row = in_play(tournament)
    row = act(row, ActionKind.BET_RAISE, replay(row).legal().max_to)  # all in
    row = act(row, ActionKind.CHECK_CALL)
    assert row.status == HandStatus.PLAYING
    in_hand = {entry.player_id: replay(row).stack(seat_of(row, entry)) for entry in entries}
    payouts = tournament_payouts(tournament, now=timezone.now())

    tournament_cancel(
        tournament_id=tournament.pk,
        actor=staff,
        reason="Servers down",
        mode=CancelMode.ROLL_FORWARD,
        now=timezone.now(),
    )

    row.refresh_from_db()
    assert (row.status, row.voided_reason) == (HandStatus.VOIDED, "Servers down")
    shares = AuditEntry.objects.get(action="tournaments.tournament.cancelled").data["shares"]
    at_start = {entry.player_id: chips for entry, chips in zip(entries, [1000, 2000, 3000], strict=True)}
    expected = roll_forward(pool=payouts.pool, chips=at_start, payouts=payouts.places)
    assert shares == {str(player): share for player, share in expected.items()}
    # What the stacks in the middle of the hand would have given differs.
    assert expected != roll_forward(pool=payouts.pool, chips=in_hand, payouts=payouts.places)
    for entry in entries:
        assert account_get(wallet_account_spec(entry.player_id, "EUR")).balance >= expected[entry.player_id]


# Staff, from the event list


def test_staff_roll_back_a_table_from_the_event_list_with_a_reason(client, staff):
    tournament, entries = two_tables()
    row = raise_and_call(at_table(tournament, 2))
    client.force_login(grant(staff, "view_tournament", "run_tournament"))

    asked = run_action(client, "roll_back_hands", [tournament])
    done = confirm(client, "roll_back_hands", [tournament], table="2", reason="Table 2's server crashed")

    assert "Roll back the hands in play" in asked.text
    assert 'name="table"' in asked.text
    assert done.status_code == 302
    assert "Rolled back the hands in play of 1 event." in shown_messages(client.get(done.url))
    row.refresh_from_db()
    assert (row.status, row.voided_reason) == (HandStatus.VOIDED, "Table 2's server crashed")
    assert chips(*entries) == [1000] * 8
    assert AuditEntry.objects.get(action="tournaments.hands.rolled_back").actor == staff
    # Players see it at the table and on the hand's page.
    assert "rolled back, every stack as it was" in client.get(f"/tournaments/{tournament.pk}/tables/2/").text
    hand_page = client.get(reverse("lobby:hand", args=[tournament.pk, row.pk])).text
    assert "This hand was rolled back" in hand_page
    assert "Table 2&#x27;s server crashed" in hand_page


def test_a_player_cannot_roll_back_hands(client, player):
    tournament, _ = two_tables()
    row = raise_and_call(at_table(tournament, 1))
    client.force_login(player)

    response = confirm(client, "roll_back_hands", [tournament], table="1", reason="I was losing")

    assert response.status_code == 302
    assert reverse("admin:login") in response.url
    row.refresh_from_db()
    assert row.status == HandStatus.PLAYING


def test_staff_who_may_only_view_events_cannot_roll_back_hands(client, staff):
    tournament, _ = two_tables()
    row = raise_and_call(at_table(tournament, 1))
    client.force_login(grant(staff, "view_tournament"))

    response = confirm(client, "roll_back_hands", [tournament], table="1", reason="Curious")

    assert "Roll back the hands in play" not in response.text
    row.refresh_from_db()
    assert row.status == HandStatus.PLAYING
