"""Output serializers of the public tournament API: field mapping only.

The list item reads a Tournament; the detail reads the TournamentInfo the view
builds from the selectors. Money is in minor units of `currency`; instants are
ISO 8601 in UTC.
"""

from datetime import UTC

from rest_framework import serializers

from tournaments.models import (
    BettingStructure,
    BountyKind,
    BreakPolicyKind,
    EntryKind,
    Game,
    PrizeStructure,
    Speed,
    Status,
    Tag,
)
from wallet.models import Currency


class UtcDateTimeField(serializers.DateTimeField):
    """An instant in UTC, whatever zone the viewer's cookie activated for the pages."""

    def __init__(self, **kwargs):
        super().__init__(default_timezone=UTC, **kwargs)


class GameSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=Game.choices, source="game")
    label = serializers.CharField(source="get_game_display")


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
    minutes = serializers.IntegerField(source="level.minutes")
    starts_at = UtcDateTimeField()
    ends_at = UtcDateTimeField()


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


class TournamentDetailSerializer(serializers.Serializer):
    """Everything Tournament Info shows; the lobby row's fields keep their names."""

    id = serializers.IntegerField(source="tournament.id")
    name = serializers.CharField(source="tournament.name")
    url = serializers.HyperlinkedRelatedField(view_name="api-tournament-detail", source="tournament", read_only=True)
    info_url = serializers.HyperlinkedRelatedField(
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


class ErrorSerializer(serializers.Serializer):
    """Every error the API answers."""

    code = serializers.CharField(help_text="Stable, for programs: not_found, invalid_filter, method_not_allowed...")
    message = serializers.CharField(help_text="For a person.")


class InvalidFilterSerializer(ErrorSerializer):
    """A filter the lobby would refuse too."""

    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='The form\'s messages by query parameter; "__all__" for those about several.',
    )
