from channels.generic.websocket import WebsocketConsumer
from django.urls import re_path


class UnknownAddressConsumer(WebsocketConsumer):
    """Refuses a socket to an address nobody serves (a 403 handshake), instead of
    the router's error."""

    def connect(self):
        self.close()


websocket_urlpatterns: list = [re_path(r"", UnknownAddressConsumer.as_asgi())]
