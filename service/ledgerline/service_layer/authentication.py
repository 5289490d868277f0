"""Bearer keys to callers, with the keys this process already knows kept in memory.

Known keys are kept in this process's memory (`KeyCache`), so that most requests cost no key
lookup. Revocation stays immediate in every process all the same: every revocation, rotation
and account deletion raises one number in the database (`auth_state.generation`) in its own
transaction; each process reads that number at most once per GENERATION_CHECK_SECONDS and
forgets every cached key when it moved. A revoked key therefore works at most that long
anywhere after the revocation committed. An expiring key is kept no longer than the time it
had left when it was looked up (measured by the database's clock, counted down by this
process's monotonic clock, so a process with a wrong clock cannot stretch it).

A lookup also marks the key used (`api_keys.last_used_at`, at most once a minute: a cached key
is looked up again every ENTRY_SECONDS, and the database skips a mark less than a minute old).
"""
from __future__ import annotations

import hashlib
import logging
import threading
import time

from sqlalchemy.exc import OperationalError

from ..adapters.db.accounts import key_lookup, mark_used
from ..adapters.db.engine import transaction
from ..adapters.db.keys import generation
from ..domain.identity import Caller

GENERATION_CHECK_SECONDS = 1.0   # the longest a revoked key can still work in a process
ENTRY_SECONDS = 60.0             # a cached key is looked up again after this long anyway
MAX_ENTRIES = 10_000
log = logging.getLogger(__name__)


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class KeyCache:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._entries: dict[str, tuple[Caller, float]] = {}   # digest -> (caller, until)
        self._generation: int | None = None
        self._checked_at = float("-inf")
        self._epoch = 0   # how many times the cache was cleared for a revocation
        self._lock = threading.Lock()

    def caller(self, engine, secret: str) -> Caller | None:
        return self.cached(engine, digest_of(secret)) or self.look_up(engine, secret)

    def cached(self, engine, digest: str) -> Caller | None:
        """The caller of a key this process looked up lately and that still works."""
        now = self.clock()
        self._forget_if_revoked(engine, now)
        with self._lock:
            entry = self._entries.get(digest)
        return entry[0] if entry is not None and now < entry[1] else None

    def look_up(self, engine, secret: str) -> Caller | None:
        now = self.clock()
        with self._lock:
            epoch = self._epoch
        with transaction(engine, write=False) as conn:
            found = key_lookup(conn, secret)
        if found is None:
            return None
        if not found.marked_lately:
            try:
                with transaction(engine, write=True) as conn:
                    mark_used(conn, found.caller.key_id)
            except OperationalError:  # a busy database: the key works all the same
                log.warning("could not mark key %s used", found.caller.key_id)
        seconds_left = found.seconds_left
        lifetime = ENTRY_SECONDS if seconds_left is None else min(ENTRY_SECONDS, seconds_left)
        with self._lock:
            # Cleared while we looked it up: what we read may predate the revocation that
            # cleared the cache, so it is not kept.
            if epoch == self._epoch:
                if len(self._entries) >= MAX_ENTRIES:
                    self._entries.clear()
                self._entries[digest_of(secret)] = (found.caller, now + lifetime)
        return found.caller

    def _forget_if_revoked(self, engine, now: float) -> None:
        with self._lock:
            if now - self._checked_at < GENERATION_CHECK_SECONDS:
                return
        with transaction(engine, write=False) as conn:
            current = generation(conn)
        with self._lock:
            if current != self._generation:
                self._entries.clear()
                self._epoch += 1
                self._generation = current
            self._checked_at = now
