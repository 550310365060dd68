import dataclasses
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.rules.integrity import SignalKind as SignalKindRule
from tournaments.rules.payouts import PrizeStructure as PrizeStructureRule
from tournaments.rules.pricing import BountyKindRule, EntryKindRule, EntryPrice, entry_price, pool_currency
from tournaments.rules.schedule import BreakKind, Level
from tournaments.rules.validation import EventTerms, TargetEvent, event_problems
from wallet.models import Currency


class Game(models.TextChoices):
    HOLDEM = "holdem", _("Hold'em")
    OMAHA = "omaha", _("Omaha")
    OMAHA_HILO = "omaha_hilo", _("Omaha Hi/Lo 8 or better")


class BettingStructure(models.TextChoices):
    NO_LIMIT = "nl", _("No Limit")
    POT_LIMIT = "pl", _("Pot Limit")
    FIXED_LIMIT = "fl", _("Fixed Limit")


class EntryKind(models.TextChoices):
    CASH = EntryKindRule.CASH.value, _("Buy-in")
    TMONEY = EntryKindRule.TMONEY.value, _("T-Money")
    FREEROLL = EntryKindRule.FREEROLL.value, _("Freeroll")
    TICKET_ONLY = EntryKindRule.TICKET_ONLY.value, _("Ticket only")


class ExtraTimeStage(models.TextChoices):
    """Rule 18.2: from when disconnect extra time is given."""

    START = "start", _("The start")
    FINAL_TWO_TABLES = "final_two_tables", _("The final two tables")
    IN_THE_MONEY = "in_the_money", _("In the money")


class CrashPolicy(models.TextChoices):
    """Rule 22: what a hand stalled by a lost server process does."""

    PLAY_ON = "play_on", _("The hand goes on from its record")
    ROLL_BACK = "roll_back", _("The hand is rolled back and dealt again")


class BreakPolicyKind(models.TextChoices):
    NONE = BreakKind.NONE.value, _("No breaks")
    SYNCHRONISED = BreakKind.SYNCHRONISED.value, _("Synchronised at :55")
    INTERVAL = BreakKind.INTERVAL.value, _("Every N minutes of play")


class PrizeStructure(models.TextChoices):
    STANDARD = PrizeStructureRule.STANDARD.value, _("Standard (about 15% paid)")
    TOP_HEAVY = PrizeStructureRule.TOP_HEAVY.value, _("Top heavy (about 10% paid)")
    FLAT = PrizeStructureRule.FLAT.value, _("Flat (about 20% paid)")
    WINNER_TAKES_ALL = PrizeStructureRule.WINNER_TAKES_ALL.value, _("Winner takes all")
    SATELLITE = PrizeStructureRule.SATELLITE.value, _("Satellite seats")


class BountyKind(models.TextChoices):
    NONE = BountyKindRule.NONE.value, _("None")
    KNOCKOUT = BountyKindRule.KNOCKOUT.value, _("Knockout")
    PROGRESSIVE = BountyKindRule.PROGRESSIVE.value, _("Progressive knockout")
    TEAM_PRO = BountyKindRule.TEAM_PRO.value, _("Team Pro bounty")
    FIXED = BountyKindRule.FIXED.value, _("Fixed bounty")


class Speed(models.TextChoices):
    REGULAR = "regular", _("Regular")
    TURBO = "turbo", _("Turbo")
    HYPER = "hyper", _("Hyper-turbo")


class Status(models.TextChoices):
    ANNOUNCED = "announced", _("Announced")
    REGISTERING = "registering", _("Registering")
    LATE_REGISTRATION = "late_registration", _("Late registration")
    RUNNING = "running", _("Running")
    ON_BREAK = "on_break", _("On break")
    PAUSED = "paused", _("Paused")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


# Under way: the tables play (or wait for a break, a pause or a deal to end).
UNDER_WAY = (Status.LATE_REGISTRATION, Status.RUNNING, Status.ON_BREAK, Status.PAUSED)


class BlindStructure(models.Model):
    """A reusable blind structure: ordered levels."""

    name = models.CharField(_("name"), max_length=80, unique=True)
    description = models.CharField(_("description"), max_length=200, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def rule_levels(self) -> list[Level]:
        return [level.as_rule() for level in self.levels.all()]


class AnteKind(models.TextChoices):
    EACH = "each", _("every player")
    BIG_BLIND = "big_blind", _("big blind ante")


def rule_level(fields: Sequence[Any]) -> Level:
    """The rules' Level of a stored level's RULE_FIELDS, in their order."""
    small_blind, big_blind, ante, minutes, seconds, ante_kind = fields
    return Level(small_blind, big_blind, ante, minutes, seconds, big_blind_ante=ante_kind == AnteKind.BIG_BLIND)


class BlindLevel(models.Model):
    structure = models.ForeignKey(BlindStructure, on_delete=models.CASCADE, related_name="levels")
    position = models.PositiveSmallIntegerField(_("level"))
    small_blind = models.PositiveBigIntegerField(_("small blind"))
    big_blind = models.PositiveBigIntegerField(_("big blind"))
    ante = models.PositiveBigIntegerField(_("ante"), default=0)
    # Who posts the ante: every player, or the big blind for the whole table (dead money).
    ante_kind = models.CharField(_("ante posted by"), max_length=16, choices=AnteKind.choices, default=AnteKind.EACH)
    minutes = models.PositiveSmallIntegerField(_("minutes"))
    # For the short levels of tests and demonstrations; a room's levels are whole minutes.
    seconds = models.PositiveSmallIntegerField(_("seconds"), default=0, validators=[MaxValueValidator(59)])

    class Meta:
        ordering = ["structure_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["structure", "position"], name="blind_level_unique_position"),
            models.CheckConstraint(condition=Q(big_blind__gt=models.F("small_blind")), name="big_blind_above_small"),
            models.CheckConstraint(condition=Q(minutes__gt=0) | Q(seconds__gt=0), name="level_lasts"),
        ]

    def __str__(self) -> str:
        return f"{self.position}: {self.small_blind}/{self.big_blind}"

    @property
    def big_blind_ante(self) -> bool:
        return self.ante_kind == AnteKind.BIG_BLIND

    # A rules Level's fields, in its order (the ante's kind last, as a flag).
    RULE_FIELDS = ("small_blind", "big_blind", "ante", "minutes", "seconds", "ante_kind")

    def as_rule(self) -> Level:
        return rule_level([getattr(self, name) for name in self.RULE_FIELDS])

    def clean(self):
        # Field errors here keep the form from also showing the constraint's bare name.
        errors = {}
        if self.small_blind == 0:
            errors["small_blind"] = _("The small blind must be above 0.")
        if self.small_blind is not None and self.big_blind is not None and self.big_blind <= self.small_blind:
            errors["big_blind"] = _("The big blind must be larger than the small blind.")
        if self.minutes == 0 and not self.seconds:
            errors["minutes"] = _("A level lasts at least one minute.")
        if errors:
            raise ValidationError(errors)


# The parameters the rules judge (rules.validation), read from the fields of the same names.
EVENT_TERMS = tuple(term.name for term in dataclasses.fields(EventTerms))
# What each problem the rules find tells the admin, in the admin's language.
EVENT_PROBLEMS = {
    "start_in_past": _("A new event must start in the future."),
    "opens_after_start": _("Registration must open before the scheduled start."),
    "min_entrants": _("A tournament needs at least 2 entrants."),
    "max_below_min": _("The maximum cannot be below the minimum number of entrants (%(minimum)s)."),
    "heads_up_table_size": _("A heads-up event seats 2 players per table."),
    "cash_currency": _("A buy-in is paid in real money: choose a currency other than T-Money."),
    "tmoney_currency": _("A T-Money entry is paid in T-Money: choose T-Money."),
    "buy_in_zero": _("A paid entry needs a buy-in above 0; make it a freeroll for free entry."),
    "freeroll_buy_in": _("A freeroll has no buy-in."),
    "freeroll_fee": _("A freeroll has no fee."),
    "break_minutes": _("A break lasts at least one minute."),
    "break_interval_minutes": _("Breaks every N minutes of play need N above 0."),
    "addon_break_policy": _("An add-on break is only possible with breaks synchronised at :55 (rule 17)."),
    "addon_break": _("An add-on break needs an add-on: set the add-on chips."),
    "addon_break_period": _("The add-on break comes when the rebuy period ends: set the rebuy period (levels)."),
    "rebuy_period": _("Rebuys need a rebuy period of at least one level."),
    "rebuy_price": _("Rebuys in a paid event need a price above 0."),
    "rebuy_chips": _("A rebuy price or fee needs rebuy chips."),
    "addon_price": _("An add-on in a paid event needs a price above 0."),
    "addon_chips": _("An add-on price or fee needs add-on chips."),
    "satellite_self": _("A satellite cannot be its own target."),
    "satellite_target_start": _("The target event must start after this satellite starts."),
    "seats_without_target": _("Guaranteed seats need a satellite target."),
    "seats_prize_structure": _("Guaranteed seats need the prize structure “%(structure)s”."),
    "satellite_structure_without_target": _("Satellite seats are seats in another event: choose the satellite target."),
    "bounty_amount": _("A bounty event needs a bounty amount above 0."),
    "no_bounty": _("Without a bounty the bounty amount must be 0; or choose the bounty type."),
    "deal_leave_without_deals": _("An amount left for the winner only applies when deals are allowed (rule 23.5)."),
    "extended_late_registration": _(
        "Extended late registration must be longer than late registration (%(minutes)s minutes)."
    ),
}
# Names the messages cite, beside the figures the rules give.
MESSAGE_LABELS = {"structure": PrizeStructure.SATELLITE.label}


class SitAndGo(models.Model):
    """A Sit & Go: the template of events that start when their seats are full, not at
    a time. One of its events is always open (tournaments.services.sit_and_go): the
    moment one fills it starts, and the next is opened."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    active = models.BooleanField(_("open for registration"), default=True)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices, default=Game.HOLDEM)
    betting = models.CharField(
        _("betting structure"), max_length=2, choices=BettingStructure.choices, default=BettingStructure.NO_LIMIT
    )
    entry_kind = models.CharField(_("entry"), max_length=12, choices=EntryKind.choices, default=EntryKind.CASH)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices, default=Currency.EUR)
    buy_in = models.PositiveBigIntegerField(_("buy-in"), default=0)
    fee = models.PositiveBigIntegerField(_("fee"), default=0)
    starting_stack = models.PositiveBigIntegerField(_("starting stack"), default=1500)
    table_size = models.PositiveSmallIntegerField(
        _("players per table"), default=6, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    tables = models.PositiveSmallIntegerField(
        _("tables"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text=_("More than one: a multi-table Sit & Go."),
    )
    blind_structure = models.ForeignKey(
        BlindStructure, on_delete=models.PROTECT, related_name="sit_and_gos", verbose_name=_("blind structure")
    )
    prize_structure = models.CharField(
        _("prize structure"), max_length=20, choices=PrizeStructure.choices, default=PrizeStructure.STANDARD
    )
    heads_up = models.BooleanField(_("heads-up"), default=False)
    shootout = models.BooleanField(
        _("shootout"), default=False, help_text=_("Each table plays to one winner, who advances (rule 18.5).")
    )
    action_seconds = models.PositiveSmallIntegerField(
        _("seconds to act"), default=15, validators=[MinValueValidator(3), MaxValueValidator(120)]
    )
    deals_allowed = models.BooleanField(_("deals allowed"), default=True)
    leader_board = models.BooleanField(
        _("counts for the Sit & Go Leader Board"), default=True, help_text=_("Its finishes earn points.")
    )

    class Meta:
        ordering = ["buy_in", "name"]
        verbose_name = _("Sit & Go")
        verbose_name_plural = _("Sit & Gos")
        constraints = [
            models.CheckConstraint(condition=Q(table_size__gte=2) & Q(table_size__lte=10), name="sng_table_size"),
            models.CheckConstraint(condition=Q(tables__gte=1), name="sng_tables_at_least_one"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def seats(self) -> int:
        return self.table_size * self.tables

    def clean(self):
        errors = {}
        if self.heads_up and self.table_size != 2:
            errors["table_size"] = _("A heads-up Sit & Go seats 2 players per table.")
        if self.shootout and self.tables < 2:
            errors["tables"] = _("A shootout needs at least two tables.")
        if self.entry_kind == EntryKind.FREEROLL and (self.buy_in or self.fee):
            errors["buy_in"] = _("A freeroll has no buy-in.")
        elif self.entry_kind != EntryKind.FREEROLL and not self.buy_in:
            errors["buy_in"] = _("A paid entry needs a buy-in above 0; make it a freeroll for free entry.")
        if errors:
            raise ValidationError(errors)


class TournamentQuerySet(models.QuerySet):
    def locked(self, *, skip_locked: bool = False) -> "TournamentQuerySet":
        """The events' rows locked for a change of the event, by every service that
        changes one: its "row lock". FOR NO KEY UPDATE, which a new row that refers
        to the event (an entry, with its foreign key's key-share lock) does not wait
        for: a registration writes its entry, purchase and transfers before it takes
        the lock (tournaments.services.entries)."""
        return self.select_for_update(of=("self",), no_key=True, skip_locked=skip_locked)


class Tournament(models.Model):
    """An event as the lobby and Tournament Info show it (rule 3)."""

    name = models.CharField(_("name"), max_length=120)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices, default=Game.HOLDEM)
    betting = models.CharField(
        _("betting structure"), max_length=2, choices=BettingStructure.choices, default=BettingStructure.NO_LIMIT
    )
    speed = models.CharField(_("speed"), max_length=8, choices=Speed.choices, default=Speed.REGULAR)
    deepstack = models.BooleanField(_("deepstack"), default=False)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.ANNOUNCED)

    # Entry: buy-in to the prize pool, fee to the house, in minor units.
    entry_kind = models.CharField(_("entry"), max_length=12, choices=EntryKind.choices, default=EntryKind.CASH)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices, default=Currency.EUR)
    buy_in = models.PositiveBigIntegerField(_("buy-in"), default=0)
    fee = models.PositiveBigIntegerField(_("fee"), default=0)

    starting_stack = models.PositiveBigIntegerField(_("starting stack"), default=10000)
    table_size = models.PositiveSmallIntegerField(
        _("players per table"), default=9, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    min_entrants = models.PositiveIntegerField(_("minimum entrants"), default=2)
    max_entrants = models.PositiveIntegerField(_("maximum entrants"), default=1000)

    scheduled_start = models.DateTimeField(_("scheduled start"), db_index=True)
    registration_opens_at = models.DateTimeField(
        _("registration opens"), null=True, blank=True, help_text=_("Empty: as soon as the event is announced.")
    )
    blind_structure = models.ForeignKey(
        BlindStructure, on_delete=models.PROTECT, related_name="tournaments", verbose_name=_("blind structure")
    )

    # Breaks (rule 17).
    break_policy = models.CharField(
        _("breaks"), max_length=16, choices=BreakPolicyKind.choices, default=BreakPolicyKind.SYNCHRONISED
    )
    break_minutes = models.PositiveSmallIntegerField(_("break length (minutes)"), default=5)
    break_interval_minutes = models.PositiveSmallIntegerField(_("minutes of play between breaks"), default=60)
    # Seconds on top of the minutes, for the short clocks of tests and demonstrations.
    break_seconds = models.PositiveSmallIntegerField(default=0, validators=[MaxValueValidator(59)])
    break_interval_seconds = models.PositiveSmallIntegerField(default=0, validators=[MaxValueValidator(59)])
    addon_break_minutes = models.PositiveSmallIntegerField(
        _("add-on break (minutes)"), default=0, help_text=_("Synchronised breaks: extra break when rebuys end.")
    )

    # Late registration (rule 9) and unregistration (rule 10).
    late_registration_minutes = models.PositiveSmallIntegerField(_("late registration (minutes)"), default=20)
    extended_late_registration_minutes = models.PositiveSmallIntegerField(
        _("extended late registration (minutes)"), null=True, blank=True
    )
    late_registration_closes_at_first_elimination = models.BooleanField(
        _("late registration closes at the first elimination"), default=False
    )
    unregistration_deadline_minutes = models.PositiveSmallIntegerField(
        _("unregistration closes (minutes before start)"), default=5
    )
    unregistration_allowed = models.BooleanField(_("unregistration allowed"), default=True)

    # Rebuys and add-on: the price goes to the prize pool, the fee to the house.
    rebuy_price = models.PositiveBigIntegerField(_("rebuy price"), default=0)
    rebuy_fee = models.PositiveBigIntegerField(_("rebuy fee"), default=0)
    rebuy_chips = models.PositiveBigIntegerField(_("rebuy chips"), default=0)
    rebuy_limit = models.PositiveSmallIntegerField(_("rebuys per player"), null=True, blank=True)
    rebuy_levels = models.PositiveSmallIntegerField(_("rebuy period (levels)"), default=0)
    addon_price = models.PositiveBigIntegerField(_("add-on price"), default=0)
    addon_fee = models.PositiveBigIntegerField(_("add-on fee"), default=0)
    addon_chips = models.PositiveBigIntegerField(_("add-on chips"), default=0)

    # Prizes (rule 7) and bounties (rules 24-28).
    prize_structure = models.CharField(
        _("prize structure"), max_length=20, choices=PrizeStructure.choices, default=PrizeStructure.STANDARD
    )
    guarantee = models.PositiveBigIntegerField(_("guaranteed prize pool"), default=0)
    bounty_kind = models.CharField(_("bounty"), max_length=12, choices=BountyKind.choices, default=BountyKind.NONE)
    bounty_amount = models.PositiveBigIntegerField(_("bounty amount"), default=0)
    # Fixed bounty: the named players carry the bounty, paid by the room (rule 28: only if they play).
    bounty_players = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="bounties_on_head",
        verbose_name=_("bounty players"),
        help_text=_("Fixed bounty events: the named players who carry the bounty."),
    )
    pko_cash_percent = models.PositiveSmallIntegerField(
        _("progressive knockout: share paid in cash (%)"),
        default=50,
        validators=[MaxValueValidator(100)],
        help_text=_("Of each bounty won; the rest is added to the winner's own bounty."),
    )

    # Satellites (rule 10): seats into another event.
    satellite_target = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="satellites",
        verbose_name=_("satellite target"),
    )
    satellite_seats = models.PositiveIntegerField(_("guaranteed seats"), default=0)

    # Deals (rule 23).
    deals_allowed = models.BooleanField(_("deals allowed"), default=True)
    deal_leave_for_winner = models.PositiveBigIntegerField(_("amount left for the winner in a deal"), default=0)
    deal_paid_at_bust = models.BooleanField(
        _("deal amounts paid as each player is out"), default=False, help_text=_("Otherwise all at the end.")
    )
    # A chop negotiation has stopped the clock (rule 23.3): pages say so.
    deal_in_progress = models.BooleanField(_("deal in progress"), default=False, editable=False)
    # The deal made (rule 23.1), written by the deals app (each entry's amount on the
    # entry): what is left to play for, the winner's on top; None without a deal.
    deal_play_for = models.PositiveBigIntegerField(_("left to play for in the deal"), null=True, editable=False)

    # The floor (rules 5, 11, 13).
    dead_button = models.BooleanField(
        _("dead button"), default=False, help_text=_("The live rule: the big blind moves on, the button may be dead.")
    )
    hand_for_hand_at = models.JSONField(
        _("hand-for-hand also at"),
        default=list,
        blank=True,
        help_text=_("Players left at which every table plays hand-for-hand, beside the bubble, e.g. [10, 19]."),
    )
    # Rule 18: the player to act has the action time, then his time bank, which
    # refills by the refill each level up to its starting size.
    action_seconds = models.PositiveSmallIntegerField(
        _("seconds to act"), default=15, validators=[MinValueValidator(3), MaxValueValidator(120)]
    )
    time_bank_seconds = models.PositiveSmallIntegerField(
        _("time bank (seconds)"), default=30, validators=[MaxValueValidator(600)]
    )
    time_bank_refill_seconds = models.PositiveSmallIntegerField(
        _("time bank refill each level (seconds)"), default=5, validators=[MaxValueValidator(600)]
    )
    # Rule 18.2: a player disconnected when his time runs out gets this once, from a stage on.
    disconnect_extra_seconds = models.PositiveSmallIntegerField(
        _("disconnect extra time (seconds)"),
        default=0,
        validators=[MaxValueValidator(600)],
        help_text=_(
            "Real-money events: once per tournament, a player whose connection is lost when his time runs out "
            "gets this much more before the time-out acts. 0: none."
        ),
    )
    disconnect_extra_from = models.CharField(
        _("disconnect extra time from"),
        max_length=16,
        choices=ExtraTimeStage.choices,
        default=ExtraTimeStage.IN_THE_MONEY,
    )
    # Rule 22: a hand whose turn stalled well past its deadline lost its worker.
    crash_policy = models.CharField(
        _("after a server problem"),
        max_length=9,
        choices=CrashPolicy.choices,
        default=CrashPolicy.PLAY_ON,
        help_text=_(
            "What happens to a hand stalled by a lost server process: it goes on from its record, "
            "or it is rolled back and dealt again (every player's chips as they were at its start)."
        ),
    )
    ends_when_prizes_equal = models.BooleanField(
        _("ends when every player left wins the same"),
        default=False,
        help_text=_("For satellites whose seats are all alike (rule 11)."),
    )

    heads_up = models.BooleanField(_("heads-up"), default=False)
    shootout = models.BooleanField(
        _("shootout"),
        default=False,
        help_text=_("Each table plays to one winner, without balancing; the winners are drawn to the next round."),
    )
    leader_board = models.BooleanField(
        _("counts for the Leader Board"),
        default=True,
        help_text=_("Its finishes earn Leader Board points (the Sit & Go board for a Sit & Go's event)."),
    )
    # A Sit & Go's event: it starts when its seats are full (max_entrants), not at
    # scheduled_start, which stays far ahead until then.
    sit_and_go = models.ForeignKey(
        SitAndGo,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="events",
        verbose_name=_("Sit & Go"),
        editable=False,
    )
    idle_hands_limit = models.PositiveIntegerField(
        _("idle hands that end a match"),
        default=250,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Shootout and heads-up events (rule 18.5): a table where every player has been sitting out or "
            "disconnected for this many hands in a row ends; the player with most chips advances."
        ),
    )

    # Kept by the registration services under the tournament's row lock.
    entries_count = models.PositiveIntegerField(_("entrants"), default=0)
    prize_contributions = models.PositiveBigIntegerField(_("prize pool contributions"), default=0)
    # Instants of what happened, stored by the services that made it happen.
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    late_registration_closed_at = models.DateTimeField(
        _("late registration closed early"),
        null=True,
        blank=True,
        help_text=_("Full at the start, or first elimination."),
    )
    first_elimination_at = models.DateTimeField(_("first elimination"), null=True, blank=True)
    payouts_locked_at = models.DateTimeField(_("payouts locked"), null=True, blank=True)
    postponed_from = models.DateTimeField(_("first announced start"), null=True, blank=True)

    # The clock (rules 2, 17), kept by tournament_advance: what has happened, and
    # what it means now, so that pages read a countdown without computing it.
    # Times the clock stood still, as [start, end] ISO instants: pauses, and waits
    # for the last table to finish its hand before a break.
    clock_stops = models.JSONField(default=list, blank=True, editable=False)
    paused_at = models.DateTimeField(_("paused"), null=True, blank=True, editable=False)
    pause_reason = models.CharField(_("reason for the pause"), max_length=200, blank=True, editable=False)
    # A break is due and the clock has stopped; it begins when the last table has finished its hand.
    break_pending_since = models.DateTimeField(null=True, blank=True, editable=False)
    # Every transition up to this instant has been applied.
    clock_at = models.DateTimeField(null=True, blank=True, editable=False)
    level = models.PositiveSmallIntegerField(_("level"), default=0, editable=False)
    level_ends_at = models.DateTimeField(null=True, blank=True, editable=False)
    break_ends_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The floor engine's own state between hands (tournaments.services.floor).
    hand_for_hand = models.BooleanField(_("hand-for-hand"), default=False, editable=False)
    floor_state = models.JSONField(default=dict, blank=True, editable=False)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True, editable=False)
    # When the clock next changes something; None when nothing is scheduled (paused,
    # or over). A new event is due for a first look at once.
    next_transition_at = models.DateTimeField(null=True, blank=True, editable=False, default=timezone.now)
    # The instant for which a Celery task has been queued to apply it.
    tick_at = models.DateTimeField(null=True, blank=True, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TournamentQuerySet.as_manager()

    class Meta:
        ordering = ["scheduled_start", "id"]
        # What staff do to an event without configuring it (admins change it).
        permissions = [("run_tournament", _("Can pause, resume, cancel and postpone a tournament"))]
        indexes = [
            models.Index(fields=["status", "scheduled_start"]),
            # Events still to play or in play, by start: the default lobby finds the
            # oldest of them here (tournaments.forms.IN_PLAY) without reading history.
            models.Index(
                fields=["scheduled_start"],
                condition=~Q(status__in=[Status.FINISHED, Status.CANCELLED]),
                name="tournament_in_play_by_start",
            ),
            # The clock's sweep: live events whose next transition is due soon.
            models.Index(
                fields=["next_transition_at"],
                condition=~Q(status__in=[Status.FINISHED, Status.CANCELLED]),
                name="tournament_clock_due",
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(table_size__gte=2) & Q(table_size__lte=10), name="table_size_2_to_10"),
            # One event of a Sit & Go open at a time: the one whose seats are not all taken.
            models.UniqueConstraint(
                fields=["sit_and_go"],
                condition=Q(started_at__isnull=True, entries_count__lt=models.F("max_entrants"))
                & ~Q(status=Status.CANCELLED),
                name="one_open_event_per_sit_and_go",
            ),
            models.CheckConstraint(
                condition=Q(max_entrants__gte=models.F("min_entrants")), name="max_entrants_at_least_min"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        """The parameters must describe one event the room can run (rule 3); each
        problem is attached to the field an admin has to change."""
        target = self.satellite_target if self.satellite_target_id else None
        terms = EventTerms(
            **{name: getattr(self, name) for name in EVENT_TERMS if name != "satellite_target"},
            satellite_target=TargetEvent(target.pk, target.scheduled_start) if target else None,
        )
        errors: dict[str, list[ValidationError]] = {}
        for problem in event_problems(terms, now=timezone.now()):
            error = ValidationError(
                EVENT_PROBLEMS[problem.code], code=problem.code, params={**MESSAGE_LABELS, **problem.params}
            )
            errors.setdefault(problem.field, []).append(error)
        if errors:
            raise ValidationError(errors)

    @property
    def prize_pool(self) -> int:
        return max(self.prize_contributions, self.guarantee)

    @property
    def pool_currency(self) -> str:
        """The money the pool, prizes and entries are kept in (T-Money for a T-Money event)."""
        return pool_currency(entry_kind=self.entry_kind, currency=self.currency)

    @property
    def entry_price(self) -> EntryPrice:
        return entry_price(
            entry_kind=self.entry_kind,
            buy_in=self.buy_in,
            fee=self.fee,
            bounty_kind=self.bounty_kind,
            bounty_amount=self.bounty_amount,
        )

    @property
    def waits_for_tables(self) -> bool:
        """Whether the room waits for hands in play to end: a break due (rule 17), or
        hand-for-hand play."""
        return self.break_pending_since is not None or self.hand_for_hand

    @property
    def is_rebuy(self) -> bool:
        return self.rebuy_chips > 0

    @property
    def has_addon(self) -> bool:
        return self.addon_chips > 0

    @property
    def tags(self) -> list[str]:
        return tournament_tags(
            bounty_kind=self.bounty_kind,
            satellite_target_id=self.satellite_target_id,
            rebuy_chips=self.rebuy_chips,
            speed=self.speed,
            heads_up=self.heads_up,
            deepstack=self.deepstack,
        )


class Tag(models.TextChoices):
    KNOCKOUT = "knockout", _("Knockout")
    SATELLITE = "satellite", _("Satellite")
    REBUY = "rebuy", _("Rebuy")
    TURBO = "turbo", _("Turbo")
    HYPER = "hyper", _("Hyper-turbo")
    HEADS_UP = "heads_up", _("Heads-up")
    DEEPSTACK = "deepstack", _("Deepstack")


TAG_FILTERS = {
    Tag.KNOCKOUT: ~Q(bounty_kind=BountyKind.NONE),
    Tag.SATELLITE: Q(satellite_target__isnull=False),
    Tag.REBUY: Q(rebuy_chips__gt=0),
    Tag.TURBO: Q(speed__in=[Speed.TURBO, Speed.HYPER]),
    Tag.HYPER: Q(speed=Speed.HYPER),
    Tag.HEADS_UP: Q(heads_up=True),
    Tag.DEEPSTACK: Q(deepstack=True),
}


def tournament_tags(*, bounty_kind, satellite_target_id, rebuy_chips, speed, heads_up, deepstack) -> list[str]:
    """The lobby's tags, from the fields TAG_FILTERS query on."""
    tags: list[str] = []
    if bounty_kind != BountyKind.NONE:
        tags.append(Tag.KNOCKOUT)
    if satellite_target_id:
        tags.append(Tag.SATELLITE)
    if rebuy_chips:
        tags.append(Tag.REBUY)
    if speed == Speed.HYPER:
        tags.append(Tag.HYPER)
    elif speed == Speed.TURBO:
        tags.append(Tag.TURBO)
    if heads_up:
        tags.append(Tag.HEADS_UP)
    if deepstack:
        tags.append(Tag.DEEPSTACK)
    return tags


class EntryStatus(models.TextChoices):
    ACTIVE = "active", _("Registered")
    ELIMINATED = "eliminated", _("Eliminated")
    UNREGISTERED = "unregistered", _("Unregistered")
    REFUNDED = "refunded", _("Refunded (cancelled)")


# A player holds at most one entry in these statuses (rule 9: one entry, no re-entry).
ENTERED = [EntryStatus.ACTIVE, EntryStatus.ELIMINATED]


# The clock's own fields (tournaments.services.clock): what stopped it, and what it reads now.
CLOCK_STATE = (
    "clock_stops",
    "paused_at",
    "pause_reason",
    "break_pending_since",
    "clock_at",
    "level",
    "level_ends_at",
    "break_ends_at",
)


class Table(models.Model):
    """A table of a tournament (rules 4, 5, 16): its players are the entries seated at it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="tables")
    number = models.PositiveSmallIntegerField(_("table"))
    # The seats of the button and blinds of the hand in play or last played; with
    # the dead button the small blind's may be empty.
    button = models.PositiveSmallIntegerField(null=True, blank=True)
    small_blind = models.PositiveSmallIntegerField(null=True, blank=True)
    big_blind = models.PositiveSmallIntegerField(null=True, blank=True)
    hands = models.PositiveIntegerField(default=0)
    playing = models.BooleanField(default=False)  # a hand is in play
    synchronised = models.BooleanField(default=False)  # ... dealt hand-for-hand
    held = models.BooleanField(default=False)  # waiting for a break, hand-for-hand or the final table
    # Rule 18.5: hands in a row in which every player was sitting out or disconnected.
    idle_hands = models.PositiveIntegerField(default=0)
    broken_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # By the column, not the event: ordering by a foreign key follows its model's
        # ordering, a join on every read of tables that names no order of its own.
        ordering = ["tournament_id", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="table_number_unique")]

    def __str__(self) -> str:
        return f"{self.tournament} table {self.number}"


class PrizeHold(models.TextChoices):
    """Rule 20: where an entry's withheld prize stands."""

    NONE = "", _("Not withheld")
    WITHHELD = "withheld", _("Withheld for review")
    PAID = "paid", _("Paid after review")
    CONFISCATED = "confiscated", _("Confiscated after review")


class Entry(models.Model):
    """A player's one entry in a tournament (rule 9). Unregistered entries stay as
    history; the player may register again."""

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="entries")
    # Indexed by (player, status): every registration writes an entry, and an
    # unregistration a new version of its indexed row.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="entries", db_index=False
    )
    status = models.CharField(max_length=14, choices=EntryStatus.choices, default=EntryStatus.ACTIVE)
    # The satellite whose result created this entry (rule 10: refunded as T-Money, never cash).
    won_in = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.PROTECT, related_name="seats_awarded"
    )
    chips = models.PositiveBigIntegerField(default=0)
    rebuys = models.PositiveSmallIntegerField(default=0)
    addon_taken = models.BooleanField(default=False)
    late = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Where the floor engine seated the entry (tournaments.services.floor); the balancing
    # moves it counts prefer a player moved fewer times (rule 16).
    # Indexed by one_per_seat (table, seat), for the seated entries: the only ones it finds.
    table = models.ForeignKey(
        Table, null=True, blank=True, on_delete=models.PROTECT, related_name="entries", db_index=False
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    times_moved = models.PositiveSmallIntegerField(default=0, db_default=0)
    # The places the entry finished in (rule 12): one, or several shared by equal
    # stacks out in one hand; and what they won, once paid.
    finish_best = models.PositiveIntegerField(_("place"), null=True, blank=True)
    finish_worst = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveBigIntegerField(_("prize"), null=True, blank=True)
    # The amount agreed for the entry in the tournament's deal (rule 23), written by
    # the deals app: the floor pays it instead of the place's prize.
    deal_amount = models.PositiveBigIntegerField(_("amount agreed in the deal"), null=True, editable=False)
    # Rule 20: staff may withhold the prize while play is reviewed; it then stays in
    # the prize pool until staff pay or confiscate it (tournaments.services.integrity).
    prize_hold = models.CharField(
        _("prize withheld"), max_length=12, choices=PrizeHold.choices, default=PrizeHold.NONE, blank=True
    )
    # Rule 18.4: dealt in, blinds and antes posted, folded or checked at once.
    sitting_out = models.BooleanField(_("sitting out"), default=False)
    # Rule 18: the time bank left when last used, and the level it was last refilled at.
    time_bank_ms = models.PositiveIntegerField(null=True, blank=True, editable=False)
    time_bank_level = models.PositiveSmallIntegerField(default=0, editable=False)
    disconnect_extra_used = models.BooleanField(default=False, editable=False)  # rule 18.2: once
    # Progressive knockout: what bounties won added to his own head, beyond what his entry paid.
    bounty_added = models.PositiveBigIntegerField(default=0, editable=False)
    # Rule 29: bounties he won while his winnings were withheld for review, not yet paid.
    bounty_held = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], condition=Q(status__in=ENTERED), name="one_entry_per_player"
            ),
            models.UniqueConstraint(fields=["table", "seat"], condition=Q(table__isnull=False), name="one_per_seat"),
        ]
        indexes = [models.Index(fields=["player", "status"])]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class PurchaseKind(models.TextChoices):
    ENTRY = "entry", _("Entry")
    REBUY = "rebuy", _("Rebuy")
    ADDON = "addon", _("Add-on")


class PaymentForm(models.TextChoices):
    CASH = "cash", _("Cash")
    TMONEY = "tmoney", _("T-Money")
    TICKET = "ticket", _("Ticket")
    SEAT = "seat", _("Satellite seat")
    FREE = "free", _("Free")


class Purchase(models.Model):
    """What was paid for an entry, a rebuy or an add-on, and in which form: the
    record a refund reverses exactly (ALGORITHMS C11), whatever the event's terms
    say later."""

    # Indexed by (entry, kind); the key by its unique constraint alone (no pattern
    # index, which a unique=True CharField gets on PostgreSQL): registration writes both.
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="purchases", db_index=False)
    kind = models.CharField(max_length=6, choices=PurchaseKind.choices)
    form = models.CharField(max_length=6, choices=PaymentForm.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices)  # the prize pool's
    price = models.PositiveBigIntegerField()  # to the prize pool
    fee = models.PositiveBigIntegerField()  # to the house
    bounty = models.PositiveBigIntegerField(default=0)
    chips = models.PositiveBigIntegerField()
    ticket = models.ForeignKey("wallet.Ticket", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    idempotency_key = models.CharField(max_length=128)
    refunded_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["entry", "kind"])]
        constraints = [models.UniqueConstraint(fields=["idempotency_key"], name="purchase_idempotency_key_unique")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.entry}"

    @property
    def total(self) -> int:
        return self.price + self.fee + self.bounty


class HandStatus(models.TextChoices):
    PLAYING = "playing", _("In play")
    FINISHED = "finished", _("Finished")  # its result not yet given to the floor
    REPORTED = "reported", _("Reported")  # the floor has its result
    VOIDED = "voided", _("Rolled back")  # rule 22: nobody's chips changed


class Hand(models.Model):
    """One hand at one table (rules 6, 14, 15, 18): the record of truth is its setup,
    deck and actions, from which tournaments.rules.hands replays it. The deck is
    committed to before the cards are dealt (deck_commitment: each card hashed with
    a salt derived from `salt`, which stays secret) and proved once the hand is over
    without showing the hole cards nobody showed down (deck_proof)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="hands")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="dealt_hands")
    # The table's hands count when dealt, as the floor counts it (a final table starts
    # again from 1); people know a hand by its id.
    number = models.PositiveIntegerField(_("hand"))
    level = models.PositiveSmallIntegerField(default=1)
    synchronised = models.BooleanField(default=False)  # dealt hand-for-hand (rule 13)
    setup = models.JSONField()  # tournaments.rules.hands.HandSetup
    seats = models.JSONField()  # {seat: entry id} of the players dealt in
    deck = models.CharField(max_length=104)
    salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    actions = models.JSONField(default=list)
    # One more with every write to the hand: a turn stores it only over the revision it
    # was played from (tournaments.services.hands.hand_store).
    revision = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=HandStatus.choices, default=HandStatus.PLAYING)
    # The player to act, since when, and when rule 18.3 acts for him.
    to_act = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True)
    extra_time = models.BooleanField(default=False)  # the turn's deadline includes disconnect extra time
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    voided_reason = models.CharField(max_length=200, blank=True)  # staff's, shown with the hand
    # Rules 24-26: the bounties the hand paid, [{"victim": entry id, "won": {entry id: amount}}].
    bounties = models.JSONField(default=list, blank=True)
    # Read by the integrity scan (rule 20) once reported: tournaments.services.integrity.
    integrity_scanned = models.BooleanField(default=False, db_default=False, editable=False)

    class Meta:
        ordering = ["table_id", "pk"]
        indexes = [
            models.Index(fields=["table", "number"], name="hand_table_number"),
            models.Index(fields=["status", "deadline_at"], name="hand_due"),
            models.Index(fields=["tournament", "status"], name="hand_tournament_status"),
        ]

    def __str__(self) -> str:
        return f"Hand #{self.pk}"


class HandSeat(models.Model):
    """A player dealt in a hand: his seat, his entry, and the account that held the
    entry then (a seat transferred later is the new account's from then on, rule 21).
    A player's hands are found through these rows, the same query on every database
    (Hand.seats is JSON, and JSON containment is not one)."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="dealt")
    seat = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="hands_dealt")
    # Indexed by hand_seat_player (player, hand): a player's history reads his rows.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hands_dealt", db_index=False
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="hand_seat_once"),
            models.UniqueConstraint(fields=["hand", "entry"], name="hand_entry_once"),
        ]
        indexes = [models.Index(fields=["player", "hand"], name="hand_seat_player")]

    def __str__(self) -> str:
        return f"Hand #{self.hand_id}, seat {self.seat}"


class ChatWord(models.Model):
    """A word or phrase that, written at a table while a hand is in play there,
    discusses the hand (rule 19): the message is held back. The room edits the list
    in the admin; matched whole and regardless of case."""

    word = models.CharField(_("word or phrase"), max_length=40, unique=True)

    class Meta:
        ordering = ["word"]

    def __str__(self) -> str:
        return self.word


class ChatMessage(models.Model):
    """A player's message in his table's chat. A held message (rule 19) went to
    nobody: staff see it in the table's chat log."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="chat")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.CharField(max_length=200)
    held = models.BooleanField(default=False)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["table_id", "created_at", "pk"]
        indexes = [
            models.Index(fields=["table", "created_at"], name="chat_table_time"),
            models.Index(fields=["player", "created_at"], name="chat_player_time"),
        ]

    def __str__(self) -> str:
        return f"{self.player} at {self.table}: {self.text}"


class ChatMute(models.Model):
    """Staff's mute of a player in every table chat until `until`, with a reason."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_mutes")
    until = models.DateTimeField()
    reason = models.CharField(max_length=200)
    staff = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["player", "until"], name="chat_mute_player_until")]

    def __str__(self) -> str:
        return f"{self.player} muted until {self.until:%Y-%m-%d %H:%M}"


class SignalKind(models.TextChoices):
    CHIP_TRANSFER = SignalKindRule.CHIP_TRANSFER.value, _("Chips lost to the same player again and again")
    STRONG_FOLD = SignalKindRule.STRONG_FOLD.value, _("Strong hands folded to the same player")
    SIT_OUT_TOGETHER = SignalKindRule.SIT_OUT_TOGETHER.value, _("Sitting out together (rule 18.4)")


class FlagStatus(models.TextChoices):
    OPEN = "open", _("Open")
    CLEARED = "cleared", _("Cleared")
    CONFIRMED = "confirmed", _("Confirmed")


class IntegrityFlag(models.Model):
    """Rule 20: a pair of players whose play together repeats a pattern worth a look
    (tournaments.rules.integrity): `player` gained, `other` gave. Open until staff
    clear or confirm it, with a reason. One open flag a kind and pair."""

    kind = models.CharField(_("kind"), max_length=16, choices=SignalKind.choices)
    # Where the signals last reached the threshold (they may come from several).
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="integrity_flags")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(_("status"), max_length=10, choices=FlagStatus.choices, default=FlagStatus.OPEN)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "player", "other"], condition=Q(status="open"), name="integrity_flag_one_open"
            )
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="integrity_flag_status")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.player} and {self.other}"


class IntegritySignal(models.Model):
    """One signal (tournaments.rules.integrity.Signal) between two players, by user,
    seen in a hand (or, for sit-outs, in the records `ref` names): counted across
    tournaments until a flag takes it in."""

    kind = models.CharField(max_length=16, choices=SignalKind.choices)
    hand = models.ForeignKey(Hand, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    ref = models.CharField(max_length=40, blank=True, default="")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    detail = models.CharField(max_length=60)
    flag = models.ForeignKey(IntegrityFlag, null=True, blank=True, on_delete=models.PROTECT, related_name="signals")

    class Meta:
        ordering = ["hand_id", "ref"]
        constraints = [
            models.UniqueConstraint(
                fields=["hand", "kind", "player", "other"],
                condition=Q(hand__isnull=False),
                name="integrity_signal_unique",
            ),
            models.UniqueConstraint(
                fields=["ref", "kind", "player", "other"],
                condition=Q(hand__isnull=True),
                name="integrity_signal_ref_unique",
            ),
        ]
        indexes = [models.Index(fields=["kind", "player", "other"], name="integrity_signal_pair")]

    def __str__(self) -> str:
        return f"{self.kind} in {self.ref or f'hand #{self.hand_id}'}: {self.detail}"


class BoardKind(models.TextChoices):
    TOURNAMENT = "tournament", _("Tournament Leader Board")
    SIT_AND_GO = "sit_and_go", _("Sit & Go Leader Board")


class LeaderBoard(models.Model):
    """A Leader Board: points for each finish in the events that count for it
    (tournaments.rules.leader_boards has the formula), added up by day, month and year
    in the room's time zone. Points are never part of a deal (rule 23)."""

    kind = models.CharField(_("board"), max_length=12, choices=BoardKind.choices, unique=True)
    scale = models.DecimalField(_("scale"), max_digits=6, decimal_places=2, default=Decimal("10"))
    buy_in_offset = models.DecimalField(
        _("buy-in offset"),
        max_digits=6,
        decimal_places=2,
        default=Decimal("0.25"),
        validators=[MinValueValidator(Decimal("0.01"))],
    )

    class Meta:
        verbose_name = _("Leader Board")
        verbose_name_plural = _("Leader Boards")

    def __str__(self) -> str:
        return str(self.get_kind_display())


class LeaderBoardPoints(models.Model):
    """The points one finish earned, fixed when the event finished; withdrawn (not
    deleted) when a review voids the result (rules 9, 20, 21)."""

    board = models.ForeignKey(LeaderBoard, on_delete=models.PROTECT, related_name="points")
    entry = models.OneToOneField(Entry, on_delete=models.PROTECT, related_name="leader_board_points")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="leader_board_points")
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="leader_board_points")
    place = models.PositiveIntegerField(_("place"))
    entrants = models.PositiveIntegerField(_("entrants"))
    points = models.DecimalField(_("points"), max_digits=10, decimal_places=2)
    earned_at = models.DateTimeField(_("earned"))
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["board", "earned_at"]), models.Index(fields=["player", "earned_at"])]

    def __str__(self) -> str:
        return f"{self.points} ({self.board.kind}, {self.tournament_id}, place {self.place})"
