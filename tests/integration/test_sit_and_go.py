"""Sit & Gos (issue 29): an event that starts when its seats are full. One event of a
Sit & Go is open at a time; the registration that takes the last seat starts it (the
clock's tick draws the seats, the button on seat 1) and opens the next; until then a
player may leave. Under a race for the last seats on PostgreSQL exactly one event
starts with exactly its seats, nobody pays without a seat, and the next one opens."""

from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.factories import BlindStructureFactory, TournamentFactory, UserFactory
from tests.integration.test_registration_concurrency import funded_players, race, refusals, total
from tournaments.demo import sit_and_go_bots_join
from tournaments.models import Entry, EntryStatus, HandStatus, SitAndGo, Status, Table, Tournament
from tournaments.services.clock import tournament_advance
from tournaments.services.entries import entry_register, entry_unregister
from tournaments.services.refusals import TournamentError
from tournaments.services.sit_and_go import sit_and_go_open, sit_and_gos_open
from wallet.models import Account


def a_sit_and_go(**fields) -> SitAndGo:
    values = {"name": "Turbo 6", "buy_in": 500, "fee": 50, "table_size": 6, "tables": 1} | fields
    return SitAndGo.objects.create(blind_structure=BlindStructureFactory(), **values)


def open_events(sit_and_go: SitAndGo) -> list[Tournament]:
    return [
        event
        for event in Tournament.objects.filter(sit_and_go=sit_and_go, started_at__isnull=True).order_by("pk")
        if event.entries_count < event.max_entrants
    ]


@pytest.mark.django_db
def test_the_last_seat_taken_starts_the_event_with_the_button_on_seat_one_and_opens_the_next():
    sit_and_go = a_sit_and_go()
    now = timezone.now()
    (event,) = sit_and_gos_open(now=now)
    assert (event.name, event.max_entrants, event.min_entrants) == ("Turbo 6 #1", 6, 6)
    assert sit_and_gos_open(now=now) == []  # one is open already
    players = funded_players(7, prefix="sng", eur=5_000)

    for player in players[:5]:
        entry_register(tournament_id=event.pk, player=player, now=now)
    entry_unregister(tournament_id=event.pk, player=players[0], now=now)  # free to leave before it fills
    entry_register(tournament_id=event.pk, player=players[5], now=now)
    event.refresh_from_db()
    assert event.scheduled_start > now + timedelta(days=300)  # still waiting: one seat left
    filled_at = now + timedelta(seconds=1)
    entry_register(tournament_id=event.pk, player=players[6], now=filled_at)

    event.refresh_from_db()
    assert event.scheduled_start == filled_at
    with pytest.raises(TournamentError) as refused:
        entry_register(tournament_id=event.pk, player=players[0], now=filled_at)
    assert refused.value.code == "closed"  # it has started
    with pytest.raises(TournamentError) as refused:
        entry_unregister(tournament_id=event.pk, player=players[1], now=filled_at)
    assert refused.value.code == "unregistration_closed"
    (following,) = open_events(sit_and_go)
    assert following.name == "Turbo 6 #2"
    assert following.entries_count == 0

    tournament_advance(tournament_id=event.pk, now=filled_at)  # the clock's tick, queued at the commit
    event.refresh_from_db()
    assert event.status == Status.RUNNING
    assert event.started_at == filled_at
    table = Table.objects.get(tournament=event)
    assert table.button == 1
    assert Entry.objects.filter(tournament=event, status=EntryStatus.ACTIVE, table=table).count() == 6
    assert event.hands.filter(status=HandStatus.PLAYING).count() == 1


@pytest.mark.django_db
def test_an_inactive_sit_and_go_opens_nothing_and_a_second_opener_is_refused_quietly():
    sit_and_go = a_sit_and_go(active=False)
    assert sit_and_go_open(sit_and_go=sit_and_go, now=timezone.now()) is None
    SitAndGo.objects.filter(pk=sit_and_go.pk).update(active=True)
    sit_and_go.refresh_from_db()
    assert sit_and_go_open(sit_and_go=sit_and_go, now=timezone.now()) is not None
    assert sit_and_go_open(sit_and_go=sit_and_go, now=timezone.now()) is None
    assert len(open_events(sit_and_go)) == 1


@pytest.mark.django_db(transaction=True)
def test_fifty_players_race_for_the_last_three_seats():
    sit_and_go = a_sit_and_go(name="Race 9", table_size=9)
    now = timezone.now()
    (event,) = sit_and_gos_open(now=now)
    for early in funded_players(6, prefix="early", eur=5_000):
        entry_register(tournament_id=event.pk, player=early, now=now)
    racers = funded_players(50, prefix="racer", eur=5_000)
    before = {"all": total("EUR"), "room": total("EUR", inside_the_room=True)}

    outcomes = race([lambda p=p: entry_register(tournament_id=event.pk, player=p, now=timezone.now()) for p in racers])

    refused = refusals(outcomes, {"full", "closed"})  # closed: it filled and started before their turn
    assert sum(refused.values()) == 47
    winners = {p.pk for p, o in zip(racers, outcomes, strict=True) if o.error is None}
    assert len(winners) == 3
    event.refresh_from_db()
    seated = Entry.objects.filter(tournament=event, status=EntryStatus.ACTIVE)
    assert event.entries_count == seated.count() == 9
    assert len(set(seated.values_list("player", flat=True))) == 9  # nobody twice
    assert winners <= set(seated.values_list("player", flat=True))
    balances = dict(Account.objects.filter(owner__in=racers, currency="EUR").values_list("owner", "balance"))
    assert Counter(balances.values()) == {5_000 - 550: 3, 5_000: 47}  # nobody paid without a seat
    assert {"all": total("EUR"), "room": total("EUR", inside_the_room=True)} == before
    events = Tournament.objects.filter(sit_and_go=sit_and_go).order_by("pk")
    assert [(e.name, e.entries_count, e.scheduled_start <= timezone.now()) for e in events] == [
        ("Race 9 #1", 9, True),  # exactly one started, full
        ("Race 9 #2", 0, False),  # and the next one open
    ]
    tournament_advance(tournament_id=event.pk, now=timezone.now())
    event.refresh_from_db()
    assert event.status == Status.RUNNING
    call_command("wallet_audit")


@pytest.mark.django_db
def test_an_admin_adds_a_sit_and_go_and_its_first_event_opens_at_once(admin_client):
    structure = BlindStructureFactory()
    form = {
        "name": "Heads-up Hyper",
        "active": "on",
        "game": "holdem",
        "betting": "nl",
        "entry_kind": "cash",
        "currency": "EUR",
        "buy_in": "1000",
        "fee": "50",
        "starting_stack": "500",
        "table_size": "2",
        "tables": "1",
        "blind_structure": structure.pk,
        "prize_structure": "standard",
        "heads_up": "on",
        "action_seconds": "15",
        "deals_allowed": "on",
    }
    response = admin_client.post("/admin/tournaments/sitandgo/add/", form)
    assert response.status_code == 302, response.text[:3000]
    (event,) = Tournament.objects.filter(sit_and_go__name="Heads-up Hyper")
    assert (event.table_size, event.max_entrants, event.heads_up, event.buy_in) == (2, 2, True, 1000)

    form |= {"name": "Heads-up Hyper 3", "table_size": "3"}
    response = admin_client.post("/admin/tournaments/sitandgo/add/", form)
    assert response.status_code == 200
    assert "A heads-up Sit &amp; Go seats 2 players per table." in response.text


@pytest.mark.django_db
def test_sit_and_gos_have_their_own_lobby_tab_and_api_listing_with_seats_taken(client):
    a_sit_and_go(name="Turbo 6")
    (event,) = sit_and_gos_open(now=timezone.now())
    for player in funded_players(2, prefix="tab", eur=5_000):
        entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    scheduled = TournamentFactory(name="Sunday Major")

    tournaments_tab = client.get("/").text
    assert scheduled.name in tournaments_tab
    assert "Turbo 6 #1" not in tournaments_tab
    page = client.get("/?kind=sit_and_go").text
    assert "Turbo 6 #1" in page
    assert scheduled.name not in page
    row = page.split(f'id="lobby-row-{event.pk}"')[1].split("</tr>")[0]
    assert "When full" in row
    assert "2 / 6" in row
    assert '<a href="/?kind=sit_and_go" aria-current="page">' in page

    listed = client.get("/api/v1/tournaments/?kind=sit_and_go").json()["results"]
    assert [item["name"] for item in listed] == ["Turbo 6 #1"]
    refused = client.get("/api/v1/tournaments/?kind=cash_game")
    assert refused.status_code == 400
    assert "Select a valid choice" in refused.text
    assert client.get("/?kind=cash_game").status_code == 400


@pytest.mark.django_db
def test_the_demos_bots_fill_an_open_sit_and_go_seat_by_seat_and_the_next_opens():
    a_sit_and_go(name="Heads-up", table_size=2, heads_up=True)
    (event,) = sit_and_gos_open(now=timezone.now())
    for number in range(3):
        UserFactory(username=f"bot{number}", is_bot=True)

    assert sit_and_go_bots_join(now=timezone.now()) == 1
    event.refresh_from_db()
    assert event.entries_count == 1
    assert sit_and_go_bots_join(now=timezone.now()) == 1  # the last seat: it starts, the next opens
    event.refresh_from_db()
    assert event.entries_count == 2
    assert event.scheduled_start <= timezone.now()
    assert [e.name for e in open_events(event.sit_and_go)] == ["Heads-up #2"]
    assert len(set(Entry.objects.filter(tournament=event).values_list("player", flat=True))) == 2


@pytest.mark.django_db
def test_a_shootout_sit_and_go_draws_each_table_full_and_a_multi_table_heads_up_allows_no_deal_yet():
    from deals.services import chop_request

    a_sit_and_go(name="Shootout", table_size=3, tables=2, shootout=True)
    a_sit_and_go(name="HU 4", table_size=2, tables=2, heads_up=True)
    now = timezone.now()
    shootout, heads_up = sorted(sit_and_gos_open(now=now), key=lambda event: event.name, reverse=True)
    assert (shootout.name, shootout.shootout, shootout.max_entrants) == ("Shootout #1", True, 6)
    for player in funded_players(6, prefix="so", eur=5_000):
        entry_register(tournament_id=shootout.pk, player=player, now=now)
    for player in funded_players(4, prefix="hu", eur=5_000):
        entry_register(tournament_id=heads_up.pk, player=player, now=now)
    for event in (shootout, heads_up):
        tournament_advance(tournament_id=event.pk, now=now)

    tables = Table.objects.filter(tournament=shootout)
    assert sorted(table.entries.count() for table in tables) == [3, 3]  # each table to one winner (rule 18.5)
    assert Table.objects.filter(tournament=heads_up).count() == 2
    player = Entry.objects.filter(tournament=heads_up).first().player
    with pytest.raises(TournamentError) as refused:
        chop_request(tournament_id=heads_up.pk, player=player, now=now)
    assert refused.value.code == "heads_up"  # no deal before the final match (rule 23.9)
