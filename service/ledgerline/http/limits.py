"""What one client may hold of an API process at once, beside the rate (http/security.py).

- requests in flight per API key: beyond LEDGERLINE_MAX_REQUESTS_PER_KEY, 429 at once;
- `Prefer: wait` holds per API key: beyond LEDGERLINE_MAX_WAITS_PER_KEY the upload answers
  without waiting (202, no Preference-Applied), as RFC 7240 lets a server do;
- failed authentications per client address and per presented key prefix: beyond
  LEDGERLINE_AUTH_FAILURES_PER_MINUTE, 429 for keys that cannot be working ones, before they
  are looked up; a working key is never refused (http/key_guard.py).

Kept in each process's memory like the rate limit, for the same reason: a cache hit must not
pay a shared write.
"""
from __future__ import annotations

import contextlib
import threading
from collections import Counter

from flask import current_app, g, request

from ..config import Settings
from ..domain.errors import RateLimited
from .key_guard import KeyGuard

EXTENSION = "ledgerline.limits"


class TooManyInFlight(RateLimited):
    code, title = "too_many_in_flight", "Too many requests in flight for this API key"
    explanation = ("At most LEDGERLINE_MAX_REQUESTS_PER_KEY requests of one key are served at "
                   "once; retry when one has finished.")


class InFlight:
    """How many of something each key holds right now, up to `cap` (0: no cap)."""

    def __init__(self, cap: int):
        self.cap = cap
        self._held: Counter = Counter()
        self._lock = threading.Lock()

    def acquire(self, key) -> bool:
        with self._lock:
            if self.cap and self._held[key] >= self.cap:
                return False
            self._held[key] += 1
            return True

    def release(self, key) -> None:
        with self._lock:
            self._held[key] -= 1
            if self._held[key] <= 0:
                del self._held[key]

    def held(self, key) -> int:
        with self._lock:
            return self._held[key]


class Limits:
    def __init__(self, settings: Settings):
        self.requests = InFlight(settings.max_requests_per_key)
        self.waits = InFlight(settings.max_waits_per_key)
        self.keys = KeyGuard(settings.auth_failures_per_minute)


def install(app, settings: Settings) -> None:
    app.extensions[EXTENSION] = Limits(settings)

    @app.teardown_request
    def _release(_exc):
        key = g.pop("in_flight_key", None)
        if key is not None:
            app.extensions[EXTENSION].requests.release(key)


def _limits() -> Limits:
    return current_app.extensions[EXTENSION]


def hold_request_slot(key_id: str) -> None:
    """Count this request against its key until the request ends (teardown), or refuse it."""
    if "in_flight_key" in g:
        return
    if not _limits().requests.acquire(key_id):
        raise TooManyInFlight(f"at most {_limits().requests.cap} requests of one API key may be "
                              "in flight at once; retry when one has finished", retry_after="1")
    g.in_flight_key = key_id


@contextlib.contextmanager
def wait_slot(key_id: str, seconds: int):
    """Yields the seconds this request may wait: `seconds`, or 0 when the key holds its cap."""
    if seconds <= 0 or not _limits().waits.acquire(key_id):
        yield 0
        return
    try:
        yield seconds
    finally:
        _limits().waits.release(key_id)


def client_address() -> str:
    """The client as the trusted proxies tell it (ProxyFix), else the peer itself."""
    return request.remote_addr or "unknown"


def key_guard() -> KeyGuard:
    return _limits().keys
