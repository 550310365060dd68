"""Entries: register, late-register, unregister, rebuy and add-on (rules 8, 9, 10).

Every use case re-checks the rules under the tournament's row lock and records what
was paid in a Purchase so that a refund reverses exactly that. One lock order in
every service that changes an event, so that none can deadlock with another: the
tournament's row, then its entries (a new one's unique key included), tickets and
purchases, then wallet accounts in id order (inside the ledger).

Registration and unregistration are the hot path: every player of an event queues
for its row. So they read what they can before taking it (the event's terms, the
accounts, the purchases to refund), then write with as few statements as they can,
the accounts' locks (a prize pool is as hot) last, just before the commit.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.models import AuditEntry
from audit.services import audit_log
from config.sql import columns_of, model_from_row, models_read, rows_insert
from live.outbox import record
from tournaments.events import EntryChanged, TournamentChanged
from tournaments.models import (
    ENTERED,
    Entry,
    EntryKind,
    EntryStatus,
    PaymentForm,
    Purchase,
    PurchaseKind,
    Tournament,
)
from tournaments.rules.registration import addon_refusal, rebuy_refusal, registration_refusal, unregistration_refusal
from tournaments.selectors import addon_window, rebuy_period_ends_at, tournament_schedule, tournament_window
from tournaments.services.floor import floor_seat_late
from tournaments.services.refusals import TournamentError, refuse
from wallet.models import Account, AccountKind, Currency, TransferReason
from wallet.services import (
    AROUND_JSON,
    AccountSpec,
    InsufficientFunds,
    Leg,
    WalletError,
    account_get,
    accounts_around,
    accounts_by_spec,
    accounts_get,
    house_account_spec,
    transfers_create,
    wallet_account_spec,
)
from wallet.tickets import ticket_release, ticket_reserve, tickets_usable_for


@dataclass(frozen=True)
class PaymentOption:
    """One way the player can pay this entry, for the Register buttons."""

    form: str
    currency: str
    amount: int
    affordable: bool
    ticket_id: int | None = None


def _amounts(tournament: Tournament) -> tuple[int, int, int]:
    price = tournament.entry_price
    return price.prize, price.fee, price.bounty


def payment_options(*, tournament: Tournament, player, now: datetime) -> list[PaymentOption]:
    """How `player` can pay an entry into `tournament` (empty for a freeroll's FREE)."""
    price, fee, bounty = _amounts(tournament)
    total = price + fee + bounty
    currency = tournament.pool_currency
    if tournament.entry_kind == EntryKind.FREEROLL:
        return [PaymentOption(PaymentForm.FREE, currency, 0, True)]
    options = []
    if tournament.entry_kind == EntryKind.CASH:
        options.append(PaymentOption(PaymentForm.CASH, currency, total, _balance(player, currency) >= total))
    if tournament.entry_kind in (EntryKind.CASH, EntryKind.TMONEY):
        options.append(
            PaymentOption(PaymentForm.TMONEY, Currency.TMONEY, total, _balance(player, Currency.TMONEY) >= total)
        )
    ticket = tickets_usable_for(
        owner=player, tournament_id=tournament.pk, value=price + fee, currency=currency, now=now
    ).first()
    if ticket is not None:
        options.append(PaymentOption(PaymentForm.TICKET, currency, total, True, ticket.pk))
    return options


def _balance(player, currency: str) -> int:
    """What the player holds in `currency`, without opening an account to read it."""
    kind = AccountKind.PLAYER_TMONEY if currency == Currency.TMONEY else AccountKind.PLAYER_CASH
    return (
        Account.objects.filter(owner=player, kind=kind, currency=currency).values_list("balance", flat=True).first()
        or 0
    )


@dataclass(frozen=True)
class Receipt:
    """What a registration or unregistration leaves for its answer: the entry, its
    purchases (oldest first), and whether the request was a retry (its idempotency
    key had made the entry before, and nothing was done now)."""

    entry: Entry
    purchases: list[Purchase]
    retry: bool = False


class _StaleRead(Exception):
    """What was read without the tournament's lock no longer holds under it (an
    admin changed the price, the event was postponed, a purchase was refunded):
    the transaction's rows are void, and the request is made again from a fresh read."""


class _NotEntered(Exception):
    """The player's entry was not made: they hold one, or the request's key made one."""


# A request made again this often from a fresh read, and still finding the event
# changing under it, is told to try again later.
FRESH_READS = 3

# What registration reads of its event: the terms an entry is paid and counted by,
# and what the rules decide with. Only these: a Tournament of every field costs
# more CPU to build than its query.
REGISTRATION_FIELDS = (
    "id",
    "status",
    "entry_kind",
    "currency",
    "buy_in",
    "fee",
    "bounty_kind",
    "bounty_amount",
    "starting_stack",
    "max_entrants",
    "entries_count",
    "prize_contributions",
    "scheduled_start",
    "registration_opens_at",
    "late_registration_minutes",
    "extended_late_registration_minutes",
    "unregistration_deadline_minutes",
    "unregistration_allowed",
    "late_registration_closed_at",
)
TOURNAMENT_TABLE = Tournament._meta.db_table
ENTRY_TABLE = Entry._meta.db_table
PURCHASE_TABLE = Purchase._meta.db_table
# Named rather than *: a prepared statement's columns then stay as they are when a
# migration adds one. Read with config.sql.models_read: a RawQuerySet spent about
# 0.15 ms of CPU more a query (0.24 ms against 0.09 for the tournament's read).
ENTRY_FIELDS = tuple(field.name for field in Entry._meta.concrete_fields)
PURCHASE_FIELDS = tuple(field.name for field in Purchase._meta.concrete_fields)
_PURCHASE_COLUMNS = ", ".join(f"p.{field.column}" for field in Purchase._meta.concrete_fields)
_UNREFUNDED = (  # the unrefunded purchases of the player's active entry in the event
    f"SELECT {_PURCHASE_COLUMNS} FROM {PURCHASE_TABLE} p JOIN {ENTRY_TABLE} e ON e.id = p.entry_id"  # noqa: S608 (names from the models)
    " WHERE e.tournament_id = %s AND e.player_id = %s AND e.status = %s AND p.refunded_at IS NULL"
)


def entry_register(
    *,
    tournament_id: int,
    player,
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
    player,
    now: datetime,
    form: str | None = None,
    ticket_id: int | None = None,
    idempotency_key: str | None = None,
) -> Receipt:
    """Enter `player`, paying in `form` (cash, T-Money or a ticket; by default the
    event's own kind of money), during registration or late registration (rule 9).

    Under the tournament's row lock: one entry per player (the unique index of
    active entries), capacity, the window; the buy-in goes to the prize pool, the
    fee to the house, through the ledger. A retry with the same idempotency key
    returns the same entry, also when the two race.
    """
    key = _scoped_key(PurchaseKind.ENTRY, tournament_id, player, idempotency_key)
    terms, accounts = _register_ahead(tournament_id, player)
    for read in range(FRESH_READS):
        try:
            return _register(
                _tournament_read(tournament_id) if read else terms,
                player=player,
                now=now,
                form=form,
                ticket_id=ticket_id,
                key=key,
                accounts=accounts,
            )
        except _StaleRead:
            continue
    raise refuse("busy")


def _register(
    terms: Tournament,
    *,
    player,
    now: datetime,
    form: str | None,
    ticket_id: int | None,
    key: str | None,
    accounts: Mapping[AccountSpec, Account],
) -> Receipt:
    price, fee, bounty = _amounts(terms)
    entry = Entry(
        tournament_id=terms.pk,
        player=player,
        chips=terms.starting_stack,
        late=now >= terms.scheduled_start,
        created_at=timezone.now(),
    )
    # Known before the lock (from the terms, which the lock's are checked against), the
    # way to pay lets the purchase be written with the entry; a ticket is reserved first.
    paying = _form_ahead(terms, form, ticket_id) if connection.vendor == "postgresql" else None
    made = None
    try:
        with transaction.atomic():
            if paying is not None:
                tournament, made = _count_and_enter(entry, key=key, form=paying, terms=terms)
                if made is None:
                    raise _NotEntered
            else:
                tournament = _tournament_count(terms.pk, entries=1, contributions=price)
                if not _entry_insert(entry, key=key):
                    raise _NotEntered  # and the count, of an entry this request does not make, rolls back
            refusal = registration_refusal(
                now=now,
                status=tournament.status,
                window=tournament_window(tournament),
                entries=tournament.entries_count - 1,  # before this entry, which the row counts already
                capacity=tournament.max_entrants,
            )
            if refusal:
                raise refuse(refusal)
            if _entry_terms(tournament, now) != _entry_terms(terms, now):
                raise _StaleRead
            _tell(tournament.pk, player)  # before the ledger's own: see _tell
            form = _choose_form(tournament, form, ticket_id)
            purchase = purchase_create(
                tournament=tournament,
                entry=entry,
                kind=PurchaseKind.ENTRY,
                form=form,
                amounts=(price, fee, bounty),
                chips=tournament.starting_stack,
                ticket_id=ticket_id,
                idempotency_key=key or f"entry:{entry.pk}",
                now=now,
                accounts=accounts,
                audit=[_entry_audit("registered", entry, form=form, late=entry.late, tournament=tournament.pk)],
                made=made,
            )
            if entry.late:
                floor_seat_late(tournament.pk, entry)  # after the draw; before it, the draw seats the entry
    except _NotEntered:
        return _registered_before(terms.pk, player, key)
    return Receipt(entry, [purchase])


def _register_ahead(tournament_id: int, player) -> tuple[Tournament, dict[AccountSpec, Account]]:
    """_tournament_read and _accounts_ahead, in one query on PostgreSQL (the accounts
    as a JSON column)."""
    if connection.vendor != "postgresql":
        return _tournament_read(tournament_id), _accounts_ahead(tournament_id, player)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns_of(Tournament, REGISTRATION_FIELDS)}, {AROUND_JSON}"  # noqa: S608 (names from the models)
            f" FROM {TOURNAMENT_TABLE} WHERE id = %s",
            [player.pk, f"tournament:{tournament_id}", "", tournament_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Tournament.DoesNotExist
    return model_from_row(Tournament, REGISTRATION_FIELDS, row[:-1]), accounts_by_spec(row[-1] or [])


def _tournament_read(tournament_id: int) -> Tournament:
    """The event's REGISTRATION_FIELDS, without a lock."""
    for tournament in models_read(
        Tournament,
        REGISTRATION_FIELDS,
        f"SELECT {columns_of(Tournament, REGISTRATION_FIELDS)} FROM {TOURNAMENT_TABLE} WHERE id = %s",  # noqa: S608 (names from the model)
        [tournament_id],
    ):
        return tournament
    raise Tournament.DoesNotExist


def _tournament_count(tournament_id: int, *, entries: int, contributions: int) -> Tournament:
    """Add to the event's counts under its row lock, taken here (if not before) and
    held to the commit; its REGISTRATION_FIELDS as they are then. One statement:
    every other registration of the event waits for this lock."""
    for tournament in models_read(
        Tournament,
        REGISTRATION_FIELDS,
        f"UPDATE {TOURNAMENT_TABLE} SET entries_count = entries_count + %s,"  # noqa: S608 (names from the model)
        f" prize_contributions = prize_contributions + %s, updated_at = %s"
        f" WHERE id = %s RETURNING {columns_of(Tournament, REGISTRATION_FIELDS)}",
        [entries, contributions, connection.ops.adapt_datetimefield_value(timezone.now()), tournament_id],
    ):
        return tournament
    raise Tournament.DoesNotExist


def _entry_terms(tournament: Tournament, now: datetime) -> tuple:
    """What an entry's rows are written with: its price and money, its chips, whether it is late."""
    return (
        tournament.entry_kind,
        tournament.pool_currency,
        tournament.entry_price,
        tournament.starting_stack,
        now >= tournament.scheduled_start,
    )


ENTRY_INSERT_FIELDS = ("tournament", "player", "status", "chips", "rebuys", "addon_taken", "late", "created_at")


def _entry_insert(entry: Entry, *, key: str | None) -> bool:
    """Save the player's new `entry`, unless they hold one already or this request's
    key made one before. One statement: the unique index of active entries refuses
    a second one (after waiting for a concurrent registration of the same player to
    end), and the key's purchase, if there is one, stops the insert."""
    fields = [Entry._meta.get_field(name) for name in ENTRY_INSERT_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {ENTRY_TABLE} ({', '.join(field.column for field in fields)})"  # noqa: S608 (names from the model)
            f" SELECT {', '.join(['%s'] * len(fields))}"
            f" WHERE NOT EXISTS (SELECT 1 FROM {PURCHASE_TABLE} WHERE idempotency_key = %s)"
            " ON CONFLICT DO NOTHING RETURNING id",
            [field.get_db_prep_save(getattr(entry, field.attname), connection) for field in fields] + [key],
        )
        made = cursor.fetchone()
    if made is None:
        return False
    entry.pk = made[0]
    return True


def _form_ahead(terms: Tournament, form: str | None, ticket_id: int | None) -> str | None:
    """The way an entry into the event is paid, as _choose_form will find it under the
    lock if the terms are still these; None for a ticket, or a refusal (raised there)."""
    try:
        chosen = _choose_form(terms, form, ticket_id)
    except TournamentError:
        return None
    return None if chosen == PaymentForm.TICKET else chosen


def _count_and_enter(
    entry: Entry, *, key: str | None, form: str, terms: Tournament
) -> tuple[Tournament, Purchase | None]:
    """_tournament_count (its lock first), _entry_insert and the entry's purchase
    (unpaid: purchase_create pays it, given it as `made`), in one statement on
    PostgreSQL: the event as counted, and the purchase, None if the entry was not
    made (and the count, of an entry this request does not make, rolls back)."""
    price, fee, bounty = _amounts(terms)
    purchase = Purchase(
        entry=entry,
        kind=PurchaseKind.ENTRY,
        form=form,
        currency=terms.pool_currency,
        price=price,
        fee=fee,
        bounty=bounty,
        chips=terms.starting_stack,
        created_at=timezone.now(),
    )
    params = [1, price, connection.ops.adapt_datetimefield_value(timezone.now()), terms.pk]
    fields = [Entry._meta.get_field(name) for name in ENTRY_INSERT_FIELDS]
    params += [field.get_db_prep_save(getattr(entry, field.attname), connection) for field in fields] + [key]
    params += [purchase.kind, purchase.form, purchase.currency, price, fee, bounty, purchase.chips, key]
    params.append(connection.ops.adapt_datetimefield_value(purchase.created_at))
    try:
        with transaction.mark_for_rollback_on_error(), connection.cursor() as cursor:  # as create() does
            cursor.execute(_COUNT_AND_ENTER, params)
            row = cursor.fetchone()
    except IntegrityError as error:
        raise TournamentError(_("This request was already made."), "duplicate_request") from error
    if row is None:
        raise Tournament.DoesNotExist
    tournament = model_from_row(Tournament, REGISTRATION_FIELDS, row[:-2])
    if row[-2] is None:
        return tournament, None
    purchase.pk, entry.pk = row[-2:]
    purchase.entry = entry
    purchase.idempotency_key = key or f"entry:{entry.pk}"
    purchase._state.adding = False
    purchase._state.db = connection.alias
    return tournament, purchase


_ENTRY_INSERT_COLUMNS = ", ".join(Entry._meta.get_field(name).column for name in ENTRY_INSERT_FIELDS)
# The entry reads the counted row, so the tournament's lock is taken before its
# (and before the unique index of active entries waits for another's).
_COUNT_AND_ENTER = (
    f"WITH counted AS (UPDATE {TOURNAMENT_TABLE} SET entries_count = entries_count + %s,"  # noqa: S608 (names from the models)
    " prize_contributions = prize_contributions + %s, updated_at = %s"
    f" WHERE id = %s RETURNING {columns_of(Tournament, REGISTRATION_FIELDS)}),"
    f" made AS (INSERT INTO {ENTRY_TABLE} ({_ENTRY_INSERT_COLUMNS})"
    f" SELECT {', '.join(['%s'] * len(ENTRY_INSERT_FIELDS))} FROM counted"
    f" WHERE NOT EXISTS (SELECT 1 FROM {PURCHASE_TABLE} WHERE idempotency_key = %s)"
    " ON CONFLICT DO NOTHING RETURNING id),"
    f" paid AS (INSERT INTO {PURCHASE_TABLE}"
    " (entry_id, kind, form, currency, price, fee, bounty, chips, idempotency_key, created_at)"
    " SELECT made.id, %s, %s, %s, %s, %s, %s, %s, COALESCE(%s, 'entry:' || made.id), CAST(%s AS timestamptz)"
    " FROM made RETURNING id, entry_id)"
    " SELECT counted.*, paid.id, paid.entry_id FROM counted LEFT JOIN paid ON true"
)


def _registered_before(tournament_id: int, player, key: str | None) -> Receipt:
    """The answer when the player's entry was not made: the entry this request's key
    made before (a retry), else the refusal."""
    earlier = Purchase.objects.filter(idempotency_key=key).select_related("entry").first() if key else None
    if earlier is None:
        raise refuse("already_registered")
    return Receipt(earlier.entry, list(earlier.entry.purchases.order_by("pk")), retry=True)


def entry_unregister(*, tournament_id: int, player, now: datetime) -> Entry:
    """entry_unregister_receipt, for callers that want only the entry."""
    return entry_unregister_receipt(tournament_id=tournament_id, player=player, now=now).entry


def entry_unregister_receipt(*, tournament_id: int, player, now: datetime) -> Receipt:
    """Take the player's entry back before the deadline (rule 10), refunding exactly
    what was paid in the form paid; a satellite seat comes back as T-Money.

    The entry's purchases are read first, without a lock; under the tournament's
    lock (taken before the entry's, as cancellation and rebuys take them) the
    refund checks that they are still all there is to refund.
    """
    purchases, accounts = _unregister_ahead(tournament_id, player)
    for read in range(FRESH_READS):
        if read:
            purchases = _purchases_unrefunded(tournament_id, player)
        try:
            return _unregister(tournament_id, player=player, now=now, purchases=purchases, accounts=accounts)
        except _StaleRead:
            continue
    raise refuse("busy")


def _unregister_ahead(tournament_id: int, player) -> tuple[list[Purchase], dict[AccountSpec, Account]]:
    """_purchases_unrefunded and _accounts_ahead, in one query on PostgreSQL (the
    accounts as a JSON column of every row, a row without a purchase if there is none)."""
    if connection.vendor != "postgresql":
        return _purchases_unrefunded(tournament_id, player), _accounts_ahead(tournament_id, player)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {AROUND_JSON}, q.* FROM (SELECT 1) AS one LEFT JOIN ({_UNREFUNDED}) AS q ON true ORDER BY q.id",  # noqa: S608 (names from the models)
            [player.pk, f"tournament:{tournament_id}", "", tournament_id, player.pk, EntryStatus.ACTIVE],
        )
        rows = cursor.fetchall()
    purchases = [model_from_row(Purchase, PURCHASE_FIELDS, row[1:]) for row in rows if row[1] is not None]
    return purchases, accounts_by_spec(rows[0][0] or [])


def _purchases_unrefunded(tournament_id: int, player) -> list[Purchase]:
    """The purchases of the player's active entry not yet refunded, oldest first.
    Written out: the ORM's query took about 0.5 ms of CPU to build, this 0.1 ms."""
    return models_read(
        Purchase, PURCHASE_FIELDS, f"{_UNREFUNDED} ORDER BY p.id", [tournament_id, player.pk, EntryStatus.ACTIVE]
    )


def _unregister(
    tournament_id: int, *, player, now: datetime, purchases: list[Purchase], accounts: Mapping[AccountSpec, Account]
) -> Receipt:
    with transaction.atomic():
        # The lock, and the count as it will be once the entry of the purchases read
        # ahead (every entry has one), and they, are taken out: if they are not all
        # there is, nothing here commits. With none read, an entry made since is
        # counted out once found.
        counted = bool(purchases)
        refunding = sum(purchase.price for purchase in purchases)
        try:
            tournament, entry, marked = _count_and_end(
                tournament_id, player=player, now=now, entries=-1 if counted else 0, contributions=-refunding
            )
        except IntegrityError as error:  # below zero: what was read was taken out meanwhile (a double click)
            raise _StaleRead from error
        if entry is None:
            raise refuse("not_registered")
        refusal = unregistration_refusal(now=now, status=tournament.status, window=tournament_window(tournament))
        if refusal:
            raise refuse(refusal)
        _tell(tournament_id, player)  # before the ledger's own: see _tell
        # Exactly the purchases given (what was counted above), or _StaleRead.
        entry_refund(
            tournament=tournament,
            entry=entry,
            now=now,
            accounts=accounts,
            purchases=purchases,
            audit=[_entry_audit("unregistered", entry)],
            marked=marked,
        )
        if not counted:
            _tournament_count(tournament_id, entries=-1, contributions=0)
    return Receipt(entry, purchases)


def _entry_audit(action: str, entry: Entry, **data) -> AuditEntry:
    """The row audit_log writes for the player's `action` on their entry, unsaved: the
    ledger writes it with its own rows, a statement less under the tournament's lock."""
    return AuditEntry(
        action=f"tournaments.entry.{action}",
        actor=entry.player,
        subject_type=Entry._meta.label_lower,
        subject_id=str(entry.pk),
        data=data,
    )


def _count_and_end(
    tournament_id: int, *, player, now: datetime, entries: int, contributions: int
) -> tuple[Tournament, Entry | None, int | None]:
    """_tournament_count (its lock first) and _entry_end, in one statement on
    PostgreSQL (the entry's end reading the counted row, so the lock is taken first),
    which also marks the entry's purchases refunded: how many it did, for entry_refund."""
    if connection.vendor != "postgresql":
        tournament = _tournament_count(tournament_id, entries=entries, contributions=contributions)
        return tournament, *_entry_end(tournament_id, player=player, now=now)
    ended = connection.ops.adapt_datetimefield_value(now)
    params = [entries, contributions, connection.ops.adapt_datetimefield_value(timezone.now()), tournament_id]
    params += [EntryStatus.UNREGISTERED, ended, tournament_id, player.pk, EntryStatus.ACTIVE, ended]
    with connection.cursor() as cursor:
        cursor.execute(_COUNT_AND_END, params)
        row = cursor.fetchone()
    if row is None:
        raise Tournament.DoesNotExist
    terms = len(REGISTRATION_FIELDS)
    tournament = model_from_row(Tournament, REGISTRATION_FIELDS, row[:terms])
    if row[terms] is None:
        return tournament, None, None
    entry = model_from_row(Entry, ENTRY_FIELDS, row[terms:-1])
    entry.player = player  # the row's own player: spares loading it again
    return tournament, entry, row[-1]


def _entry_end(tournament_id: int, *, player, now: datetime) -> tuple[Entry | None, None]:
    """The player's active entry, unregistered now (None if they hold none); its
    purchases are left for entry_refund to mark refunded (None: how many were marked)."""
    params = [EntryStatus.UNREGISTERED, connection.ops.adapt_datetimefield_value(now)]
    params += [tournament_id, player.pk, EntryStatus.ACTIVE]
    for entry in models_read(Entry, ENTRY_FIELDS, f"{_ENTRY_END} RETURNING {_ENTRY_COLUMNS}", params):
        entry.player = player  # the row's own player: spares loading it again
        return entry, None
    return None, None


_ENTRY_COLUMNS = columns_of(Entry, ENTRY_FIELDS)
_ENTRY_END = (
    f"UPDATE {ENTRY_TABLE} SET status = %s, ended_at = %s"  # noqa: S608 (names from the model)
    " WHERE tournament_id = %s AND player_id = %s AND status = %s"
)
_COUNT_AND_END = (
    f"WITH counted AS (UPDATE {TOURNAMENT_TABLE} SET entries_count = entries_count + %s,"  # noqa: S608 (names from the models)
    " prize_contributions = prize_contributions + %s, updated_at = %s"
    f" WHERE id = %s RETURNING {columns_of(Tournament, REGISTRATION_FIELDS)}),"
    f" ended AS ({_ENTRY_END} AND EXISTS (SELECT 1 FROM counted) RETURNING {_ENTRY_COLUMNS}),"
    f" refunded AS (UPDATE {PURCHASE_TABLE} SET refunded_at = %s"
    " WHERE entry_id IN (SELECT id FROM ended) AND refunded_at IS NULL RETURNING id)"
    " SELECT counted.*, ended.*, (SELECT count(*) FROM refunded) FROM counted LEFT JOIN ended ON true"
)


def entry_rebuy(*, tournament_id: int, player, now: datetime, idempotency_key: str | None = None) -> Purchase:
    """Buy the rebuy's chips during the rebuy period, within the limit, with money in
    the tournament's currency (rule 8)."""
    return entry_chips_buy(
        tournament_id=tournament_id, player=player, now=now, kind=PurchaseKind.REBUY, idempotency_key=idempotency_key
    ).purchases[0]


def entry_addon(*, tournament_id: int, player, now: datetime, idempotency_key: str | None = None) -> Purchase:
    """Take the add-on once, at the end of the rebuy period."""
    return entry_chips_buy(
        tournament_id=tournament_id, player=player, now=now, kind=PurchaseKind.ADDON, idempotency_key=idempotency_key
    ).purchases[0]


def entry_chips_buy(
    *, tournament_id: int, player, now: datetime, kind: str, idempotency_key: str | None = None
) -> Receipt:
    """A rebuy or the add-on (`kind`, see entry_rebuy and entry_addon), with its
    purchase as the receipt's one purchase."""
    idempotency_key = _scoped_key(kind, tournament_id, player, idempotency_key)
    accounts = _accounts_ahead(tournament_id, player)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if idempotency_key:
            earlier = Purchase.objects.filter(idempotency_key=idempotency_key).select_related("entry").first()
            if earlier is not None:
                return Receipt(earlier.entry, [earlier], retry=True)
        entry = (
            Entry.objects.select_for_update().filter(tournament=tournament, player=player, status__in=ENTERED).first()
        )
        if entry is None:
            raise refuse("not_registered")
        entry.player = player  # the row's own player: spares loading it again
        if entry.status == EntryStatus.ELIMINATED:
            raise refuse("eliminated")
        schedule = tournament_schedule(tournament)
        if kind == PurchaseKind.REBUY:
            refusal = rebuy_refusal(
                now=now,
                status=tournament.status,
                rebuy_chips=tournament.rebuy_chips,
                limit=tournament.rebuy_limit,
                rebuys=entry.rebuys,
                period_ends_at=rebuy_period_ends_at(tournament, schedule),
            )
            amounts, chips = (tournament.rebuy_price, tournament.rebuy_fee, 0), tournament.rebuy_chips
        else:
            opens, closes = addon_window(tournament, schedule)
            refusal = addon_refusal(
                now=now,
                status=tournament.status,
                addon_chips=tournament.addon_chips,
                taken=entry.addon_taken,
                opens_at=opens,
                closes_at=closes,
            )
            amounts, chips = (tournament.addon_price, tournament.addon_fee, 0), tournament.addon_chips
        if refusal:
            raise refuse(refusal)
        form = PaymentForm.FREE if sum(amounts) == 0 else PaymentForm.CASH
        purchase = purchase_create(
            tournament=tournament,
            entry=entry,
            kind=kind,
            form=form,
            amounts=amounts,
            chips=chips,
            ticket_id=None,
            idempotency_key=idempotency_key or f"{kind}:{entry.pk}:{entry.rebuys if kind == PurchaseKind.REBUY else 0}",
            now=now,
            accounts=accounts,
        )
        entry.chips += chips
        if kind == PurchaseKind.REBUY:
            entry.rebuys += 1
        else:
            entry.addon_taken = True
        entry.save(update_fields=["chips", "rebuys", "addon_taken"])
        tournament.prize_contributions += purchase.price
        tournament.save(update_fields=["prize_contributions", "updated_at"])
        audit_log(action=f"tournaments.entry.{kind}", subject=entry, actor=player, data={"purchase": purchase.pk})
        _tell(tournament_id, player)
        return Receipt(entry, [purchase])


def _tell(tournament_id: int, player) -> None:
    """Once committed: the event's entrants and pool changed, and so did the player's
    entry. Asked for before the ledger's balances_changed, so that the event's news,
    which names the player, goes first: its receiver learns in one round trip
    whether anyone listens to either."""
    record(TournamentChanged(tournament_id))
    record(EntryChanged(tournament_id, player.pk))


def _scoped_key(kind: str, tournament_id: int, player, key: str | None) -> str | None:
    """A client's key names one request of one player for one purchase in one event."""
    return f"{kind}:{tournament_id}:{player.pk}:{key}" if key else None


def _accounts_ahead(tournament_id: int, player) -> dict[AccountSpec, Account]:
    """The accounts a purchase or refund of `player` in the event may move, read
    before the tournament's lock is taken: every query under it makes the queue of
    other players in the event wait longer."""
    return accounts_around(owner_id=player.pk, ref=f"tournament:{tournament_id}")


def _choose_form(tournament: Tournament, form: str | None, ticket_id: int | None) -> str:
    if tournament.entry_kind == EntryKind.FREEROLL:
        return PaymentForm.FREE
    if ticket_id is not None or form == PaymentForm.TICKET:
        if ticket_id is None:
            raise refuse("no_ticket")
        return PaymentForm.TICKET
    if tournament.entry_kind == EntryKind.TICKET_ONLY:
        raise refuse("ticket_required")
    accepted = {EntryKind.CASH: {PaymentForm.CASH, PaymentForm.TMONEY}, EntryKind.TMONEY: {PaymentForm.TMONEY}}
    chosen = form or (PaymentForm.TMONEY if tournament.entry_kind == EntryKind.TMONEY else PaymentForm.CASH)
    if chosen not in accepted[tournament.entry_kind]:
        raise refuse("form_not_accepted")
    return chosen


PURCHASE_INSERT_FIELDS = tuple(
    field.name for field in Purchase._meta.concrete_fields if not field.primary_key and field.name != "refunded_at"
)


def purchase_create(
    *,
    tournament: Tournament,
    entry: Entry,
    kind: str,
    form: str,
    amounts: tuple[int, int, int],
    chips: int,
    ticket_id: int | None,
    idempotency_key: str,
    now: datetime,
    source_account=None,
    accounts: Mapping[AccountSpec, Account] | None = None,
    audit: Sequence[AuditEntry] = (),
    made: Purchase | None = None,
) -> Purchase:
    """The purchase, and its payment through the ledger; `made`: the purchase as the
    caller wrote it already (with its entry: _count_and_enter), to be paid only."""
    if made is not None:
        return _purchase_pay(tournament, made, source_account, accounts=accounts, audit=audit)
    price, fee, bounty = amounts
    currency = tournament.pool_currency
    ticket = None
    if form == PaymentForm.TICKET:
        try:
            ticket = ticket_reserve(
                ticket_id=ticket_id,
                owner=entry.player,
                tournament_id=tournament.pk,
                value=price + fee,
                currency=currency,
                now=now,
            )
        except WalletError as error:
            raise TournamentError(str(error), "no_ticket") from error
    purchase = Purchase(
        entry=entry,
        kind=kind,
        form=form,
        currency=currency,
        price=price,
        fee=fee,
        bounty=bounty,
        chips=chips,
        ticket=ticket,
        idempotency_key=idempotency_key,
        created_at=timezone.now(),
    )
    try:
        with transaction.mark_for_rollback_on_error():  # as create() does
            ((purchase.pk, _key),) = rows_insert([purchase], PURCHASE_INSERT_FIELDS, returning="idempotency_key")
    except IntegrityError as error:
        raise TournamentError(_("This request was already made."), "duplicate_request") from error
    purchase._state.adding = False
    purchase._state.db = connection.alias
    return _purchase_pay(tournament, purchase, source_account, accounts=accounts, audit=audit)


def _purchase_pay(
    tournament: Tournament,
    purchase: Purchase,
    source_account=None,
    *,
    accounts: Mapping[AccountSpec, Account] | None,
    audit: Sequence[AuditEntry],
) -> Purchase:
    """Pay the purchase just made through the ledger."""
    legs = [
        Leg(source, destination, amount, reason, name)
        for name, source, destination, amount, reason in purchase_legs(
            tournament, purchase, source_account, accounts=accounts
        )
    ]
    try:
        # The keys name the purchase made just now: no earlier transfer can hold them.
        transfers_create(
            legs=legs,
            idempotency_key_prefix=f"purchase:{purchase.pk}",
            actor=purchase.entry.player,
            keys_are_new=True,
            audit=audit,
        )
    except InsufficientFunds as error:
        raise refuse("insufficient_funds") from error
    except WalletError as error:
        raise TournamentError(str(error), error.code) from error
    return purchase


def purchase_legs(
    tournament: Tournament,
    purchase: Purchase,
    source_account=None,
    *,
    accounts: Mapping[AccountSpec, Account] | None = None,
):
    """(leg, source, destination, amount, reason) for each movement that pays a
    purchase; its accounts are taken from `accounts` (read ahead) or read with
    one query."""
    plan = _purchase_plan(tournament, purchase, source_account)
    found = accounts_get(
        (spec for _leg, *ends, _amount, _reason in plan for spec in ends if _is_spec(spec)), known=accounts
    )
    return [
        (leg, found[source] if _is_spec(source) else source, found[destination], amount, reason)
        for leg, source, destination, amount, reason in plan
    ]


def _is_spec(account) -> bool:
    return isinstance(account, AccountSpec)


def _purchase_plan(tournament: Tournament, purchase: Purchase, source_account=None) -> list[tuple]:
    """purchase_legs with AccountSpecs for the accounts (the payer of a satellite
    seat is `source_account` as given)."""
    ref = f"tournament:{tournament.pk}"
    currency = purchase.currency
    player_id = purchase.entry.player_id
    if purchase.form == PaymentForm.FREE:
        return []
    legs = []
    if purchase.form == PaymentForm.CASH:
        payer = wallet_account_spec(player_id, currency)
    elif purchase.form == PaymentForm.TMONEY and currency != Currency.TMONEY:
        # The room takes the T-Money and pays the prize pool in the event's currency.
        legs.append(
            (
                "tmoney",
                wallet_account_spec(player_id, Currency.TMONEY),
                house_account_spec(Currency.TMONEY),
                purchase.total,
                TransferReason.TMONEY_CONVERSION,
            )
        )
        payer = house_account_spec(currency)
    elif purchase.form == PaymentForm.TMONEY:
        payer = wallet_account_spec(player_id, Currency.TMONEY)
    elif purchase.form == PaymentForm.SEAT:
        payer = source_account
    else:  # a ticket: the room pays the entry it issued the ticket for
        payer = house_account_spec(currency)
    reason = {PurchaseKind.ENTRY: TransferReason.BUY_IN, PurchaseKind.REBUY: TransferReason.REBUY}.get(
        purchase.kind, TransferReason.ADDON
    )
    for leg, kind, amount, why in (
        ("pool", AccountKind.PRIZE_POOL, purchase.price, reason),
        ("fee", AccountKind.FEES, purchase.fee, TransferReason.FEE),
        ("bounty", AccountKind.BOUNTIES, purchase.bounty, TransferReason.BOUNTY),
    ):
        if amount:
            legs.append((leg, payer, AccountSpec(kind, currency, ref=ref), amount, why))
    return legs


def entry_refund(
    *,
    tournament: Tournament,
    entry: Entry,
    now: datetime,
    accounts: Mapping[AccountSpec, Account] | None = None,
    purchases: list[Purchase] | None = None,
    audit: Sequence[AuditEntry] = (),
    marked: int | None = None,
) -> int:
    """Reverse every purchase of the entry in the form it was paid; returns what
    left the prize pool. The caller holds the tournament's row lock.

    The refunds of all its purchases are one batch of the ledger (one lock over
    every account, in id order), each transfer keyed f"purchase:{id}:refund:{leg}";
    the accounts come from `accounts` (read ahead) or one query. `purchases`: the
    entry's unrefunded purchases as read before the lock; if they are no longer
    all there is to refund, _StaleRead. `audit`: the caller's rows for the ledger
    to write with its own (see transfers_create). `marked`: how many of the entry's
    purchases the caller marked refunded already (_entry_end), else they are marked here.
    """
    if purchases is None:
        purchases = list(entry.purchases.filter(refunded_at=None).order_by("pk"))
    if any(purchase.entry_id != entry.pk for purchase in purchases):
        raise _StaleRead
    for purchase in purchases:
        purchase.entry = entry  # the row's own entry: spares loading it again
    plan = [(purchase.pk, *leg) for purchase in purchases for leg in _refund_plan(tournament, purchase)]
    found = accounts_get((spec for _pk, _leg, *ends, _amount in plan for spec in ends), known=accounts)
    # Under the tournament's lock an unrefunded purchase has no refund transfers yet.
    transfers_create(
        legs=[
            Leg(found[source], found[destination], amount, TransferReason.REFUND, f"{pk}:refund:{leg}")
            for pk, leg, source, destination, amount in plan
        ],
        idempotency_key_prefix="purchase",
        actor=entry.player,
        keys_are_new=True,
        audit=audit,
    )
    for purchase in purchases:
        if purchase.ticket_id is not None:
            ticket_release(ticket_id=purchase.ticket_id)
        purchase.refunded_at = now
    # Every purchase only an entry's end refunds: while the entry is active, one
    # unrefunded more than were read would be one bought since.
    if marked is None:
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {PURCHASE_TABLE} SET refunded_at = %s WHERE entry_id = %s AND refunded_at IS NULL",  # noqa: S608 (names from the model)
                [connection.ops.adapt_datetimefield_value(now), entry.pk],
            )
            marked = cursor.rowcount
    if marked != len(purchases):
        raise _StaleRead
    return sum(purchase.price for purchase in purchases)


def _refund_plan(tournament: Tournament, purchase: Purchase) -> list[tuple]:
    """(leg, source, destination, amount) that reverse `purchase`, as AccountSpecs."""
    seat = purchase.form == PaymentForm.SEAT
    plan = [
        # A satellite seat's money goes to the house, not back to the satellite's pool.
        (leg, destination, house_account_spec(purchase.currency) if seat else source, amount)
        for leg, source, destination, amount, _reason in _purchase_plan(tournament, purchase)
    ]
    if seat:
        # A satellite seat is never refunded as cash (rule 10): T-Money of its value.
        plan.append(
            (
                "seat",
                house_account_spec(Currency.TMONEY),
                wallet_account_spec(purchase.entry.player_id, Currency.TMONEY),
                purchase.total,
            )
        )
    return plan


def seat_source(entry: Entry, purchase: Purchase):
    if purchase.form != PaymentForm.SEAT or entry.won_in_id is None:
        return None
    return account_get(kind=AccountKind.PRIZE_POOL, currency=purchase.currency, ref=f"tournament:{entry.won_in_id}")
