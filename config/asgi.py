"""HTTP and WebSocket entry point.

Production serves HTTP from WSGI workers and only `/ws/` from this application;
the embedded default serves both from here.
"""

import os

from asgiref.typing import ASGI3Application
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddleware  # noqa: E402  (needs the app registry)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware  # noqa: E402

from config.collector import collector_tuned  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402


class SocketSessionMiddleware(SessionMiddleware):
    """The session (and so the user) of a socket's handshake, without channels'
    wrapper around every message the socket sends: the wrapper saves a session only
    on an HTTP response, which a socket never sends, and its work on every message
    was a share of a large fan-out's time that bench/fanout.py shows."""

    inner: ASGI3Application  # AuthMiddleware, below

    async def __call__(self, scope, receive, send):
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            CookieMiddleware(SocketSessionMiddleware(AuthMiddleware(URLRouter(websocket_urlpatterns))))
        ),
    }
)

collector_tuned()  # config.collector says why
