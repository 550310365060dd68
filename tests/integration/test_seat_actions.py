"""The seats on the table page (issue 28): each seat's last action ("Raise 300",
"Call", "Check", "Bet 400") beside the player until the street ends, folds and
all-ins keeping their own marks; the turn's action time and the time bank after it
counted down apart (rule 18.3)."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from tests.integration.test_hand_history import shown_down
from tests.tables import act, acting, in_play, started
from tournaments.rules.hands import ActionKind

pytestmark = pytest.mark.django_db


def said(client, tournament, row) -> dict[int, str]:
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    seats = re.findall(r'data-seat="(\d+)".*?</li>', page, re.S)
    shown = {}
    for seat in seats:
        block = page.split(f'data-seat="{seat}"', 1)[1].split("</li>", 1)[0]
        found = re.search(r'<span class="said">([^<]+)</span>', block)
        if found:
            shown[int(seat)] = found.group(1)
    return shown


def test_the_table_shows_each_seats_last_action_until_the_street_ends(client):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    first = row.to_act
    row = act(row, ActionKind.BET_RAISE, 300)
    second = row.to_act
    row = act(row, ActionKind.CHECK_CALL)
    assert said(client, tournament, row) == {first: "Raise 300", second: "Call"}
    row = act(row, ActionKind.CHECK_CALL)  # the last call: the flop comes
    assert said(client, tournament, row) == {}
    opener = row.to_act
    row = act(row, ActionKind.CHECK_CALL)
    bettor = row.to_act
    row = act(row, ActionKind.BET_RAISE, 400)
    assert said(client, tournament, row) == {opener: "Check", bettor: "Bet 400"}


def test_the_turn_clock_and_the_time_bank_are_shown_apart(client):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    acting_entry = acting(row)
    action_ends = row.turn_started_at + timedelta(seconds=tournament.action_seconds)
    bank_ms = round((row.deadline_at - action_ends) / timedelta(milliseconds=1))
    assert bank_ms == tournament.time_bank_seconds * 1000  # a full bank at the first turn

    client.force_login(acting_entry.player)
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    seat = page.split(f'data-seat="{row.to_act}"', 1)[1].split("</li>", 1)[0]
    action_clock = f'<time data-countdown datetime="{action_ends.isoformat()}"></time>'
    bank_clock = f'<time data-countdown data-countdown-max="{bank_ms}" datetime="{row.deadline_at.isoformat()}"></time>'
    assert f"To act {action_clock}" in seat
    assert f"time bank {bank_clock}" in seat
    own = page.split('class="card wide own-seat"', 1)[1].split("</section>", 1)[0]
    assert f"Your turn: {action_clock}, then your time bank {bank_clock}" in own


def presets(client, tournament, row) -> dict[str, int]:
    client.force_login(acting(row).player)
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    own = page.split('class="card wide own-seat"', 1)[1].split("</section>", 1)[0]
    return {
        label.strip(): int(amount)
        for amount, label in re.findall(r'data-amount-preset="(\d+)"[^>]*>([^<]+)</button>', own)
    }


def test_the_bet_sizes_offered_facing_the_big_blind_and_on_the_flop(client):
    # Blinds 10/20: the first to act faces 20 with 30 in the pot.
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    assert presets(client, tournament, row) == {
        "Min": 40,
        "2.5\N{MULTIPLICATION SIGN}": 50,
        "3\N{MULTIPLICATION SIGN}": 60,
        "½ pot": 45,  # the call (20), then half of the 50 then in the pot
        "¾ pot": 57,
        "Pot": 70,
        "All in": 1000,
    }
    for _ in range(3):
        row = act(row, ActionKind.CHECK_CALL)  # everyone in for 20: 60 in the pot, the flop
    assert presets(client, tournament, row) == {"Min": 20, "½ pot": 30, "¾ pot": 45, "Pot": 60, "All in": 980}


def test_pot_limit_sizes_stop_at_the_pot(client):
    tournament, _entries = started([1000, 1000, 1000], betting="pl")
    row = in_play(tournament)
    offered = presets(client, tournament, row)
    assert offered["Pot"] == 70
    assert "All in" not in offered
    assert max(offered.values()) == 70


def test_players_still_in_the_hand_show_their_cards_face_down_and_a_folded_one_none(client):
    tournament, _entries = started([1000, 1000, 1000], game="omaha", betting="pl")
    row = in_play(tournament)
    folder = row.to_act
    row = act(row, ActionKind.FOLD)
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    backs = {}
    for seat in (int(number) for number in row.seats):
        block = page.split(f'data-seat="{seat}"', 1)[1].split("</li>", 1)[0]
        backs[seat] = block.count('class="playing-card back" role="img" aria-label="hidden card"')
    assert backs == {seat: 0 if seat == folder else 4 for seat in backs}  # Omaha: four each


def test_the_showdown_names_the_winning_hand_and_marks_the_winners_seat(client):
    tournament, (alice, _bob, _carol), row = shown_down()
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    recent = page.split('class="recent-hands"', 1)[1].split("</ol>", 1)[0]
    assert ' with <strong class="made">a pair</strong> (A♠ A♥)' in recent  # aces; Bob's kings lost
    seat = next(int(number) for number, pk in row.seats.items() if pk == alice.pk)
    assert f'class="seat winner" id="seat-{tournament.pk}-{row.table.number}-{seat}"' in page
    assert set(row.result["made"].values()) == {"one_pair"}  # both hands shown down, each a pair


def test_his_turn_is_announced_to_a_screen_reader_with_what_he_may_do(client):
    tournament, _entries = started([1000, 1000, 1000])
    row = in_play(tournament)
    client.force_login(acting(row).player)
    page = client.get(reverse("lobby:table", args=[tournament.pk, row.table.number])).text
    assert '<p class="sr-only" role="alert">Your turn: call 20 or raise.</p>' in page
