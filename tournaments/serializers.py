"""Serializers of the tournament API: field mapping only, no rules.

The public list item reads a Tournament; the detail reads the TournamentInfo the
view builds from the selectors. A player's registration, purchases, payment
options and wallet read the models and dataclasses the services and selectors
return; the request serializers only parse what the services take. Money is in
minor units of `currency`; instants are ISO 8601 in UTC.
"""

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.serializers import ErrorSerializer
from config.api import UtcDateTimeField
from tournaments.models import (
    AnteKind,
    BettingStructure,
    BountyKind,
    BreakPolicyKind,
    EntryKind,
    EntryStatus,
    Game,
    PaymentForm,
    PrizeStructure,
    PurchaseKind,
    Speed,
    Status,
    Tag,
    Tournament,
)
from wallet.models import Currency


class GameSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=Game.choices, source="game")
    # DRF's metaclass takes declared fields out of the class: Field.label stays.
    label = serializers.CharField(source="get_game_display")  # type: ignore[assignment]


class TournamentListItemSerializer(serializers.Serializer):
    """One row of the lobby."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    game = GameSerializer(source="*")
    betting = serializers.ChoiceField(choices=BettingStructure.choices)
    entry_kind = serializers.ChoiceField(choices=EntryKind.choices)
    currency = serializers.ChoiceField(
        choices=Currency.choices, source="money_currency", help_text="The currency of every amount."
    )
    buy_in = serializers.IntegerField(help_text="To the prize pool, in minor units.")
    fee = serializers.IntegerField(help_text="To the house, in minor units.")
    bounty_amount = serializers.IntegerField(help_text="Bounty part of the entry, in minor units.")
    scheduled_start = UtcDateTimeField()
    status = serializers.ChoiceField(choices=Status.choices)
    entrants = serializers.IntegerField(source="entries_count")
    max_entrants = serializers.IntegerField()
    prize_pool = serializers.IntegerField(help_text="The entries' prize parts or the guarantee, whichever is larger.")
    guarantee = serializers.IntegerField()
    tags = serializers.ListField(child=serializers.ChoiceField(choices=Tag.choices))
    url = serializers.HyperlinkedIdentityField(view_name="api-tournament-detail")
    info_url = serializers.HyperlinkedIdentityField(view_name="lobby:tournament", help_text="The Tournament Info page.")


class LevelSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    small_blind = serializers.IntegerField(source="level.small_blind")
    big_blind = serializers.IntegerField(source="level.big_blind")
    ante = serializers.IntegerField(source="level.ante")
    ante_posted_by = serializers.SerializerMethodField(
        help_text="`each`: every player posts the ante; `big_blind`: the big blind posts it for the table (dead money)."
    )
    minutes = serializers.IntegerField(source="level.minutes")
    seconds = serializers.IntegerField(source="level.seconds", help_text="On top of the minutes; usually 0.")
    starts_at = UtcDateTimeField()
    ends_at = UtcDateTimeField()

    @extend_schema_field({"type": "string", "enum": [kind.value for kind in AnteKind]})
    def get_ante_posted_by(self, scheduled) -> str:
        return AnteKind.BIG_BLIND if scheduled.level.big_blind_ante else AnteKind.EACH


class BreakSerializer(serializers.Serializer):
    starts_at = UtcDateTimeField()
    ends_at = UtcDateTimeField()
    addon = serializers.BooleanField(help_text="The add-on break at the end of the rebuy period.")


class DeadlinesSerializer(serializers.Serializer):
    registration_opens_at = UtcDateTimeField(
        source="deadlines.registration_opens_at", allow_null=True, help_text="Null: as soon as announced."
    )
    unregistration_allowed = serializers.BooleanField(source="tournament.unregistration_allowed")
    unregistration_closes_at = UtcDateTimeField(
        source="deadlines.unregistration_closes_at", allow_null=True, help_text="Null: unregistration is not allowed."
    )
    late_registration_closes_at = UtcDateTimeField(source="deadlines.late_registration_closes_at")
    late_registration_closes_at_first_elimination = serializers.BooleanField(
        source="tournament.late_registration_closes_at_first_elimination"
    )


class RebuySerializer(serializers.Serializer):
    price = serializers.IntegerField(source="rebuy_price")
    fee = serializers.IntegerField(source="rebuy_fee")
    chips = serializers.IntegerField(source="rebuy_chips")
    limit = serializers.IntegerField(source="rebuy_limit", allow_null=True, help_text="Null: no limit.")
    levels = serializers.IntegerField(source="rebuy_levels", help_text="Rebuys are allowed during this many levels.")


class AddonSerializer(serializers.Serializer):
    price = serializers.IntegerField(source="addon_price")
    fee = serializers.IntegerField(source="addon_fee")
    chips = serializers.IntegerField(source="addon_chips")


class PayoutSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    amount = serializers.IntegerField()


class BountySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=BountyKind.choices, source="bounty_kind")
    amount = serializers.IntegerField(source="bounty_amount")


class SatelliteTargetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.HyperlinkedIdentityField(view_name="api-tournament-detail")


class SatelliteSerializer(serializers.Serializer):
    target = SatelliteTargetSerializer(source="satellite_target")
    seats = serializers.IntegerField(source="satellite_seats", help_text="Guaranteed seats.")


class DealsSerializer(serializers.Serializer):
    allowed = serializers.BooleanField(source="deals_allowed")
    leave_for_winner = serializers.IntegerField(source="deal_leave_for_winner")


class ClockSerializer(serializers.Serializer):
    """What the clock reads now (tournaments.services.clock); a countdown runs from these instants."""

    level = serializers.IntegerField(help_text="The level in play, or the last one begun; 0 before the start.")
    level_ends_at = UtcDateTimeField(allow_null=True, help_text="Null on the last level, and while paused.")
    break_ends_at = UtcDateTimeField(allow_null=True, help_text="Null unless on a break that has begun.")
    paused = serializers.SerializerMethodField()
    pause_reason = serializers.CharField()
    postponed_from = UtcDateTimeField(allow_null=True, help_text="The first announced start, if postponed.")
    server_time = serializers.SerializerMethodField(help_text="The server's clock, to correct the client's by.")

    def get_paused(self, tournament) -> bool:
        return tournament.paused_at is not None

    @extend_schema_field({"type": "string", "format": "date-time"})
    def get_server_time(self, tournament) -> str:
        return UtcDateTimeField().to_representation(timezone.now())


class SeatSerializer(serializers.Serializer):
    """A seat as anyone watching the table sees it: no cards, no wallet."""

    seat = serializers.IntegerField()
    player = serializers.CharField(help_text="The player's screen name.")
    chips = serializers.IntegerField(help_text="The stack.")
    role = serializers.ChoiceField(
        choices=["button", "small_blind", "big_blind", ""],
        help_text="The button and the blinds of the hand in play or the next; empty for the others.",
    )


class TableSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    seats = SeatSerializer(many=True, help_text="The occupied seats, by seat number.")


class ChipLeaderSerializer(serializers.Serializer):
    player = serializers.CharField(help_text="The player's screen name.")
    chips = serializers.IntegerField()
    bounty = serializers.IntegerField(help_text="The bounty on his head in minor units; 0 in events without bounties.")
    bounties_won = serializers.IntegerField(help_text="The bounties he has won so far, in minor units.")


class FinisherSerializer(serializers.Serializer):
    place = serializers.CharField(help_text='"5", or "5-6" for players out in the same hand who share places.')
    best = serializers.IntegerField(help_text="The best of the places shared.")
    worst = serializers.IntegerField(help_text="The worst of the places shared; equal to best when not shared.")
    player = serializers.CharField(help_text="The player's screen name.")
    prize = serializers.IntegerField(
        allow_null=True, help_text="In minor units; 0 out of the money or forfeited, null until it is paid."
    )
    bounties_won = serializers.IntegerField(help_text="The bounties he won, in minor units.")
    forfeited = serializers.BooleanField(help_text="Its prize was confiscated after the room's review (rule 20).")


class StandingsSerializer(serializers.Serializer):
    players_left = serializers.IntegerField(source="clock.players_left", help_text="0 before the start and once over.")
    average_stack = serializers.IntegerField(source="clock.average_stack", help_text="Of the players left.")
    chip_leaders = ChipLeaderSerializer(many=True, help_text="The three biggest stacks, biggest first.")
    finished = FinisherSerializer(many=True, help_text="The places finished so far, best first.")


class TournamentDetailSerializer(serializers.Serializer):
    """Everything Tournament Info shows; the lobby row's fields keep their names."""

    id = serializers.IntegerField(source="tournament.id")
    name = serializers.CharField(source="tournament.name")
    url: serializers.HyperlinkedRelatedField[Tournament] = serializers.HyperlinkedRelatedField(
        view_name="api-tournament-detail", source="tournament", read_only=True
    )
    info_url: serializers.HyperlinkedRelatedField[Tournament] = serializers.HyperlinkedRelatedField(
        view_name="lobby:tournament", source="tournament", read_only=True, help_text="The Tournament Info page."
    )
    status = serializers.ChoiceField(choices=Status.choices, source="tournament.status")
    tags = serializers.ListField(child=serializers.ChoiceField(choices=Tag.choices), source="tournament.tags")
    game = GameSerializer(source="tournament")
    betting = serializers.ChoiceField(choices=BettingStructure.choices, source="tournament.betting")
    speed = serializers.ChoiceField(choices=Speed.choices, source="tournament.speed")
    deepstack = serializers.BooleanField(source="tournament.deepstack")
    heads_up = serializers.BooleanField(source="tournament.heads_up")
    shootout = serializers.BooleanField(source="tournament.shootout")

    entry_kind = serializers.ChoiceField(choices=EntryKind.choices, source="tournament.entry_kind")
    currency = serializers.ChoiceField(
        choices=Currency.choices, source="tournament.money_currency", help_text="The currency of every amount."
    )
    buy_in = serializers.IntegerField(source="tournament.buy_in", help_text="To the prize pool, in minor units.")
    fee = serializers.IntegerField(source="tournament.fee", help_text="To the house, in minor units.")
    bounty_amount = serializers.IntegerField(source="tournament.bounty_amount")
    starting_stack = serializers.IntegerField(source="tournament.starting_stack")
    table_size = serializers.IntegerField(source="tournament.table_size")
    entrants = serializers.IntegerField(source="tournament.entries_count")
    min_entrants = serializers.IntegerField(source="tournament.min_entrants")
    max_entrants = serializers.IntegerField(source="tournament.max_entrants")

    scheduled_start = UtcDateTimeField(source="tournament.scheduled_start")
    clock = ClockSerializer(source="tournament")
    deadlines = DeadlinesSerializer(source="*")
    blind_structure = serializers.CharField(source="tournament.blind_structure.name")
    levels = LevelSerializer(many=True, source="schedule.levels")
    break_policy = serializers.ChoiceField(choices=BreakPolicyKind.choices, source="tournament.break_policy")
    breaks = BreakSerializer(many=True, source="schedule.breaks")
    rebuy = RebuySerializer(allow_null=True, help_text="Null: no rebuys.")
    addon = AddonSerializer(allow_null=True, help_text="Null: no add-on.")

    prize_structure = serializers.ChoiceField(choices=PrizeStructure.choices, source="tournament.prize_structure")
    guarantee = serializers.IntegerField(source="tournament.guarantee")
    prize_pool = serializers.IntegerField(source="payouts.pool")
    payouts = PayoutSerializer(many=True, source="places", help_text="First place first; sums to the prize pool.")
    payouts_provisional = serializers.BooleanField(
        source="payouts.provisional", help_text="True until registration and the rebuy period are over."
    )
    bounty = BountySerializer(source="tournament")
    satellite = SatelliteSerializer(allow_null=True, help_text="Null: not a satellite.")
    deals = DealsSerializer(source="tournament")
    deal_in_progress = serializers.BooleanField(source="tournament.deal_in_progress")

    hand_for_hand = serializers.BooleanField(
        source="tournament.hand_for_hand", help_text="Every table finishes its hand, then all deal the next together."
    )
    tables = TableSerializer(many=True, help_text="The tables in play, by number; empty before the start.")
    standings = StandingsSerializer()


class InvalidFilterSerializer(ErrorSerializer):
    """A filter the lobby would refuse too."""

    # DRF's metaclass takes declared fields out of the class: Serializer.fields stays.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text='The form\'s messages by query parameter; "__all__" for those about several.',
    )


# The player's own registration, purchases, payment options and wallet


# The entry's and the ticket's statuses are enum components named here: "status"
# already names the tournament's statuses in two other components, a collision
# drf-spectacular would otherwise only warn about (and --fail-on-warn refuse).
@extend_schema_field({"type": "string", "enum": EntryStatus.values}, component_name="EntryStatusEnum")
class EntryStatusField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=EntryStatus.choices, **kwargs)


REQUESTED_FORMS = [(form.value, form.label) for form in (PaymentForm.CASH, PaymentForm.TMONEY, PaymentForm.TICKET)]


class RegistrationRequestSerializer(serializers.Serializer):
    """How the player means to pay; both may be left out."""

    form = serializers.ChoiceField(
        choices=REQUESTED_FORMS,
        required=False,
        help_text="Left out: the event's own kind of money (cash, or T-Money for a T-Money event).",
    )
    ticket = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="The ticket to pay with (see payment-options); sending one means paying with it.",
    )


class PurchaseSerializer(serializers.Serializer):
    """What was paid for an entry, a rebuy or an add-on; a refund reverses exactly this."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=PurchaseKind.choices)
    form = serializers.ChoiceField(choices=PaymentForm.choices, help_text="How it was paid.")
    currency = serializers.ChoiceField(choices=Currency.choices, help_text="The prize pool's currency.")
    price = serializers.IntegerField(help_text="To the prize pool, in minor units.")
    fee = serializers.IntegerField(help_text="To the house, in minor units.")
    bounty = serializers.IntegerField(help_text="The knockout bounty part, in minor units.")
    chips = serializers.IntegerField()
    ticket = serializers.IntegerField(source="ticket_id", allow_null=True, help_text="The ticket that paid it.")
    created_at = UtcDateTimeField()
    refunded_at = UtcDateTimeField(allow_null=True, help_text="Null: not refunded.")


class EntrySerializer(serializers.Serializer):
    """The player's entry in one tournament, with everything paid for it (a
    tournaments.services.entries.Receipt: the services hand back the purchases they made or
    refunded, so the answer needs no query)."""

    id = serializers.IntegerField(source="entry.id")
    tournament = serializers.IntegerField(source="entry.tournament_id")
    status = EntryStatusField(source="entry.status")
    chips = serializers.IntegerField(source="entry.chips")
    late = serializers.BooleanField(source="entry.late", help_text="Registered after the scheduled start.")
    rebuys = serializers.IntegerField(source="entry.rebuys")
    addon_taken = serializers.BooleanField(source="entry.addon_taken")
    created_at = UtcDateTimeField(source="entry.created_at")
    ended_at = UtcDateTimeField(
        source="entry.ended_at", allow_null=True, help_text="When it was unregistered, refunded or eliminated."
    )
    purchases = PurchaseSerializer(many=True, help_text="Oldest first.")


class EntryChipsSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = EntryStatusField()
    chips = serializers.IntegerField(help_text="With the chips just bought.")
    rebuys = serializers.IntegerField()
    addon_taken = serializers.BooleanField()


class ChipPurchaseSerializer(serializers.Serializer):
    """A rebuy or an add-on, and the entry's chips with it."""

    purchase = PurchaseSerializer(source="*")
    entry = EntryChipsSerializer()


class PaymentOptionSerializer(serializers.Serializer):
    """One way the player can pay an entry."""

    form = serializers.ChoiceField(
        choices=[(form.value, form.label) for form in PaymentForm if form != PaymentForm.SEAT],
        help_text='Send it as "form" to register this way.',
    )
    currency = serializers.ChoiceField(choices=Currency.choices, help_text="The currency taken from the player.")
    amount = serializers.IntegerField(help_text="Buy-in, fee and bounty, in minor units.")
    affordable = serializers.BooleanField(help_text="The player's balance covers it now (a ticket always does).")
    ticket = serializers.IntegerField(
        source="ticket_id", allow_null=True, help_text='For "ticket": the ticket to send as "ticket".'
    )
