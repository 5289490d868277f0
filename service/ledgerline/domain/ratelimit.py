"""A token bucket per API key: `per_minute` requests a minute sustained, bursts up to as many.

Plain Python with an injected clock, so the rule is tested without sleeping. Buckets live in
the process that answers the request (see http/security.py for why not in the database).
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Hashable

# Buckets idle long enough to be full again carry no information; past this many keys the
# limiter forgets them, so memory stays bounded by the keys active in the last minute.
PRUNE_ABOVE = 10_000


class RateLimiter:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        if per_minute < 0:
            raise ValueError("the rate limit must be 0 (off) or a positive number per minute")
        self.capacity = float(per_minute)
        self.refill_per_second = per_minute / 60.0
        self.clock = clock
        self._buckets: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, updated)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.capacity > 0

    def wait_time(self, key: Hashable) -> float:
        """Seconds until `key` has a token again, without spending one (0: it has one now)."""
        if not self.enabled:
            return 0.0
        with self._lock:
            now = self.clock()
            tokens, updated = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - updated) * self.refill_per_second)
            return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.refill_per_second

    def take(self, key: Hashable) -> float:
        """Spend one token for `key`: 0 if allowed, else the seconds until one is available."""
        if not self.enabled:
            return 0.0
        with self._lock:
            now = self.clock()
            tokens, updated = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - updated) * self.refill_per_second)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                if len(self._buckets) > PRUNE_ABOVE:
                    self._prune(now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.refill_per_second

    def _prune(self, now: float) -> None:
        full = [k for k, (tokens, updated) in self._buckets.items()
                if tokens + (now - updated) * self.refill_per_second >= self.capacity]
        for key in full:
            del self._buckets[key]


def retry_after_header(seconds: float) -> str:
    """Retry-After in whole seconds, never 0 (a client told 0 would retry at once)."""
    return str(max(1, math.ceil(seconds)))
