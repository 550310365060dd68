"""A cache whose entries are never older than a limit, counted from when their
data was read (not from when they were stored), with a copy in each process in
front of the shared cache: a read from Redis costs about as much as a trivial
Django view, so most hits should not need one."""

import time
import weakref
from typing import Protocol

from django.core.cache import cache

_instances: "weakref.WeakSet[FreshCache]" = weakref.WeakSet()


class Dated(Protocol):
    read_at: float  # time.time() when the data behind the entry was read


class FreshCache:
    def __init__(self, *, max_age: float, local_size: int = 128):
        self.max_age = max_age
        self.local_size = local_size
        self._local: dict[str, Dated] = {}
        _instances.add(self)

    def get(self, key: str) -> Dated | None:
        entry = self._local.get(key)
        if entry is None or self._too_old(entry):
            entry = cache.get(key)
            if entry is None or self._too_old(entry):
                return None
            self._keep(key, entry)
        return entry

    def set(self, key: str, entry: Dated) -> None:
        # Redis expires whole seconds after the write; get() checks read_at itself.
        cache.set(key, entry, max(1, int(self.max_age)))
        self._keep(key, entry)

    def _too_old(self, entry: Dated) -> bool:
        return time.time() - entry.read_at >= self.max_age

    def _keep(self, key: str, entry: Dated) -> None:
        # Traffic asks for a few keys a second: a full dict is mostly stale entries.
        if len(self._local) >= self.local_size:
            self._local.clear()
        self._local[key] = entry


def forget_local_copies() -> None:
    """Drop every process-local copy (tests empty the shared cache between cases)."""
    for instance in list(_instances):
        instance._local.clear()
