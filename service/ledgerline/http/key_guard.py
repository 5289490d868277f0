"""The failed-authentication limit: guessing keys is throttled, a working key is never refused.

Failures are counted twice, apart: per client address (someone trying many keys) and per
presented key prefix (`llk_` and 8 characters: one key presented again and again, say a
revoked key in a forgotten client, from wherever it comes). Beyond LEDGERLINE_AUTH_FAILURES_PER_
MINUTE of either, 429 `too_many_auth_failures` — but only for a key that cannot be a working
one, so that neither a NAT full of broken clients nor a forgotten revoked key locks out a
correct key:

- a key that failed once never works later (a secret exists only once its key is made; revoked
  and expired keys stay so), so this process remembers the digests of failed keys
  (MAX_KNOWN_BAD): presented again, such a key costs no lookup, counts against its prefix only
  (its address is not guessing), and gets 401, then 429 past the prefix's budget;
- an address past its budget is refused before the lookup, without touching the database,
  only when the key's prefix is no working key's prefix (`LivePrefixes`: every working key's
  prefix, read at most once a second). A working key's prefix is always there: it is looked
  up and served.

Kept in each process's memory like the rate limit: a cache hit must not pay a shared write.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from ..adapters.db.accounts import live_prefixes
from ..adapters.db.engine import transaction
from ..domain.errors import RateLimited
from ..domain.ratelimit import RateLimiter, retry_after_header

MAX_KNOWN_BAD = 10_000   # digests of failed keys remembered per process (oldest forgotten)
REFRESH_SECONDS = 1.0    # the live prefixes are read at most this often


class TooManyAuthFailures(RateLimited):
    code, title = "too_many_auth_failures", "Too many failed authentications"
    explanation = ("Keys that do not work are limited per client address and per key prefix "
                   "(LEDGERLINE_AUTH_FAILURES_PER_MINUTE each); beyond that a key that cannot "
                   "be a working one is refused before it is looked up. A working key is never "
                   "refused by this limit: use it, or retry after `Retry-After` seconds.")


class KeyGuard:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.by_address = RateLimiter(per_minute, clock)
        self.by_prefix = RateLimiter(per_minute, clock)
        self.live = LivePrefixes(clock, sleep)
        self._known_bad: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def known_bad(self, digest: str) -> bool:
        with self._lock:
            return digest in self._known_bad

    def before_lookup(self, engine, prefix: str, address: str) -> None:
        """Refuse, without a lookup, a key from an address past its budget that cannot be a
        working key; a key that may be one always goes on to its lookup."""
        wait = self.by_address.wait_time(address)
        if wait and not self.live.may_be_live(engine, prefix):
            raise _refusal("this address", wait)

    def failed(self, digest: str | None, prefix: str, address: str) -> None:
        """A key that was looked up (or could not be) and does not work."""
        self.by_address.take(address)
        self.by_prefix.take(prefix)
        if digest is not None:
            with self._lock:
                self._known_bad[digest] = None
                if len(self._known_bad) > MAX_KNOWN_BAD:
                    self._known_bad.popitem(last=False)

    def failed_again(self, prefix: str) -> None:
        """A key known not to work, presented again: its prefix's budget, never the address's."""
        wait = self.by_prefix.take(prefix)
        if wait:
            raise _refusal("this key", wait)


def _refusal(whose: str, wait: float) -> TooManyAuthFailures:
    return TooManyAuthFailures(
        f"too many failed authentications from {whose}; retry in {retry_after_header(wait)} s "
        "(a working key is never refused)", retry_after=retry_after_header(wait))


class LivePrefixes:
    """The prefixes of every working key, read from the database at most once a second."""

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None]):
        self.clock, self.sleep = clock, sleep
        self._prefixes: frozenset[str] = frozenset()
        self._complete = False        # every working key has a prefix (none older than 0010)
        self._loaded_at = float("-inf")
        self._lock = threading.Lock()

    def may_be_live(self, engine, prefix: str) -> bool:
        asked = self.clock()
        if self._loaded_at != float("-inf") and self._holds(prefix):
            return True
        # A key made since the last read may be this one: read again, though no sooner than a
        # second after the last read (so guessing costs the database one read a second at
        # most, and a new key waits for it rather than being refused).
        wait = self._loaded_at + REFRESH_SECONDS - asked
        if wait > 0:
            self.sleep(wait)
        with self._lock:
            if self._loaded_at < asked:  # no read began since we asked
                started = self.clock()
                with transaction(engine, write=False) as conn:
                    self._prefixes, self._complete = live_prefixes(conn)
                self._loaded_at = started
        return self._holds(prefix)

    def _holds(self, prefix: str) -> bool:
        return not self._complete or prefix in self._prefixes
