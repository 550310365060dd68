"""A negotiation's changes, live: each participant's own group and the staff group
are told which parts to fetch again (nothing private travels in the message)."""

import json

from live.outbox import publisher
from tournaments.consumers import group_name, live_send

from deals.events import NegotiationChanged
from deals.models import Negotiation


def connect() -> None:
    publisher(publish)


def publish(events) -> None:
    for negotiation_id in dict.fromkeys(e.negotiation_id for e in events if isinstance(e, NegotiationChanged)):
        on_negotiation_changed(None, negotiation_id=negotiation_id)


def on_negotiation_changed(sender, *, negotiation_id: int, **_):
    negotiation = Negotiation.objects.select_related("tournament").get(pk=negotiation_id)
    parts = [f"deal-{negotiation.pk}", f"deal-card-{negotiation.tournament_id}"]
    players = negotiation.participants.values_list("entry__player_id", flat=True)
    for player_id in players:
        live_send(group_name("user", user_id=player_id), json.dumps({"refresh": parts}))
    live_send(group_name("staff"), json.dumps({"refresh": ["tickets", *parts]}))
