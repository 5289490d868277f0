"""Bearer keys to callers. A missing, unknown, revoked or expired key is 401; grants are the
domain's.

Every key lookup goes through `caller_for_secret`, which refuses an address that failed too
often before it touches the database (http/limits.py).

Known keys are kept in this process's memory (`KeyCache`), so that most requests cost no key
lookup. Revocation stays immediate in every process all the same: every revocation, rotation
and account deletion raises one number in the database (`auth_state.generation`) in its own
transaction; each process reads that number at most once per GENERATION_CHECK_SECONDS and
forgets every cached key when it moved. A revoked key therefore works at most that long
anywhere after the revocation committed. An expiring key is kept no longer than the time it
had left when it was looked up (measured by the database's clock, counted down by this
process's monotonic clock, so a process with a wrong clock cannot stretch it).
"""
from __future__ import annotations

import hashlib
import threading
import time

from flask import current_app, g, request

from ..adapters.db.accounts import key_lookup
from ..adapters.db.engine import transaction
from ..adapters.db.keys import generation
from ..domain.errors import Unauthenticated
from ..domain.identity import Caller
from . import limits
from .security import rate_limit

# Longer than any key this service issues (llk_ + 43 characters): not worth a lookup.
MAX_SECRET = 200
GENERATION_CHECK_SECONDS = 1.0   # the longest a revoked key can still work in a process
ENTRY_SECONDS = 60.0             # a cached key is looked up again after this long anyway
MAX_ENTRIES = 10_000
EXTENSION = "ledgerline.key_cache"


class KeyCache:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._entries: dict[str, tuple[Caller, float]] = {}   # digest -> (caller, until)
        self._generation: int | None = None
        self._checked_at = float("-inf")
        self._epoch = 0   # how many times the cache was cleared for a revocation
        self._lock = threading.Lock()

    def caller(self, engine, secret: str) -> Caller | None:
        digest = hashlib.sha256(secret.encode()).hexdigest()
        now = self.clock()
        self._forget_if_revoked(engine, now)
        with self._lock:
            entry = self._entries.get(digest)
            epoch = self._epoch
        if entry is not None and now < entry[1]:
            return entry[0]
        with transaction(engine, write=False) as conn:
            found = key_lookup(conn, secret)
        if found is None:
            return None
        caller, seconds_left = found
        lifetime = ENTRY_SECONDS if seconds_left is None else min(ENTRY_SECONDS, seconds_left)
        with self._lock:
            # Cleared while we looked it up: what we read may predate the revocation that
            # cleared the cache, so it is not kept.
            if epoch == self._epoch:
                if len(self._entries) >= MAX_ENTRIES:
                    self._entries.clear()
                self._entries[digest] = (caller, now + lifetime)
        return caller

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


def install(app) -> None:
    app.extensions[EXTENSION] = KeyCache()


def bearer_secret() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()


def current_caller() -> Caller:
    if "caller" in g:
        return g.caller
    secret = bearer_secret()
    if secret is None:
        raise Unauthenticated("send Authorization: Bearer <API key>")
    caller = caller_for_secret(secret)
    if caller is None:
        raise Unauthenticated("unknown, revoked or expired API key")
    g.caller = caller
    rate_limit(caller)
    limits.hold_request_slot(caller.key_id)
    return caller


def caller_for_secret(secret: str) -> Caller | None:
    """The caller a key belongs to, or None (a failure, counted against the address)."""
    limits.refuse_if_failing_too_often()
    caller = None
    if len(secret) <= MAX_SECRET:
        services = current_app.extensions["ledgerline"]
        caller = current_app.extensions[EXTENSION].caller(services.engine, secret)
    if caller is None:
        limits.count_auth_failure()
    return caller
