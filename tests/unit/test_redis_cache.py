"""The Redis cache's client is the process's, whichever cache object asks for it:
Django keeps a cache object per async context, one per WebSocket consumer."""

import asyncio

from config.cache import RedisCache

LOCATION = "redis://127.0.0.1:6379/13"  # never connected to: a client is made without a connection


def test_cache_objects_of_many_async_contexts_share_one_redis_client():
    async def client_of_a_context():
        return RedisCache(LOCATION, {})._cache.get_client(write=True)

    async def many():
        return await asyncio.gather(*(asyncio.create_task(client_of_a_context()) for _ in range(20)))

    clients = asyncio.run(many())

    assert len({id(client) for client in clients}) == 1


def test_cache_objects_with_other_options_or_servers_have_their_own_client():
    plain = RedisCache(LOCATION, {})._cache.get_client(write=True)
    other_server = RedisCache("redis://127.0.0.1:6379/14", {})._cache.get_client(write=True)
    other_options = RedisCache(LOCATION, {"OPTIONS": {"socket_timeout": 3}})._cache.get_client(write=True)

    assert plain is not other_server
    assert plain is not other_options
