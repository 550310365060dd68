"""A negotiation's changes, live: each participant's own group and the staff group
are told which parts to fetch again (nothing private travels in the message)."""

import json

from tournaments.consumers import group_name, live_send

from deals.events import negotiation_changed
from deals.models import Negotiation


def connect() -> None:
    negotiation_changed.connect(on_negotiation_changed, dispatch_uid="deals.live")


def on_negotiation_changed(sender, *, negotiation_id: int, **_):
    negotiation = Negotiation.objects.select_related("tournament").get(pk=negotiation_id)
    parts = [f"deal-{negotiation.pk}", f"deal-card-{negotiation.tournament_id}"]
    players = negotiation.participants.values_list("entry__player_id", flat=True)
    for player_id in players:
        live_send(group_name("user", user_id=player_id), json.dumps({"refresh": parts}))
    live_send(group_name("staff"), json.dumps({"refresh": ["tickets", *parts]}))
