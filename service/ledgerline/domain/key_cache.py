"""API-key lookups reused for at most a second, in the process that made them.

A cache hit would otherwise start with a database round trip (and a pool checkout) only to
learn what it learnt a moment ago. Only found keys are kept, so a key created a moment ago
works at once. The bound is the rule: a key revoked, or its role or account changed, in
another process is honoured here within MAX_AGE_SECONDS; whatever revokes a key in this
process calls `forget` (or `clear`), which makes it immediate here.

Plain Python with an injected clock, so the rule is tested without sleeping.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

MAX_AGE_SECONDS = 1.0
# Past this many entries the expired ones are dropped (only keys used in the last second
# are kept, so this is reached only by that many distinct keys a second).
PRUNE_ABOVE = 10_000

T = TypeVar("T")


class KeyCache(Generic[T]):
    def __init__(self, max_age: float = MAX_AGE_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        if not 0 <= max_age <= MAX_AGE_SECONDS:
            raise ValueError(f"a key lookup may be reused for at most {MAX_AGE_SECONDS} s")
        self.max_age, self.clock = max_age, clock
        self._entries: dict[str, tuple[T, float]] = {}  # key hash -> (caller, looked up at)
        self._lock = threading.Lock()

    def get(self, key_hash: str) -> T | None:
        entry = self._entries.get(key_hash)
        if entry is None:
            return None
        value, looked_up_at = entry
        if self.clock() - looked_up_at >= self.max_age:
            self._entries.pop(key_hash, None)
            return None
        return value

    def put(self, key_hash: str, value: T, looked_up_at: float) -> None:
        """`looked_up_at`: the clock before the lookup started, so that the age counts from
        when the database answered at the earliest."""
        with self._lock:
            if len(self._entries) >= PRUNE_ABOVE:
                now = self.clock()
                self._entries = {k: e for k, e in self._entries.items()
                                 if now - e[1] < self.max_age}
            self._entries[key_hash] = (value, looked_up_at)

    def forget(self, key_hash: str) -> None:
        self._entries.pop(key_hash, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
