"""SQL of key management: list, revoke, rotate, and the revocation generation.

Every change that makes a working key stop working raises `auth_state.generation` in the same
transaction; API processes that cache keys read that one number at most once a second and
forget every cached key when it moved (http/auth.py).
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, func, or_, select, update

from ...domain.identity import Role
from .accounts import create_key
from .clock import db_now, db_now_plus
from .deletion import bump_generation
from .tables import api_keys, auth_state


def generation(conn: Connection) -> int:
    return conn.execute(select(auth_state.c.generation).where(auth_state.c.id == 1)).scalar() or 0


def session_secret(conn: Connection) -> str:
    return conn.execute(select(auth_state.c.session_secret).where(auth_state.c.id == 1)).scalar()


def _time(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def list_keys(conn: Connection, account: str | None) -> list[dict]:
    query = select(api_keys, db_now().label("now")).order_by(api_keys.c.created_at, api_keys.c.id)
    if account is not None:
        query = query.where(api_keys.c.account == account)
    rows = conn.execute(query).all()
    return [{"id": r.id, "role": r.role, "account": r.account, "name": r.name,
             "created_at": _time(r.created_at), "expires_at": _time(r.expires_at),
             "revoked_at": _time(r.revoked_at), "replaced_by": r.replaced_by,
             "state": _state(r)} for r in rows]


def _state(row) -> str:
    if row.revoked_at is not None:
        return "revoked"
    if row.expires_at is not None and row.expires_at <= row.now:
        return "expired"
    return "expiring" if row.expires_at is not None else "active"


def revoke(conn: Connection, key_id: str) -> bool:
    """The key stops working now (in every API process within a second)."""
    done = conn.execute(update(api_keys).where(api_keys.c.id == key_id,
                                               api_keys.c.revoked_at.is_(None))
                        .values(revoked_at=db_now())).rowcount
    if done:
        bump_generation(conn)
    return bool(done) or conn.execute(select(func.count()).where(api_keys.c.id == key_id)
                                      .select_from(api_keys)).scalar() > 0


def rotate(conn: Connection, key_id: str, grace_seconds: float, now: datetime, *,
           expires_in: float | None = None) -> tuple[str, str] | None:
    """A new key with the same role, account and name; the old one keeps working for
    `grace_seconds` more (never longer than it already would). (new id, secret), or None for
    a key that does not exist or was revoked."""
    old = conn.execute(select(api_keys).where(api_keys.c.id == key_id,
                                              api_keys.c.revoked_at.is_(None))).first()
    if old is None:
        return None
    new_id, secret = create_key(conn, Role(old.role), old.account, old.name, now,
                                expires_in=expires_in)
    ends = db_now_plus(grace_seconds)
    conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(replaced_by=new_id))
    conn.execute(update(api_keys).where(api_keys.c.id == key_id,
                                        or_(api_keys.c.expires_at.is_(None),
                                            api_keys.c.expires_at > ends))
                 .values(expires_at=ends))
    bump_generation(conn)
    return new_id, secret
