from channels.generic.websocket import WebsocketConsumer
from django.urls import path, re_path

from live.consumers import LiveConsumer


class UnknownAddressConsumer(WebsocketConsumer):
    """Refuses a socket to an address nobody serves (a 403 handshake), instead of
    the router's error."""

    def connect(self):
        self.close()


websocket_urlpatterns: list = [
    # Channels' URLRouter takes Django's paths to ASGI applications; django-stubs expects views.
    path("ws/live/", LiveConsumer.as_asgi()),  # type: ignore[arg-type]
    re_path(r"", UnknownAddressConsumer.as_asgi()),  # type: ignore[arg-type]
]
