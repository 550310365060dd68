"""A negotiation's changes, live: each participant's own group and the staff group
are told which parts to fetch again (nothing private travels in the message)."""

from collections.abc import Sequence

from live.delivery import Message, Refresh, publisher
from live.groups import group_name

from deals.events import NegotiationChanged
from deals.models import Negotiation


def connect() -> None:
    publisher(publish)


def publish(events: Sequence[object]) -> list[Message]:
    messages: list[Message] = []
    for negotiation_id in dict.fromkeys(e.negotiation_id for e in events if isinstance(e, NegotiationChanged)):
        negotiation = Negotiation.objects.get(pk=negotiation_id)
        parts = (f"deal-{negotiation.pk}", f"deal-card-{negotiation.tournament_id}")
        players = negotiation.participants.values_list("entry__player_id", flat=True)
        messages += [Refresh(group_name("user", user_id=player_id), parts) for player_id in players]
        messages.append(Refresh(group_name("staff"), ("tickets", *parts)))
    return messages
