"""Real hands at real tables through the services (rules 6, 12, 14, 15, 18): dealing
what the floor decides, players' actions under the table's lock, time-outs, sitting
out, bots, and finished hands feeding the floor to the winner."""

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone, translation

from live import sending
from live.groups import LANGUAGES, group_name, mark_listened
from lobby.templatetags.poker import card
from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tournaments.models import BreakPolicyKind, Entry, EntryStatus, Hand, HandStatus, Status, Table, Tournament
from tournaments.nodes import Heartbeat, nodes_alive, table_node
from tournaments.rules.hands import ActionKind
from tournaments.selectors import replays
from tournaments.selectors.replays import entry_of, replay, replay_shown
from tournaments.services.clock import tournament_advance
from tournaments.services.refusals import TournamentError
from tournaments.services.tables import entry_sit_out, hand_act, hand_due, hand_report, hands_catch_up, hands_tick
from tournaments.services.ticks import TABLE_TICK_STEP, tick_of

pytestmark = pytest.mark.django_db


def started(count: int, *, bots: bool = False, **fields) -> Tournament:
    now = timezone.now()
    fields = {"table_size": 6, "break_policy": BreakPolicyKind.NONE, "max_entrants": 100} | fields
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(), scheduled_start=now + timedelta(minutes=5), **fields
    )
    players = entrants(tournament, count, now=now)
    if bots:
        for player in players:
            player.is_bot = True
            player.save(update_fields=["is_bot"])
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tournament.refresh_from_db()
    return tournament


def in_play(tournament: Tournament) -> Hand:
    return Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING)


def player_to_act(row: Hand) -> int:
    return Entry.objects.values_list("player_id", flat=True).get(pk=entry_of(row, row.to_act))


def test_the_start_deals_a_hand_at_every_table_with_a_committed_deck():
    tournament = started(9)

    hands = Hand.objects.filter(tournament=tournament)
    assert hands.count() == Table.objects.filter(tournament=tournament).count() == 2
    for row in hands:
        table = row.table
        assert row.status == HandStatus.PLAYING
        assert row.setup["button"] == table.button
        assert row.setup["big_blind_seat"] == table.big_blind
        assert row.to_act is not None
        assert row.deadline_at is not None
        assert len(row.deck) == 104
        assert len(row.commitment) == 64
        assert set(row.seats.values()) == set(table.entries.values_list("pk", flat=True))


def test_an_action_out_of_turn_is_refused_and_changes_nothing():
    tournament = started(3)
    row = in_play(tournament)
    waiting = next(pk for seat, pk in row.seats.items() if int(seat) != row.to_act)
    player = Entry.objects.get(pk=waiting).player_id

    with pytest.raises(TournamentError, match="not your turn"):
        hand_act(hand_id=row.pk, player_id=player, at=0, kind="cc", now=timezone.now())

    assert Hand.objects.get(pk=row.pk).actions == []


def test_an_action_repeated_has_one_effect():
    tournament = started(3)
    row = in_play(tournament)
    player = player_to_act(row)

    first = hand_act(hand_id=row.pk, player_id=player, at=0, kind="cc", now=timezone.now())
    again = hand_act(hand_id=row.pk, player_id=player, at=0, kind="cc", now=timezone.now())

    assert not first.retry
    assert again.retry
    assert len(Hand.objects.get(pk=row.pk).actions) == 1


def test_a_raise_below_the_minimum_is_refused_with_the_smallest_allowed():
    tournament = started(3)
    row = in_play(tournament)
    legal = replay(row).legal()

    with pytest.raises(TournamentError) as refused:
        hand_act(
            hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cbr", amount=legal.min_to - 1, now=timezone.now()
        )
    assert str(legal.min_to) in refused.value.message.replace(",", "")
    assert Hand.objects.get(pk=row.pk).actions == []


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "You can raise to at most 10,000, all in."), ("da", "Du kan højst forhøje til 10.000, all-in.")],
)
def test_a_raise_above_the_stack_names_the_all_in_with_grouped_digits_in_the_players_language(language, expected):
    tournament = started(3, starting_stack=10_000)
    row = in_play(tournament)
    assert replay(row).legal().max_to == 10_000

    with translation.override(language), pytest.raises(TournamentError) as refused:
        hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cbr", amount=12_000, now=timezone.now())

    assert refused.value.message == expected
    assert refused.value.code == "illegal_action"
    assert Hand.objects.get(pk=row.pk).actions == []


@pytest.mark.parametrize(("language", "expected"), [("en", "It is not your turn."), ("da", "Det er ikke din tur.")])
def test_an_action_out_of_turn_is_refused_in_the_players_language(language, expected):
    tournament = started(3)
    row = in_play(tournament)
    waiting = next(pk for seat, pk in row.seats.items() if int(seat) != row.to_act)

    with translation.override(language), pytest.raises(TournamentError) as refused:
        hand_act(hand_id=row.pk, player_id=Entry.objects.get(pk=waiting).player_id, at=0, kind="cc", now=timezone.now())

    assert refused.value.message == expected


def test_time_out_folds_a_player_facing_a_bet_once_and_sits_him_out():
    tournament = started(3)
    row = in_play(tournament)
    seat, entry = row.to_act, entry_of(row, row.to_act)

    assert hand_due(hand_id=row.pk, at=0, now=row.deadline_at - timedelta(seconds=1)) is False  # not yet
    assert hand_due(hand_id=row.pk, at=0, now=row.deadline_at) is True
    assert hand_due(hand_id=row.pk, at=0, now=row.deadline_at) is False  # once

    row.refresh_from_db()
    assert row.actions[0] == [seat, ActionKind.FOLD.value, None]  # preflop he faced the big blind
    assert Entry.objects.get(pk=entry).sitting_out


def test_a_player_sitting_out_is_dealt_in_and_folded_at_once():
    tournament = started(3)
    row = in_play(tournament)
    entry = Entry.objects.get(pk=entry_of(row, row.to_act))

    entry_sit_out(tournament_id=tournament.pk, player_id=entry.player_id, sitting_out=True, now=timezone.now())
    hands_catch_up(now=timezone.now(), before=timezone.now(), tournament_id=tournament.pk)

    row.refresh_from_db()
    assert row.actions[0][:2] == [int(next(s for s, pk in row.seats.items() if pk == entry.pk)), "f"]


@pytest.mark.parametrize("waiting", ["break due", "hand-for-hand"])
def test_while_the_room_waits_for_a_table_its_bots_act_without_thinking(settings, waiting):
    settings.TABLE_BOT_SECONDS = 4.0
    tournament = started(3, bots=True)
    row = in_play(tournament)
    thinking = row.deadline_at - row.turn_started_at
    if waiting == "break due":
        Tournament.objects.filter(pk=tournament.pk).update(break_pending_since=timezone.now())
    else:
        Tournament.objects.filter(pk=tournament.pk).update(hand_for_hand=True)

    assert hand_due(hand_id=row.pk, at=0, now=row.deadline_at)

    # The bots whose turns followed played at once, to the hand's end: the tables
    # that finished, and the people at them, wait for this one no longer than that.
    row.refresh_from_db()
    assert thinking == timedelta(seconds=4)
    assert row.status == HandStatus.FINISHED
    assert len(row.actions) > 1


def test_a_bot_tournament_plays_to_the_winner_with_chips_conserved_and_hands_replaying():
    tournament = started(14, bots=True)
    total = tournament.starting_stack * 14
    now = tournament.scheduled_start
    for _ in range(5000):
        if Tournament.objects.get(pk=tournament.pk).status == Status.FINISHED:
            break
        now += timedelta(seconds=20)
        tournament_advance(tournament_id=tournament.pk, now=now)
        assert hands_catch_up(now=now, before=now, tournament_id=tournament.pk, bots_wait=False)
        chips = Entry.objects.filter(tournament=tournament, status=EntryStatus.ACTIVE).aggregate(total=Sum("chips"))
        assert chips["total"] == total
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    assert Entry.objects.get(tournament=tournament, finish_best=1).chips == total
    for row in Hand.objects.filter(tournament=tournament):
        assert row.status == HandStatus.REPORTED
        result = replay(row).result()
        assert {str(seat): chips for seat, chips in result.stacks.items()} == row.result["stacks"]


def test_a_turn_played_from_a_copy_the_record_has_moved_past_is_not_played_twice(
    django_capture_on_commit_callbacks,
):
    row = in_play(started(3))
    with django_capture_on_commit_callbacks(execute=True):
        hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cc", now=timezone.now())
    row.refresh_from_db()  # kept warm in this process, at one action

    # Another process plays the next turn: the record moves on past the copy kept here.
    other = replay(row)
    other.act(row.to_act, ActionKind.CHECK_CALL)
    Hand.objects.filter(pk=row.pk).update(
        actions=[action.to_json() for action in other.actions], revision=row.revision + 1, to_act=other.to_act
    )

    # This process's task for the turn the other played finds the record moved on.
    assert not hand_due(hand_id=row.pk, at=1, now=timezone.now() + timedelta(hours=1))
    row.refresh_from_db()
    assert row.actions == [action.to_json() for action in other.actions]


def test_a_turn_goes_on_from_the_record_when_another_process_has_played_since(django_capture_on_commit_callbacks):
    row = in_play(started(3))
    with django_capture_on_commit_callbacks(execute=True):
        hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cc", now=timezone.now())
    row.refresh_from_db()

    other = replay(row)
    other.act(row.to_act, ActionKind.FOLD)
    deadline = timezone.now()
    Hand.objects.filter(pk=row.pk).update(
        actions=[action.to_json() for action in other.actions],
        revision=row.revision + 1,
        to_act=other.to_act,
        deadline_at=deadline,
    )

    # The next turn's task (queued by the other process at two actions) plays from the record.
    with django_capture_on_commit_callbacks(execute=True):
        assert hand_due(hand_id=row.pk, at=2, now=deadline)
    row.refresh_from_db()
    assert row.actions[:2] == [action.to_json() for action in other.actions]
    assert len(row.actions) >= 3
    assert replay(row).actions[1].kind == ActionKind.FOLD  # the record replays, the other's fold in it


def test_an_action_rolled_back_is_never_shown_or_played_on(django_capture_on_commit_callbacks):
    row = in_play(started(3))
    seat = row.to_act

    def folded_and_rolled_back() -> None:
        with transaction.atomic():
            hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="f", now=timezone.now())
            raise RuntimeError  # this process's fold never commits

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        folded_and_rolled_back()

    # Another process calls instead: the record it commits.
    other = replay(row)
    other.act(seat, ActionKind.CHECK_CALL)
    Hand.objects.filter(pk=row.pk).update(
        actions=[action.to_json() for action in other.actions], revision=row.revision + 1, to_act=other.to_act
    )
    row.refresh_from_db()

    assert not replay_shown(row).folded(seat)
    assert replay_shown(row) == other.shown()
    # The next player acts on the call, not on the fold this process never committed.
    with django_capture_on_commit_callbacks(execute=True):
        played = hand_act(hand_id=row.pk, player_id=player_to_act(row), at=1, kind="cc", now=timezone.now())
    assert played.hand.actions[0] == [seat, "cc", None]


def test_a_hand_shown_on_pages_is_read_once_per_state_and_is_what_its_record_replays_to():
    row = in_play(started(3))
    shown = replay_shown(row)
    assert replay_shown(row) is shown  # the table's watchers, then the player's own seat: read once
    assert shown == replay(row).shown()

    row = hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cc", now=timezone.now()).hand
    after = replay_shown(row)
    assert after != shown
    assert after == replay(row).shown()  # as the acting process kept it, so the record replays


def test_a_page_shown_at_a_later_point_of_a_hand_goes_on_from_the_last_point_shown(monkeypatch):
    row = in_play(started(3))
    with replays._shown_lock:  # a process that did not deal it (a web server's)
        replays._shown.clear()
    replay_shown(row)
    # Another process plays on.
    other = replay(row)
    other.act(row.to_act, ActionKind.CHECK_CALL)
    Hand.objects.filter(pk=row.pk).update(actions=[action.to_json() for action in other.actions])
    row.refresh_from_db()
    replayed = []
    monkeypatch.setattr(replays, "replay", lambda hand: replayed.append(hand) or replay(hand))

    assert replay_shown(row) == other.shown()
    assert replayed == []  # the action taken since applied to the state shown before, not a replay


def test_a_nodes_tick_plays_every_turn_due_in_its_step_at_its_own_tables_once(settings):
    settings.TABLE_BOT_SECONDS, settings.TABLE_NODES = 1, 2
    tournament = started(12, bots=True)  # two tables of bots
    for index in (0, 1):
        Heartbeat(index).renew()
    rows = list(Hand.objects.filter(tournament=tournament, status=HandStatus.PLAYING).order_by("table__number"))
    assert len(rows) == 2
    due = timezone.now()
    Hand.objects.filter(pk__in=[row.pk for row in rows]).update(deadline_at=due)
    tick, alive = tick_of(due, TABLE_TICK_STEP), nodes_alive()
    assert alive == (0, 1)
    owners = [table_node(row.table_id, alive) for row in rows]

    played = {node: hands_tick(tick=tick, node=node, now=tick) for node in (0, 1)}

    # Each node played the turns of its own tables, every one of them once.
    assert played == {node: owners.count(node) for node in (0, 1)}
    for row in rows:
        assert len(Hand.objects.get(pk=row.pk).actions) == len(row.actions) + 1
    assert hands_tick(tick=tick, node=None, now=tick) == 0  # nothing is due in the step any more


def test_a_finished_hand_is_reported_to_the_floor_once():
    tournament = started(2)
    row = in_play(tournament)
    hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="f", now=timezone.now())
    row.refresh_from_db()
    assert row.status == HandStatus.FINISHED

    assert hand_report(hand_id=row.pk, now=timezone.now()) is True
    assert hand_report(hand_id=row.pk, now=timezone.now()) is False

    assert Hand.objects.filter(tournament=tournament).count() == 2  # the next hand is dealt


def test_a_players_hole_cards_are_on_his_own_page_only(client):
    from lobby.templatetags.poker import card

    tournament = started(3)
    row = in_play(tournament)
    hand = replay(row)
    seats = {int(seat): Entry.objects.select_related("player").get(pk=pk) for seat, pk in row.seats.items()}
    url = f"/tournaments/{tournament.pk}/tables/1/"
    for seat, entry in seats.items():
        client.force_login(entry.player)
        page = client.get(url).content.decode()
        own = {card(code) for code in hand.hole_cards(seat)}
        others = {card(code) for other in seats if other != seat for code in hand.hole_cards(other)} - own
        assert all(f">{text}<" in page for text in own)
        assert not any(f">{text}<" in page for text in others)
    client.logout()
    watched = client.get(url).content.decode()
    assert not any(f">{card(code)}<" in watched for seat in seats for code in hand.hole_cards(seat))


def test_the_table_page_acts_for_the_player_and_refuses_another(client):
    tournament = started(3)
    row = in_play(tournament)
    mover = Entry.objects.select_related("player").get(pk=entry_of(row, row.to_act)).player
    client.force_login(mover)
    answer = client.post(
        f"/tournaments/{tournament.pk}/tables/1/act/", {"hand": row.pk, "at": 0, "kind": "cbr", "amount": "1"}
    )
    assert answer.status_code == 400
    assert "raise" in answer.content.decode().lower()
    answer = client.post(f"/tournaments/{tournament.pk}/tables/1/act/", {"hand": row.pk, "at": 0, "kind": "cc"})
    assert answer.status_code == 200
    assert len(Hand.objects.get(pk=row.pk).actions) == 1


@pytest.mark.parametrize("at", ["-1000", "-1", "99999999999999999999999", "one"])
def test_an_action_chosen_at_a_count_of_actions_no_hand_had_is_refused_and_changes_nothing(client, at):
    tournament = started(3)
    row = act_first(tournament)  # one action: "-1" would name it, counted from the end
    mover = Entry.objects.select_related("player").get(pk=entry_of(row, row.to_act)).player
    client.force_login(mover)

    answer = client.post(f"/tournaments/{tournament.pk}/tables/1/act/", {"hand": row.pk, "at": at, "kind": "cc"})

    assert answer.status_code == 400
    assert "The hand has moved on since you chose: look at the table again." in answer.content.decode()
    assert Hand.objects.get(pk=row.pk).actions == row.actions
    with pytest.raises(TournamentError, match="The hand has moved on"):
        hand_act(hand_id=row.pk, player_id=mover.pk, at=-1000, kind="cc", now=timezone.now())


def act_first(tournament: Tournament) -> Hand:
    row = in_play(tournament)
    player = Entry.objects.get(pk=entry_of(row, row.to_act)).player_id
    return hand_act(hand_id=row.pk, player_id=player, at=0, kind="cc", now=timezone.now()).hand


def test_an_action_and_the_fetch_of_a_players_own_part_read_few_rows(client, django_assert_num_queries):
    tournament = started(3)
    row = in_play(tournament)
    mover = Entry.objects.select_related("player").get(pk=entry_of(row, row.to_act)).player
    client.force_login(mover)
    # The POST: the user; under the table's lock (the table and its event read with it),
    # the hand, its players, the action written over the hand's revision; his part is
    # rendered from what the action left, his table and event with it, without a read.
    with django_assert_num_queries(7):  # and the savepoint of the service's transaction, and its release
        answer = client.post(f"/tournaments/{tournament.pk}/tables/1/act/", {"hand": row.pk, "at": 0, "kind": "cc"})
    assert answer.status_code == 200
    assert b"Waiting for the other players" in answer.content
    with django_assert_num_queries(3):  # the user, his entry with his table and its event, the hand
        answer = client.get(f"/tournaments/{tournament.pk}/tables/1/me/")
    assert answer.status_code == 200
    assert client.get(f"/tournaments/{tournament.pk}/tables/9/me/").status_code == 404
    assert client.get(f"/tournaments/{tournament.pk + 1000}/tables/1/me/").status_code == 404


def pages_open(monkeypatch, row: Hand, language: str) -> tuple[list[int], list[tuple[str, str]]]:
    """The table pages of everyone dealt in `row` are open in `language`: each listens to
    the table and to its player's own part. Returns the players, and the texts sent
    from now on (group, text)."""
    dealt = list(
        Entry.objects.filter(pk__in=[int(pk) for pk in row.seats.values()]).values_list("player_id", flat=True)
    )
    table = group_name("table", language=language, tournament_id=row.tournament_id, table=1)
    async_to_sync(mark_listened)([table, *(group_name("own", user_id=player, language=language) for player in dealt)])
    sent: list[tuple[str, str]] = []
    monkeypatch.setattr(sending, "send", lambda group, text: sent.append((group, text)))
    return dealt, sent


def test_an_action_sends_whose_turn_it_is_his_own_seat_the_actor_has_his_in_the_answer_and_the_end_sends_all(
    monkeypatch, django_capture_on_commit_callbacks
):
    tournament = started(4)
    row = in_play(tournament)
    dealt, sent = pages_open(monkeypatch, row, "en")

    def told() -> dict[str, str]:
        parts = {group: text for group, text in sent if group.startswith("own-")}
        sent.clear()
        return parts

    with django_capture_on_commit_callbacks(execute=True):  # the deal's news go with it (this test's one transaction)
        row = hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cc", now=timezone.now()).hand
    told()
    actor = player_to_act(row)
    with django_capture_on_commit_callbacks(execute=True):
        row = hand_act(hand_id=row.pk, player_id=actor, at=1, kind="cc", now=timezone.now()).hand
    # The others' own part shows nothing new: their cards, stacks and choices are as they
    # were; the actor's page has his in the answer to his action. The one to act now is
    # sent his: his cards and his choices, to swap in, in the language of his page.
    next_up = player_to_act(row)
    parts = told()
    assert list(parts) == [f"own-{next_up}.en"]
    part = parts[f"own-{next_up}.en"]
    assert part.startswith(f'<section class="card wide own-seat" id="own-seat-{tournament.pk}"')
    assert 'hx-swap-oob="true"' in part
    assert "Your turn" in part
    assert 'name="at" value="2"' in part
    assert all(card(code) in part for code in replay(row).hole_cards(row.to_act))
    assert "csrfmiddlewaretoken" not in part  # his page's htmx sends its token
    # A turn played for him (his time ran out) sends him his.
    timed_out = player_to_act(row)
    with django_capture_on_commit_callbacks(execute=True):
        row = Hand.objects.get(pk=row.pk)
        assert hand_due(hand_id=row.pk, at=len(row.actions), now=row.deadline_at)
    row.refresh_from_db()
    assert f"own-{timed_out}.en" in told()
    while row.status == HandStatus.PLAYING:
        kind = replay(row).timeout_action().kind
        with django_capture_on_commit_callbacks(execute=True):
            row = hand_act(
                hand_id=row.pk, player_id=player_to_act(row), at=len(row.actions), kind=kind, now=timezone.now()
            ).hand
    # The hand is over: everyone's part changes.
    assert set(told()) >= {group_name("own", user_id=player, language="en") for player in dealt}


def test_own_seat_goes_to_the_players_pages_in_the_language_they_are_open_in(
    monkeypatch, django_capture_on_commit_callbacks
):
    tournament = started(4)
    row = in_play(tournament)
    _, sent = pages_open(monkeypatch, row, "da")  # every player's, in Danish; none in English

    with django_capture_on_commit_callbacks(execute=True):  # the deal's news go with it: everyone's part
        row = hand_act(hand_id=row.pk, player_id=player_to_act(row), at=0, kind="cc", now=timezone.now()).hand
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        row = hand_act(hand_id=row.pk, player_id=player_to_act(row), at=1, kind="cc", now=timezone.now()).hand

    parts = [(group, text) for group, text in sent if group.startswith("own-")]
    assert [group for group, _ in parts] == [f"own-{player_to_act(row)}.da"]
    assert "Din tur" in parts[0][1]
    assert f'hx-post="/da/tournaments/{tournament.pk}/tables/1/act/"' in parts[0][1]


def test_a_player_moved_to_another_table_has_his_page_follow_him(
    client, monkeypatch, django_capture_on_commit_callbacks
):
    tournament = started(6, table_size=3)  # two full tables
    entrants(tournament, 1, now=tournament.scheduled_start + timedelta(minutes=1))  # alone at a new table 3
    players = Entry.objects.filter(tournament=tournament).values_list("player_id", flat=True)
    # Their table pages are open: each listens to its table's group and its player's own.
    tables = [group_name("table", language=language, tournament_id=tournament.pk, table=1) for language in LANGUAGES]
    owns = [group_name("own", user_id=player, language="en") for player in players]
    async_to_sync(mark_listened)([*tables, *owns, *(f"user-{player}" for player in players)])
    sent = []
    monkeypatch.setattr(sending, "send", lambda group, text: sent.append((group, text)))

    # Table 1 finishes its hand (each player checks or folds) and gives a player to table 3 (rule 16).
    row = Hand.objects.get(tournament=tournament, table__number=1, status=HandStatus.PLAYING)
    while row.status == HandStatus.PLAYING:
        kind = replay(row).timeout_action().kind
        row = hand_act(
            hand_id=row.pk, player_id=player_to_act(row), at=len(row.actions), kind=kind, now=row.started_at
        ).hand
    with django_capture_on_commit_callbacks(execute=True):
        hand_report(hand_id=row.pk, now=row.ended_at)

    moved = Entry.objects.get(tournament=tournament, times_moved=1)
    assert moved.table.number == 3
    # His page is sent his own part at his new table: it is not the page's table, so the
    # page fetches its own from its address (portal.js), and is sent to his new table.
    parts = [text for group, text in sent if group == f"own-{moved.player_id}.en"]
    assert parts
    assert f'data-refresh-url="/tournaments/{tournament.pk}/tables/3/me/"' in parts[-1]
    client.force_login(moved.player)

    def own_part(number: int):
        return client.get(f"/tournaments/{tournament.pk}/tables/{number}/me/", headers={"HX-Request": "true"})

    assert own_part(1)["HX-Redirect"] == f"/tournaments/{tournament.pk}/tables/3/"
    assert "Your stack" in own_part(3).content.decode()
    # The players who stayed stay.
    for stayed in Entry.objects.filter(table__tournament=tournament, table__number=1).select_related("player"):
        client.force_login(stayed.player)
        answer = own_part(1)
        assert "HX-Redirect" not in answer
        assert "Your stack" in answer.content.decode()
