from celery import shared_task

from lobby.live import tables_publish_trailing, tournament_publish_trailing


@shared_task
def tournament_publish_task(tournament_id: int, chips: bool = False) -> None:
    """The live message at the end of a throttled second, or of the chips' pace
    (lobby.live queues it)."""
    tournament_publish_trailing(tournament_id, chips=chips)


@shared_task
def tables_publish_task(tournament_id: int) -> None:
    """The event's line on every table page at the end of its throttled seconds (lobby.live queues it)."""
    tables_publish_trailing(tournament_id)
