"""Bearer keys to callers. A missing or unknown key is 401; grants are the domain's.

Every key lookup goes through `caller_for_secret`, which refuses an address that failed too
often before it touches the database (http/limits.py).
"""
from __future__ import annotations

from flask import current_app, g, request

from ..adapters.db.accounts import caller_for_key, hash_key
from ..adapters.db.engine import transaction
from ..domain.errors import Unauthenticated
from ..domain.identity import Caller
from . import limits
from .security import rate_limit

# Longer than any key this service issues (llk_ + 43 characters): not worth a lookup.
MAX_SECRET = 200


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
        raise Unauthenticated("unknown API key")
    g.caller = caller
    rate_limit(caller)
    limits.hold_request_slot(caller.key_id)
    return caller


def caller_for_secret(secret: str) -> Caller | None:
    """The caller a key belongs to, or None (a failure, counted against the address).

    A found key is reused for at most a second (domain/key_cache.py)."""
    limits.refuse_if_failing_too_often()
    caller = None
    if len(secret) <= MAX_SECRET:
        services = current_app.extensions["ledgerline"]
        digest = hash_key(secret)
        caller = services.key_cache.get(digest)
        if caller is None:
            asked_at = services.key_cache.clock()
            with transaction(services.engine, write=False) as conn:
                caller = caller_for_key(conn, secret, digest)
            if caller is not None:
                services.key_cache.put(digest, caller, asked_at)
    if caller is None:
        limits.count_auth_failure()
    return caller
