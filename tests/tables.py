"""Tables for tests: an event started with chosen stacks, its hand in play, a
prepared deck put in before anyone acts, and the player to act acting through the
service a browser calls."""

from datetime import timedelta

from django.utils import timezone

from tests.decks import deck_for
from tests.factories import BlindStructureFactory, TournamentFactory, entrants
from tournaments.models import BreakPolicyKind, Entry, Hand, HandStatus, Tournament
from tournaments.rules.hands import ActionKind, HandSetup, deck_commitment, new_salt
from tournaments.selectors.replays import entry_of
from tournaments.services.clock import tournament_advance
from tournaments.services.tables import hand_act


def started(stacks: list[int], *, levels=None, **fields) -> tuple[Tournament, list[Entry]]:
    """An event of players with these chips (blinds 10/20 unless `levels`), started:
    its first hands dealt."""
    now = timezone.now()
    fields = {"table_size": 6, "break_policy": BreakPolicyKind.NONE, "max_entrants": 100} | fields
    tournament = TournamentFactory(
        blind_structure=BlindStructureFactory(levels=levels), scheduled_start=now + timedelta(minutes=5), **fields
    )
    players = entrants(tournament, len(stacks), now=now)
    entries = [Entry.objects.get(tournament=tournament, player=player) for player in players]
    for entry, chips in zip(entries, stacks, strict=True):
        Entry.objects.filter(pk=entry.pk).update(chips=chips)
    tournament_advance(tournament_id=tournament.pk, now=tournament.scheduled_start)
    tournament.refresh_from_db()
    return tournament, entries


def in_play(tournament: Tournament, **where) -> Hand:
    return Hand.objects.get(tournament=tournament, status=HandStatus.PLAYING, **where)


def seat_of(row: Hand, entry: Entry) -> int:
    return next(int(seat) for seat, pk in row.seats.items() if pk == entry.pk)


def prepare(row: Hand, holes: dict[Entry, str], board: str = "") -> None:
    """The hand's deck replaced, before anyone acts, by one that deals these hole
    cards and this board; its commitment made again, as the dealer would have."""
    button = HandSetup.from_json(row.setup).button
    seats = sorted(int(seat) for seat in row.seats)
    order = [seat for seat in seats if seat > button] + [seat for seat in seats if seat <= button]
    by_entry = {entry.pk: cards for entry, cards in holes.items()}
    deck = deck_for([by_entry.get(entry_of(row, seat)) for seat in order], board)
    row.deck, row.salt = "".join(deck), new_salt()
    row.commitment = deck_commitment(deck, row.salt)
    row.save(update_fields=["deck", "salt", "commitment"])


def acting(row: Hand) -> Entry:
    return Entry.objects.get(pk=entry_of(row, row.to_act))


def act(row: Hand, kind: ActionKind, amount: int | None = None) -> Hand:
    player = acting(row).player_id
    return hand_act(
        hand_id=row.pk, player_id=player, at=len(row.actions), kind=kind.value, amount=amount, now=timezone.now()
    ).hand


def chips(*entries: Entry) -> list[int]:
    return [Entry.objects.get(pk=entry.pk).chips for entry in entries]
