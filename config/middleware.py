"""Middleware that runs in either handler. Under ASGI (the demo serves every page
from config.asgi) a middleware that can only run synchronously makes Django run
the rest of the request through async_to_sync; a browser that leaves mid-request
then breaks that executor, and Django's end of the request fails on it
("CurrentThreadExecutor already quit or is broken")."""

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise, which is synchronous only, for both handlers: a static file is
    served from a thread, anything else goes on down the chain as it came."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        super().__init__(get_response)
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request):
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve, thread_sensitive=False)(static_file, request)
        return await self.get_response(request)
