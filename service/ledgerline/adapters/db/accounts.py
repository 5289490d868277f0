"""Accounts and API keys. Keys are stored only as SHA-256 hashes."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime

from sqlalchemy import Connection, select
from sqlalchemy.exc import IntegrityError

from ...domain.identity import Caller, Role
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
    return conn.execute(select(accounts.c.name).where(accounts.c.name == name)).first() is not None


def create_key(conn: Connection, role: Role, account: str | None, name: str | None,
               now: datetime) -> tuple[str, str]:
    """Returns (key id, secret). The secret is shown once and never stored."""
    if account is not None and not account_exists(conn, account):
        raise UnknownAccount(account)
    key_id = new_id("key")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    conn.execute(api_keys.insert().values(
        id=key_id, key_hash=hash_key(secret), role=role.value, account=account, name=name,
        created_at=now))
    return key_id, secret


def caller_for_key(conn: Connection, secret: str, digest: str | None = None) -> Caller | None:
    """`digest`: hash_key(secret), when the caller computed it already."""
    digest = digest or hash_key(secret)
    row = conn.execute(select(api_keys).where(api_keys.c.key_hash == digest)).first()
    # The lookup is by hash, so timing reveals nothing about the secret; compare anyway.
    if row is None or not hmac.compare_digest(row.key_hash, digest):
        return None
    return Caller(key_id=row.id, role=Role(row.role), account=row.account, name=row.name)
