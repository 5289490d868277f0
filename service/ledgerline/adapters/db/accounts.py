"""Accounts and API keys. Keys are stored only as SHA-256 hashes."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, or_, select, update
from sqlalchemy.exc import IntegrityError

from ...domain.identity import Caller, Role
from ...domain.ids import new_id
from .clock import db_now, db_now_plus
from .tables import accounts, api_keys

KEY_PREFIX = "llk_"
# How much of a secret is kept in clear (`api_keys.prefix`): the marker and 8 random
# characters, 48 of the secret's 256 bits. Enough to tell keys apart; far from enough to use one.
KEY_PREFIX_CHARS = len(KEY_PREFIX) + 8
LAST_USED_EVERY_SECONDS = 60  # `last_used_at` moves at most this often


def key_prefix(secret: str) -> str:
    return secret[:KEY_PREFIX_CHARS]


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
               now: datetime, *, expires_in: float | None = None, expires_at=None,
               principal_id: str | None = None) -> tuple[str, str]:
    """Returns (key id, secret). The secret is shown once and never stored, only its hash and
    its first characters. `expires_in`: seconds until the key stops working, by the
    database's clock; or `expires_at`, a time (None for both: never). `principal_id`: the
    caller the key speaks for (a rotated key's first predecessor)."""
    if account is not None and not account_exists(conn, account):
        raise UnknownAccount(account)
    key_id = new_id("key")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    if expires_in is not None:
        expires_at = db_now_plus(expires_in)
    conn.execute(api_keys.insert().values(
        id=key_id, key_hash=hash_key(secret), prefix=key_prefix(secret), role=role.value,
        account=account, name=name, created_at=now, expires_at=expires_at,
        principal_id=principal_id))
    return key_id, secret


def caller_for_key(conn: Connection, secret: str) -> Caller | None:
    found = key_lookup(conn, secret)
    return found.caller if found else None


@dataclass(frozen=True)
class FoundKey:
    caller: Caller
    seconds_left: float | None  # by the database's clock; None: no expiry
    marked_lately: bool         # `last_used_at` moved less than a minute ago


def key_lookup(conn: Connection, secret: str) -> FoundKey | None:
    """A key that is neither revoked nor expired."""
    digest = hash_key(secret)
    row = conn.execute(select(api_keys, db_now().label("now"))
                       .where(api_keys.c.key_hash == digest, api_keys.c.revoked_at.is_(None),
                              or_(api_keys.c.expires_at.is_(None),
                                  api_keys.c.expires_at > db_now()))).first()
    # The lookup is by hash, so timing reveals nothing about the secret; compare anyway.
    if row is None or not hmac.compare_digest(row.key_hash, digest):
        return None
    caller = Caller(key_id=row.id, role=Role(row.role), account=row.account, name=row.name,
                    principal_id=row.principal_id)
    seconds_left = (row.expires_at - row.now).total_seconds() if row.expires_at else None
    lately = (row.last_used_at is not None
              and (row.now - row.last_used_at).total_seconds() < LAST_USED_EVERY_SECONDS)
    return FoundKey(caller, seconds_left, lately)


def mark_used(conn: Connection, key_id: str) -> None:
    """`last_used_at` = now, unless it moved less than a minute ago (by the database's clock):
    however many processes see the key, the row is written at most once a minute."""
    conn.execute(update(api_keys).where(
        api_keys.c.id == key_id,
        or_(api_keys.c.last_used_at.is_(None),
            api_keys.c.last_used_at < db_now_plus(-LAST_USED_EVERY_SECONDS)))
        .values(last_used_at=db_now()))


def live_prefixes(conn: Connection) -> tuple[frozenset[str], bool]:
    """The prefixes of every key that works now, and whether every such key has one (keys
    made before migration 0010 have none)."""
    rows = conn.execute(select(api_keys.c.prefix).where(
        api_keys.c.revoked_at.is_(None),
        or_(api_keys.c.expires_at.is_(None), api_keys.c.expires_at > db_now()))).scalars().all()
    return frozenset(p for p in rows if p), all(rows)
