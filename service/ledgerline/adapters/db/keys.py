"""SQL of key management (list, revoke, rotate, the revocation generation) and the account list.

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
from .tables import accounts, api_keys, auth_state, invoices


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
             "prefix": r.prefix, "created_at": _time(r.created_at),
             "last_used_at": _time(r.last_used_at), "expires_at": _time(r.expires_at),
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


class CannotRotate(Exception):
    """Why a key cannot be rotated (the message says it to the operator)."""


def rotate(conn: Connection, key_id: str, grace_seconds: float, now: datetime, *,
           expires_in: float | None = None) -> tuple[str, str]:
    """A new key with the same role, account, name and expiry (or one `expires_in` seconds
    away), speaking for the same caller: it sees its predecessor's uploads and replays its
    Idempotency-Keys. The old one keeps working for `grace_seconds` more (never longer than
    it already would). (new id, secret); CannotRotate for a key that does not work any more
    (revoked, expired: rotation never revives a key) or that was rotated already."""
    old = conn.execute(select(api_keys, db_now().label("now"))
                       .where(api_keys.c.id == key_id)).first()
    if old is None:
        raise CannotRotate(f"no key {key_id!r}")
    if old.revoked_at is not None:
        raise CannotRotate(f"key {key_id} is revoked; create a new one with `ledgerline keys "
                           "create`")
    if old.replaced_by is not None:
        raise CannotRotate(f"key {key_id} was rotated already; rotate {old.replaced_by}")
    if old.expires_at is not None and old.expires_at <= old.now:
        raise CannotRotate(f"key {key_id} expired at {_time(old.expires_at)}; rotation never "
                           "revives a key: create a new one with `ledgerline keys create`")
    new_id, secret = create_key(conn, Role(old.role), old.account, old.name, now,
                                expires_in=expires_in,
                                expires_at=old.expires_at if expires_in is None else None,
                                principal_id=old.principal_id or old.id)
    ends = db_now_plus(grace_seconds)
    conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(replaced_by=new_id))
    conn.execute(update(api_keys).where(api_keys.c.id == key_id,
                                        or_(api_keys.c.expires_at.is_(None),
                                            api_keys.c.expires_at > ends))
                 .values(expires_at=ends))
    bump_generation(conn)
    return new_id, secret


def list_accounts(conn: Connection) -> list[dict]:
    """Every account with its creation, retention and what it holds: working keys, invoices."""
    working = (select(api_keys.c.account, func.count().label("n"))
               .where(api_keys.c.revoked_at.is_(None),
                      or_(api_keys.c.expires_at.is_(None), api_keys.c.expires_at > db_now()))
               .group_by(api_keys.c.account).subquery())
    held = (select(invoices.c.account, func.count().label("n"))
            .group_by(invoices.c.account).subquery())
    rows = conn.execute(
        select(accounts, func.coalesce(working.c.n, 0).label("keys"),
               func.coalesce(held.c.n, 0).label("invoices"))
        .outerjoin(working, working.c.account == accounts.c.name)
        .outerjoin(held, held.c.account == accounts.c.name)
        .order_by(accounts.c.name)).all()
    return [{"name": r.name, "created_at": _time(r.created_at),
             "retention_days": r.retention_days,
             "state": "deleting" if r.deleted_at is not None else "active",
             "keys": r.keys, "invoices": r.invoices} for r in rows]
