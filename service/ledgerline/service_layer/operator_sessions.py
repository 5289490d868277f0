"""Dashboard sign-in sessions (operators; customers and dashboard keys for review), kept on the server: the cookie names one by a
random id, never the key (adapters/db/sessions.py)."""
from __future__ import annotations

from ..adapters.db import sessions
from ..adapters.db.engine import transaction
from ..adapters.db.keys import session_secret
from ..domain.identity import Caller


def signing_secret(services) -> str:
    """The secret every process signs session cookies with (read once per process)."""
    with transaction(services.engine, write=False) as conn:
        return session_secret(conn)


SIGN_IN_ROLES = sessions.SIGN_IN_ROLES


def caller_of(services, session_id: str) -> Caller | None:
    with transaction(services.engine, write=False) as conn:
        return sessions.caller_of(conn, session_id)


def open_session(services, key_id: str, seconds: int) -> str:
    with transaction(services.engine, write=True) as conn:
        return sessions.open_session(conn, key_id, seconds)


def end_session(services, session_id: str) -> None:
    with transaction(services.engine, write=True) as conn:
        sessions.end_session(conn, session_id)
