"""Django's Redis cache, keeping one client a connection pool, shared by the process.

Django's RedisCacheClient builds a new redis.Redis for every operation, with its
table of response callbacks: a large part of what a cache read costs on top of its
round trip. A redis.Redis is safe to share between threads: it takes a connection
from its pool for each command.

Django keeps a cache object per thread and, under ASGI, per async context: every
WebSocket consumer is one, so each socket had a pool of its own and held a Redis
connection for as long as it stayed open; 10,000 sockets were 10,000 clients, past
Redis's `maxclients` (bench/fanout.py --10k). The client of a server and options is
made once a process and shared: connections are then as many as commands in flight.
redis-py's pool starts afresh in a forked child.
"""

import threading

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient

# By server and options: the redis.Redis every cache object of this process uses.
_clients: dict[tuple[str, str], object] = {}
_clients_lock = threading.Lock()


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, servers, **options):
        super().__init__(servers, **options)
        self._options_key = repr(sorted(options.items()))

    def get_client(self, key=None, *, write=False):
        # Django's client sets these; django-stubs leaves its private attributes out.
        server = self._servers[self._get_connection_pool_index(write)]  # type: ignore[attr-defined]
        shared = (server, self._options_key)
        client = _clients.get(shared)
        if client is None:
            with _clients_lock:
                client = _clients.get(shared)
                if client is None:
                    pool = self._pool_class.from_url(server, **self._pool_options)  # type: ignore[attr-defined]
                    client = _clients[shared] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
