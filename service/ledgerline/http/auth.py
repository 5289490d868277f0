"""Bearer keys to callers. A missing or unknown key is 401; grants are the domain's."""
from __future__ import annotations

from flask import current_app, g, request

from ..adapters.db.accounts import caller_for_key
from ..adapters.db.engine import transaction
from ..domain.errors import Unauthenticated
from ..domain.identity import Caller
from .security import rate_limit


def current_caller() -> Caller:
    if "caller" in g:
        return g.caller
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise Unauthenticated("send Authorization: Bearer <API key>")
    services = current_app.extensions["ledgerline"]
    with transaction(services.engine, write=False) as conn:
        caller = caller_for_key(conn, secret.strip())
    if caller is None:
        raise Unauthenticated("unknown API key")
    g.caller = caller
    rate_limit(caller)
    return caller
