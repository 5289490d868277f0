"""Bearer keys to callers. A missing, unknown, revoked or expired key is 401; grants are the
domain's.

Every key lookup goes through `caller_for_secret`, which throttles guessing without ever
refusing a working key (http/key_guard.py).

Known keys are kept in this process's memory (service_layer/authentication.py: `KeyCache`),
so that most requests cost no key lookup; revocation still reaches every process within a
second.
"""
from __future__ import annotations

from flask import current_app, g, request

from ..adapters.db.accounts import key_prefix
from ..domain.errors import Unauthenticated
from ..domain.identity import Caller
from ..service_layer.authentication import KeyCache, digest_of
from . import limits
from .security import rate_limit

# Longer than any key this service issues (llk_ + 43 characters): not worth a lookup.
MAX_SECRET = 200
EXTENSION = "ledgerline.key_cache"


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
    """The caller a key belongs to, or None (a failure, counted by http/key_guard.py);
    TooManyAuthFailures for a key that cannot be a working one, from an address or of a
    prefix past its budget. A working key is never refused."""
    engine = current_app.extensions["ledgerline"].engine
    keys, guard = current_app.extensions[EXTENSION], limits.key_guard()
    digest = digest_of(secret)
    caller = keys.cached(engine, digest)
    if caller is not None:
        return caller
    prefix, address = key_prefix(secret), limits.client_address()
    if len(secret) > MAX_SECRET:  # longer than any key: not worth a lookup, nor remembering
        guard.failed(None, prefix, address)
        return None
    if guard.known_bad(digest):
        guard.failed_again(prefix)
        return None
    guard.before_lookup(engine, prefix, address)
    caller = keys.look_up(engine, secret)
    if caller is None:
        guard.failed(digest, prefix, address)
    return caller
