"""Entries: register, late-register, unregister, rebuy and add-on (rules 8, 9, 10).

Each use case reads before it takes the tournament's row lock what does not need
it (the player's accounts), then in one transaction takes the lock, checks with
the pure rules (tournaments.rules.registration) on the row as locked, and writes
with the ORM; the purchase is paid, and refunded, by tournaments.services.purchases
through the ledger. Every statement under the lock makes the event's other players
wait. A registration, the busiest, writes its new rows (the entry, its purchase,
the ledger's transfers and audit rows) in its transaction before it takes the lock,
which it holds for the money and the counts alone; the others hold it for the
event's row, the entry, its purchases, the money moves and the counts.

One lock order in every service that changes an event, so that none can deadlock
with another: the tournament's row (Tournament.objects.locked(), FOR NO KEY UPDATE,
which a registration's new rows do not wait for), then its entries (a new one's
unique key included), tickets and purchases, then wallet accounts in id order (in
the ledger, FOR NO KEY UPDATE too, which the new transfers' foreign keys do not
wait for).
"""

import contextlib
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from audit.services import AuditRecord, audit_log
from live.outbox import record
from responsible.services import exclusion_message, exclusion_running
from tournaments.events import EntryChanged, TournamentChanged
from tournaments.models import (
    ENTERED,
    Entry,
    EntryStatus,
    PaymentForm,
    Purchase,
    PurchaseKind,
    Tournament,
)
from tournaments.rules.pricing import EntryPrice
from tournaments.rules.registration import (
    payment_form,
    payment_refusal,
)
from tournaments.selectors.entries import chips_refusal, entry_refusal, unregister_refusal
from tournaments.services.floor import floor_seat_late
from tournaments.services.purchases import (
    RecordedPurchase,
    entry_accounts,
    purchase_record,
    purchase_settle,
    purchases_refund,
    tournament_accounts_ref,
)
from tournaments.services.refusals import TournamentError, refuse
from tournaments.services.sit_and_go import sit_and_go_filled
from wallet.models import Account
from wallet.services import AccountSpec, accounts_for

if TYPE_CHECKING:
    from accounts.models import User


DEADLOCK_DETECTED = "40P01"  # PostgreSQL's SQLSTATE for a transaction it failed to break a deadlock


@dataclass(frozen=True)
class Receipt:
    """What a registration or unregistration leaves for its answer: the entry, its
    purchases (oldest first), and whether the request was a retry (its idempotency
    key had made the entry before, and nothing was done now)."""

    entry: Entry
    purchases: list[Purchase]
    retry: bool = False


def entry_register(
    *,
    tournament_id: int,
    player: "User",
    now: datetime,
    form: str | None = None,
    ticket_id: int | None = None,
    idempotency_key: str | None = None,
) -> Entry:
    """entry_register_receipt, for callers that want only the entry."""
    return entry_register_receipt(
        tournament_id=tournament_id,
        player=player,
        now=now,
        form=form,
        ticket_id=ticket_id,
        idempotency_key=idempotency_key,
    ).entry


def entry_register_receipt(
    *,
    tournament_id: int,
    player: "User",
    now: datetime,
    form: str | None = None,
    ticket_id: int | None = None,
    idempotency_key: str | None = None,
) -> Receipt:
    """Enter `player`, paying in `form` (cash, T-Money or a ticket; by default the
    event's own kind of money), during registration or late registration (rule 9).

    Everything that does not need the tournament's row lock is done before it: the
    event's terms read and the rules checked on them, the accounts read (and those
    missing created, entry_accounts), then in the transaction entry_record (the
    entry, its purchase, the ledger's rows). Under the lock: the rules again on the
    event as locked, its terms the same as those the entry was written with (else a
    refusal: the player asked at the old price), and entry_settle (the money moved
    through the ledger, which checks the balance under the account's lock; the
    event's counts; a late entrant's seat). So the lock, which every other
    registration of the event waits for, is held for the money and the counts
    alone. A refusal rolls it all back; a player who holds an entry is told so
    whatever else refuses.

    A retry with the same idempotency key returns the same entry, also when the two
    race: its key's purchase is looked for once the retry is refused (the player's
    entry, or the key, taken), so a first request never pays for the look-up.
    Records TournamentChanged and EntryChanged.

    A seat awarded to him in this event meanwhile (satellites: under the event's
    lock) waits for this registration's entry, which waits for that lock: the
    database breaks the circle by failing one of the two. A registration it fails is
    tried once more, and then finds him entered.
    """
    register = functools.partial(
        _register,
        tournament_id=tournament_id,
        player=player,
        now=now,
        form=form,
        ticket_id=ticket_id,
        idempotency_key=idempotency_key,
    )
    try:
        return register()
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) != DEADLOCK_DETECTED:
            raise
        return register()


def _register(
    *,
    tournament_id: int,
    player: "User",
    now: datetime,
    form: str | None,
    ticket_id: int | None,
    idempotency_key: str | None,
) -> Receipt:
    key = _scoped_key(PurchaseKind.ENTRY, tournament_id, player, idempotency_key)
    _check_playing(player, now)
    try:
        terms = Tournament.objects.get(pk=tournament_id)
        _check_open(terms, now)
        form = _payment_form(terms, form, ticket_id)
        known = accounts_for(owner_id=player.pk, ref=tournament_accounts_ref(tournament_id))
        accounts = entry_accounts(terms, player=player, form=form, now=now, ticket_id=ticket_id, known=known)
        with transaction.atomic():
            recorded = entry_record(
                tournament=terms,
                player=player,
                now=now,
                form=form,
                idempotency_key=key,
                ticket_id=ticket_id,
                accounts=accounts,
            )
            tournament = Tournament.objects.locked().get(pk=tournament_id)
            _check_open(tournament, now)
            if _entry_terms(tournament) != _entry_terms(terms):
                raise refuse("terms_changed")
            receipt = entry_settle(tournament, recorded, now=now)
            if tournament.sit_and_go_id is not None and tournament.entries_count >= tournament.max_entrants:
                sit_and_go_filled(tournament, now=now)
            transaction.on_commit(functools.partial(_taken_back_if_excluded, tournament_id, player))
            return receipt
    except TournamentError as refusal:
        # A retry is looked for only when a request is refused, rather than before every
        # registration: its key's purchase (of an entry since unregistered, perhaps) is the answer.
        if (earlier := _registered_with(key)) is not None:
            return earlier
        if refusal.code != "already_registered" and _holds_entry(tournament_id, player):
            raise refuse("already_registered") from None
        raise


def _entry_terms(tournament: Tournament) -> tuple:
    """What entry_record writes from the event's row: an entry written with these
    is settled only while the event's row still has them."""
    return (
        tournament.starting_stack,
        tournament.scheduled_start,
        tournament.entry_price,
        tournament.pool_currency,
        tournament.entry_kind,
    )


@dataclass(frozen=True)
class RecordedEntry:
    """An entry written with its purchase, not paid or counted yet (entry_record)."""

    entry: Entry
    purchase: RecordedPurchase


def entry_record(
    *,
    tournament: Tournament,
    player: "User",
    now: datetime,
    form: str,
    idempotency_key: str | None = None,
    ticket_id: int | None = None,
    payer: AccountSpec | None = None,
    won_in: Tournament | None = None,
    accounts: Mapping[AccountSpec, Account] | None = None,
) -> RecordedEntry:
    """What a new entry writes that needs no lock of the event: the entry with the
    starting stack (late once the event has started; one per player: the unique
    index of active entries refuses a second), and its purchase recorded with the
    entry's audit row (purchase_record), paid in `form`; a registration's, or a seat
    won in satellite `won_in` (paid by `payer`, see purchase_plan).
    `idempotency_key`: the purchase's, else one of the entry's. Its transaction
    settles it (entry_settle) in the same atomic block, under the event's lock."""
    try:
        entry = Entry.objects.create(
            tournament=tournament,
            player=player,
            chips=tournament.starting_stack,
            late=now >= tournament.scheduled_start,
            won_in=won_in,
        )
    except IntegrityError as error:
        raise refuse("already_registered") from error
    terms: dict[str, object] = {"form": form, "late": entry.late, "tournament": tournament.pk}
    if won_in is not None:
        terms["won_in"] = won_in.pk
    purchase = purchase_record(
        tournament=tournament,
        entry=entry,
        kind=PurchaseKind.ENTRY,
        form=form,
        price=tournament.entry_price,
        chips=tournament.starting_stack,
        idempotency_key=idempotency_key or f"entry:{entry.pk}",
        now=now,
        actor=player,
        ticket_id=ticket_id,
        payer=payer,
        accounts=accounts,
        audit=[AuditRecord(action="tournaments.entry.registered", subject=entry, actor=player, data=terms)],
    )
    return RecordedEntry(entry, purchase)


def entry_settle(tournament: Tournament, recorded: RecordedEntry, *, now: datetime) -> Receipt:
    """Under the tournament's row lock: a recorded entry's money moved
    (purchase_settle), the event's counts (its row, and `tournament` kept in step),
    and a late entrant's seat at a table (floor_seat_late: after the draw; before
    it, the draw seats him). Records TournamentChanged and EntryChanged."""
    entry, purchase = recorded.entry, purchase_settle(recorded.purchase)
    _counts_add(tournament.pk, entries=1, contributions=purchase.price)
    tournament.entries_count += 1
    tournament.prize_contributions += purchase.price
    _tell(tournament.pk, entry.player)
    if entry.late:
        floor_seat_late(tournament.pk, entry, now=now)
    return Receipt(entry, [purchase])


def _holds_entry(tournament_id: int, player: "User") -> bool:
    return Entry.objects.filter(tournament_id=tournament_id, player=player, status=EntryStatus.ACTIVE).exists()


def _registered_with(key: str | None) -> Receipt | None:
    """The entry the request with this key made before (a retry), if it did."""
    earlier = Purchase.objects.filter(idempotency_key=key).select_related("entry").first() if key else None
    if earlier is None:
        return None
    return Receipt(earlier.entry, list(earlier.entry.purchases.order_by("pk")), retry=True)


def _check_playing(player: "User", now: datetime) -> None:
    """A player on a break or excluded (responsible gaming) buys no entry or chips."""
    if (exclusion := exclusion_running(player.pk, now)) is not None:
        raise TournamentError(exclusion_message(exclusion), "self_excluded")


def _taken_back_if_excluded(tournament_id: int, player: "User") -> None:
    """Once a registration commits: a break or exclusion that began after its check
    and before its commit found no entry to take back (responsible.exclusions), so it
    is taken back here, refunded in the form paid. Of the two, whichever commits
    last sees the other."""
    now = timezone.now()
    if exclusion_running(player.pk, now) is None:
        return
    # Started meanwhile: his stack plays as an absent player's (rule 18.4).
    with contextlib.suppress(TournamentError):
        entry_unregister_receipt(tournament_id=tournament_id, player=player, now=now, excluded=True)


def _check_open(tournament: Tournament, now: datetime) -> None:
    if refusal := entry_refusal(tournament, now=now):
        raise refuse(refusal)


def _payment_form(tournament: Tournament, form: str | None, ticket_id: int | None) -> str:
    """The form the entry is paid in, or the refusal (tournaments.rules.registration)."""
    with_ticket = ticket_id is not None
    chosen = payment_form(entry_kind=tournament.entry_kind, asked=form, with_ticket=with_ticket)
    refusal = payment_refusal(entry_kind=tournament.entry_kind, form=chosen, with_ticket=with_ticket)
    if refusal:
        raise refuse(refusal)
    return chosen


def entry_unregister(*, tournament_id: int, player: "User", now: datetime) -> Entry:
    """entry_unregister_receipt, for callers that want only the entry."""
    return entry_unregister_receipt(tournament_id=tournament_id, player=player, now=now).entry


def entry_unregister_receipt(*, tournament_id: int, player: "User", now: datetime, excluded: bool = False) -> Receipt:
    """Take the player's entry back before the deadline (rule 10), refunding exactly
    what was paid in the form paid; a satellite seat comes back as T-Money.
    `excluded`: the player has excluded himself (responsible gaming): taken back up to
    the start, past the unregistration deadline too.

    The accounts are read before the lock; under the tournament's row lock (taken
    before the entry's, as cancellation and rebuys take them): the entry, the
    deadline, the refund and the event's counts. Records TournamentChanged and
    EntryChanged.
    """
    accounts = accounts_for(owner_id=player.pk, ref=tournament_accounts_ref(tournament_id))
    with transaction.atomic():
        tournament = Tournament.objects.locked().get(pk=tournament_id)
        entry, paid = _entry_paid(tournament, player)
        if excluded and tournament.started_at is not None:
            raise refuse("unregistration_closed")
        if not excluded and (refusal := unregister_refusal(tournament, now=now)):
            raise refuse(refusal)
        entry.status = EntryStatus.UNREGISTERED
        entry.ended_at = now
        entry.save(update_fields=["status", "ended_at"])
        purchases = purchases_refund(
            tournament=tournament,
            entry=entry,
            now=now,
            actor=player,
            accounts=accounts,
            audit=[
                AuditRecord(
                    action="tournaments.entry.unregistered_on_exclusion"
                    if excluded
                    else "tournaments.entry.unregistered",
                    subject=entry,
                    actor=player,
                )
            ],
            purchases=paid,
        )
        _counts_add(tournament.pk, entries=-1, contributions=-sum(purchase.price for purchase in purchases))
        _tell(tournament.pk, player)
    return Receipt(entry, purchases)


def _entry_paid(tournament: Tournament, player: "User") -> tuple[Entry, list[Purchase]]:
    """The player's active entry in `tournament`, locked, with its purchases not
    refunded yet (oldest first): one read under the tournament's lock, the entry
    joined to its purchases."""
    paid = list(
        Purchase.objects.select_for_update(of=("self", "entry"))
        .select_related("entry")
        .filter(entry__tournament=tournament, entry__player=player, entry__status=EntryStatus.ACTIVE, refunded_at=None)
        .order_by("pk")
    )
    if paid:
        entry = paid[0].entry
        for purchase in paid:
            purchase.entry = entry
        return entry, paid
    # An entry with nothing left to refund (none is known to the rules, but the rows allow it).
    bare = (
        Entry.objects.select_for_update()
        .filter(tournament=tournament, player=player, status=EntryStatus.ACTIVE)
        .first()
    )
    if bare is None:
        raise refuse("not_registered")
    return bare, []


def entry_rebuy(*, tournament_id: int, player: "User", now: datetime, idempotency_key: str | None = None) -> Purchase:
    """Buy the rebuy's chips during the rebuy period, within the limit, with money in
    the tournament's currency (rule 8)."""
    return entry_chips_buy(
        tournament_id=tournament_id, player=player, now=now, kind=PurchaseKind.REBUY, idempotency_key=idempotency_key
    ).purchases[0]


def entry_addon(*, tournament_id: int, player: "User", now: datetime, idempotency_key: str | None = None) -> Purchase:
    """Take the add-on once, at the end of the rebuy period."""
    return entry_chips_buy(
        tournament_id=tournament_id, player=player, now=now, kind=PurchaseKind.ADDON, idempotency_key=idempotency_key
    ).purchases[0]


def entry_chips_buy(
    *, tournament_id: int, player: "User", now: datetime, kind: str, idempotency_key: str | None = None
) -> Receipt:
    """A rebuy or the add-on (`kind`, see entry_rebuy and entry_addon), with its
    purchase as the receipt's one purchase. Under the tournament's row lock: a
    retry's answer, the entry, the rules, the purchase and its chips. Records
    TournamentChanged and EntryChanged."""
    key = _scoped_key(kind, tournament_id, player, idempotency_key)
    _check_playing(player, now)
    accounts = accounts_for(owner_id=player.pk, ref=tournament_accounts_ref(tournament_id))
    with transaction.atomic():
        tournament = Tournament.objects.locked().get(pk=tournament_id)
        if key and (earlier := Purchase.objects.filter(idempotency_key=key).select_related("entry").first()):
            return Receipt(earlier.entry, [earlier], retry=True)
        entry = (
            Entry.objects.select_for_update().filter(tournament=tournament, player=player, status__in=ENTERED).first()
        )
        if entry is None:
            raise refuse("not_registered")
        if entry.status == EntryStatus.ELIMINATED:
            raise refuse("eliminated")
        if refusal := chips_refusal(tournament, entry, kind=kind, now=now):
            raise refuse(refusal)
        if kind == PurchaseKind.REBUY:
            price, chips = EntryPrice(tournament.rebuy_price, tournament.rebuy_fee, 0), tournament.rebuy_chips
        else:
            price, chips = EntryPrice(tournament.addon_price, tournament.addon_fee, 0), tournament.addon_chips
        purchase = purchase_settle(
            purchase_record(
                tournament=tournament,
                entry=entry,
                kind=kind,
                form=PaymentForm.FREE if price.total == 0 else PaymentForm.CASH,
                price=price,
                chips=chips,
                idempotency_key=key or f"{kind}:{entry.pk}:{entry.rebuys if kind == PurchaseKind.REBUY else 0}",
                now=now,
                actor=player,
                accounts=accounts,
            )
        )
        entry.chips += chips
        if kind == PurchaseKind.REBUY:
            entry.rebuys += 1
        else:
            entry.addon_taken = True
        entry.save(update_fields=["chips", "rebuys", "addon_taken"])
        _counts_add(tournament.pk, entries=0, contributions=purchase.price)
        audit_log(action=f"tournaments.entry.{kind}", subject=entry, actor=player, data={"purchase": purchase.pk})
        _tell(tournament.pk, player)
    return Receipt(entry, [purchase])


def _counts_add(tournament_id: int, *, entries: int, contributions: int) -> None:
    """Add to the event's entrants and prize-pool contributions (under its row lock)."""
    Tournament.objects.filter(pk=tournament_id).update(
        entries_count=F("entries_count") + entries,
        prize_contributions=F("prize_contributions") + contributions,
        updated_at=timezone.now(),
    )


def _tell(tournament_id: int, player: "User") -> None:
    """Once committed: the event's entrants and pool changed, and so did the player's entry."""
    record(TournamentChanged(tournament_id))
    record(EntryChanged(tournament_id, player.pk))


def _scoped_key(kind: str, tournament_id: int, player: "User", key: str | None) -> str | None:
    """A client's key names one request of one player for one purchase in one event."""
    return f"{kind}:{tournament_id}:{player.pk}:{key}" if key else None
