"""Accounts and API keys. Keys are stored only as SHA-256 hashes."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime

from sqlalchemy import Connection, or_, select
from sqlalchemy.exc import IntegrityError

from ...domain.identity import Caller, Role
from .clock import db_now, db_now_plus
from .jobs import new_id
from .tables import accounts, api_keys

KEY_PREFIX = "llk_"


class AccountExists(Exception):
    pass


class UnknownAccount(Exception):
    pass


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_account(conn: Connection, name: str, now: datetime) -> None:
    try:
        with conn.begin_nested():
            conn.execute(accounts.insert().values(name=name, created_at=now))
    except IntegrityError:
        raise AccountExists(name) from None


def account_exists(conn: Connection, name: str) -> bool:
    """An account that exists and is not being deleted."""
    return conn.execute(select(accounts.c.name).where(
        accounts.c.name == name, accounts.c.deleted_at.is_(None))).first() is not None


def create_key(conn: Connection, role: Role, account: str | None, name: str | None,
               now: datetime, *, expires_in: float | None = None) -> tuple[str, str]:
    """Returns (key id, secret). The secret is shown once and never stored. `expires_in`:
    seconds until the key stops working, by the database's clock (None: never)."""
    if account is not None and not account_exists(conn, account):
        raise UnknownAccount(account)
    key_id = new_id("key")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    conn.execute(api_keys.insert().values(
        id=key_id, key_hash=hash_key(secret), role=role.value, account=account, name=name,
        created_at=now, expires_at=None if expires_in is None else db_now_plus(expires_in)))
    return key_id, secret


def caller_for_key(conn: Connection, secret: str) -> Caller | None:
    found = key_lookup(conn, secret)
    return found[0] if found else None


def key_lookup(conn: Connection, secret: str) -> tuple[Caller, float | None] | None:
    """The caller of a key that is neither revoked nor expired, and the seconds it has left
    by the database's clock (None: no expiry)."""
    digest = hash_key(secret)
    row = conn.execute(select(api_keys, db_now().label("now"))
                       .where(api_keys.c.key_hash == digest, api_keys.c.revoked_at.is_(None),
                              or_(api_keys.c.expires_at.is_(None),
                                  api_keys.c.expires_at > db_now()))).first()
    # The lookup is by hash, so timing reveals nothing about the secret; compare anyway.
    if row is None or not hmac.compare_digest(row.key_hash, digest):
        return None
    caller = Caller(key_id=row.id, role=Role(row.role), account=row.account, name=row.name)
    seconds_left = (row.expires_at - row.now).total_seconds() if row.expires_at else None
    return caller, seconds_left
