"""Dashboard sessions: a random id in a signed cookie, its SHA-256 here.

A session is valid while its row exists, has not run out (database time) and its operator key
is neither revoked nor expired: signing out deletes the row, revoking the key ends every
session it opened.
"""
from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import Connection, delete, or_, select

from ...domain.identity import Caller, Role
from .clock import db_now, db_now_plus
from .tables import api_keys, dashboard_sessions

s = dashboard_sessions


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def open_session(conn: Connection, key_id: str, seconds: float) -> str:
    """A new session for the key; its id (only its hash is stored)."""
    session_id = secrets.token_urlsafe(32)
    conn.execute(s.insert().values(id_hash=_hash(session_id), key_id=key_id,
                                   created_at=db_now(), expires_at=db_now_plus(seconds)))
    return session_id


# Who may sign in: operators (the reports), customers and dashboard keys (their account's
# review screen). A supplier sees only its own uploads and reviews nothing.
SIGN_IN_ROLES = (Role.OPERATOR, Role.CUSTOMER, Role.DASHBOARD)


def caller_of(conn: Connection, session_id: str) -> Caller | None:
    """The caller whose live session this is: its key still valid and of a signing-in role."""
    row = conn.execute(
        select(api_keys).select_from(s.join(api_keys, api_keys.c.id == s.c.key_id))
        .where(s.c.id_hash == _hash(session_id), s.c.expires_at > db_now(),
               api_keys.c.role.in_([r.value for r in SIGN_IN_ROLES]),
               api_keys.c.revoked_at.is_(None),
               or_(api_keys.c.expires_at.is_(None), api_keys.c.expires_at > db_now()))).first()
    if row is None:
        return None
    return Caller(key_id=row.id, role=Role(row.role), account=row.account, name=row.name)


def end_session(conn: Connection, session_id: str) -> bool:
    return bool(conn.execute(delete(s).where(s.c.id_hash == _hash(session_id))).rowcount)
