"""SQLite, the embedded default: each write a sequence of statements inside its single
writer's transaction; nothing to notify (workers poll, or are told in-process)."""
from __future__ import annotations

from sqlalchemy.dialects import sqlite

from ..dialect import Dialect
from ..engine import sqlite_kind, sqlite_snapshot
from .arrival import SqliteArrival
from .claims import SqliteClaims

DIALECT = Dialect(name="sqlite", insert=sqlite.insert, arrival=SqliteArrival,
                  claims=SqliteClaims, kind=sqlite_kind, snapshot=sqlite_snapshot,
                  hit_writes=True, notifies=False)
