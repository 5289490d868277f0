"""Engines for SQLite (embedded default) and PostgreSQL, and the transaction helpers.

SQLite: several processes share one file, so WAL, a busy timeout, and write
transactions that take the write lock up front (BEGIN IMMEDIATE): read-then-write
decisions are then serialised by SQLite's single writer instead of failing with
"database is locked" half-way through.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url

WRITE = "ledgerline_write"


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                         pool_recycle=1800)


def _sqlite_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves, below
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")  # an accepted upload survives power loss too
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection):
        immediate = conn.get_execution_options().get(WRITE)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def insert_for(conn: Connection):
    """The dialect's INSERT, which knows ON CONFLICT on both backends."""
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


@contextlib.contextmanager
def transaction(engine: Engine, *, write: bool) -> Iterator[Connection]:
    """One transaction; rolls back unless the block finishes without an exception.

    Reads on PostgreSQL run in autocommit: under READ COMMITTED every statement takes its own
    snapshot anyway, so BEGIN and COMMIT would only add two round trips to each read (a cache
    hit makes three reads).
    """
    with engine.connect() as conn:
        if write:
            conn = conn.execution_options(**{WRITE: True})
        elif conn.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        with conn.begin():
            yield conn



def sqlite_path(url: str) -> str | None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return os.path.abspath(parsed.database)
    return None
