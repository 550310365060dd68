"""The floor: who sits where (rules 4, 9, 16), stored; tournaments.rules.seating
decides. Every function runs in its caller's transaction, under the tournament's
row lock (the clock's start, a late registration).
"""

import secrets
from random import Random

from audit.services import audit_log
from tournaments.models import Entry, EntryStatus, Table, Tournament
from tournaments.rules.seating import Seat, draw_seats, late_seat, next_button


def floor_draw(tournament: Tournament, *, rng: Random | None = None) -> None:
    """The seat draw at the start (rule 4): every active entry at a random seat of as
    few and as even tables as hold them; each table's first button on its first
    occupied seat from seat 1 (rule 5). A cryptographically secure draw unless a
    test gives its own `rng`."""
    rng = rng or secrets.SystemRandom()
    entries = list(tournament.entries.filter(status=EntryStatus.ACTIVE).order_by("pk"))
    seats = draw_seats([entry.pk for entry in entries], table_size=tournament.table_size, rng=rng)
    numbers = sorted({seat.table for seat in seats.values()})
    tables = {
        number: Table(
            tournament=tournament,
            number=number,
            button=next_button([seat.seat for seat in seats.values() if seat.table == number], None),
        )
        for number in numbers
    }
    Table.objects.bulk_create(tables.values())
    for entry in entries:
        entry.table, entry.seat = tables[seats[entry.pk].table], seats[entry.pk].seat
    Entry.objects.bulk_update(entries, ["table", "seat"])
    audit_log(
        action="tournaments.floor.drawn",
        subject=tournament,
        data={"tables": len(tables), "players": len(entries)},
    )


def floor_seat_late(tournament_id: int, entry: Entry, *, rng: Random | None = None) -> Seat | None:
    """A late entrant's seat (rule 9): a random empty seat at the table with the fewest
    players, or a new table when every table is full. None before the draw, which
    seats every entry then."""
    rng = rng or secrets.SystemRandom()
    tables = {table.number: table for table in Table.objects.filter(tournament_id=tournament_id, broken_at=None)}
    if not tables:
        return None
    table_size = Tournament.objects.values_list("table_size", flat=True).get(pk=tournament_id)
    layout: dict[int, dict[int, int]] = {number: {} for number in tables}
    seated = Entry.objects.filter(table__in=tables.values()).values_list("table__number", "seat", "pk")
    for number, seat, entry_id in seated:
        layout[number][seat] = entry_id
    if min(len(seats) for seats in layout.values()) >= table_size:
        number = max(tables) + 1
        tables[number] = Table.objects.create(tournament_id=tournament_id, number=number)
        layout[number] = {}
    seat = late_seat(layout, table_size=table_size, rng=rng)
    entry.table, entry.seat = tables[seat.table], seat.seat
    Entry.objects.filter(pk=entry.pk).update(table=entry.table, seat=entry.seat)
    if entry.table.button is None:
        entry.table.button = seat.seat
        entry.table.save(update_fields=["button"])
    return seat
