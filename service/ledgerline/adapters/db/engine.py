"""Engines for SQLite (embedded default) and PostgreSQL, and the transaction helpers.

SQLite: several processes share one file, so WAL, a busy timeout, and write
transactions that take the write lock up front (BEGIN IMMEDIATE): read-then-write
decisions are then serialised by SQLite's single writer instead of failing with
"database is locked" half-way through.

PostgreSQL: a server that is slow, gone or hung must cost a request seconds, not forever.
Connecting gives up after `timeout` seconds; the server cancels a statement after `timeout`
seconds (statement_timeout); TCP keepalives find a peer that vanished. A server that is alive
to TCP but does not answer (paused, swapping, SIGSTOPped) cancels nothing and keeps the
connection open, so the client also stops waiting for any answer after the timeout plus a
margin, and closes that connection: the caller gets an OperationalError (503) and the pool a
fresh connection next time.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import os
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import sqlalchemy
from sqlalchemy import Connection, Engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError

WRITE = "ledgerline_write"
DEFAULT_TIMEOUT_SECONDS = 5.0
ANSWER_MARGIN_SECONDS = 2.0  # past the server's own statement timeout, before we give up
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3,
             "keepalives_count": 3}


def make_engine(url: str, *, timeout: float | None = DEFAULT_TIMEOUT_SECONDS) -> Engine:
    """`timeout=None` (migrations, bulk loads): no statement timeout and no answer deadline."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    return _postgres_engine(url, timeout)


def _postgres_engine(url: str, timeout: float | None) -> Engine:
    from .answering import answering_connection_class

    options = "-c timezone=UTC"
    connect_args = dict(KEEPALIVE, connect_timeout=math.ceil(timeout or 10))
    if timeout is not None:
        options += f" -c statement_timeout={int(timeout * 1000)}"
    connect_args["options"] = options
    # sqlalchemy.create_engine looked up when called: tracing (tracing.py) may wrap it.
    engine = sqlalchemy.create_engine(url, pool_size=10, max_overflow=20, pool_recycle=1800,
                                      connect_args=connect_args)
    connection_class = answering_connection_class()
    answer_within = None if timeout is None else timeout + ANSWER_MARGIN_SECONDS

    @event.listens_for(engine, "do_connect")
    def _connect(dialect, conn_rec, cargs, cparams):
        conn = connection_class.connect(*cargs, **cparams)
        conn.answer_within = answer_within
        return conn

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn, conn_rec, proxy):
        # the pool's pre-ping, without its round trip (see answering.py); the pool replaces a
        # connection refused here with a fresh one
        if dbapi_conn.hung_up():
            raise DisconnectionError("the server closed this pooled connection")

    _kinds[engine] = postgresql_kind
    return engine


@contextlib.contextmanager
def unhurried(conn: Connection, seconds: float) -> Iterator[Connection]:
    """Allow the statements of this block `seconds` each (a report over a large day)."""
    if conn.dialect.name != "postgresql":
        yield conn
        return
    driver = conn.connection.driver_connection
    before = driver.answer_within
    driver.answer_within = seconds + ANSWER_MARGIN_SECONDS
    conn.exec_driver_sql(f"SET statement_timeout = {int(seconds * 1000)}")
    try:
        yield conn
    finally:
        driver.answer_within = before
        if not driver.closed:
            conn.exec_driver_sql("RESET statement_timeout")


def _sqlite_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = sqlalchemy.create_engine(url, connect_args={"timeout": 30,
                                                         "check_same_thread": False})

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

    _kinds[engine] = sqlite_kind
    return engine


def insert_for(conn: Connection):
    """The dialect's INSERT, which knows ON CONFLICT on both backends."""
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


class _Held:
    """The pooled connection every transaction of a block shares, checked out when the first
    one starts (so a block that never reaches the database holds nothing)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.conn: Connection | None = None

    def connection(self) -> Connection:
        if self.conn is not None and self.conn.invalidated:  # lost in an outage
            self.let_go()
        if self.conn is None or self.conn.closed:
            self.conn = self.engine.connect()
        return self.conn

    def let_go(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


_held: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("ledgerline_held",
                                                                     default=None)


@contextlib.contextmanager
def one_connection(engine: Engine) -> Iterator[None]:
    """Every `transaction` on `engine` inside this block uses one pooled connection: one
    checkout for a whole request (an upload that is no cache hit runs several
    transactions) instead of one each. Never hold it across a wait: see `let_go`."""
    held = _Held(engine)
    token = _held.set(held)
    try:
        yield
    finally:
        _held.reset(token)
        held.let_go()


def let_go(engine: Engine) -> None:
    """Give the block's connection back to the pool now (before a long wait); the next
    transaction checks one out again."""
    held = _held.get()
    if held is not None and held.engine is engine:
        held.let_go()


Kind = Callable[[Connection, bool, bool], Connection]


@contextlib.contextmanager
def transaction(engine: Engine, *, write: bool, single_statement: bool = False,
                kind: Kind | None = None) -> Iterator[Connection]:
    """One transaction; rolls back unless the block finishes without an exception.

    `kind` sets up the connection for the transaction's kind: postgresql_kind or sqlite_kind,
    chosen once by the caller that knows its dialect (adapters/db/database.py); by default,
    chosen here.
    """
    kind = kind or _kinds.get(engine) or _kind_of(engine)
    held = _held.get()
    if held is not None and held.engine is engine and not (
            held.conn is not None and held.conn.in_transaction()):
        conn = kind(held.connection(), write, single_statement)
        try:
            with conn.begin():
                yield conn
        except BaseException:
            held.let_go()  # whatever went wrong, the next transaction starts on a fresh checkout
            raise
        return
    with engine.connect() as conn, kind(conn, write, single_statement).begin():
        yield conn


# The kind of transaction each engine's dialect begins, chosen when make_engine made it.
_kinds: weakref.WeakKeyDictionary[Engine, Kind] = weakref.WeakKeyDictionary()


def _kind_of(engine: Engine) -> Kind:
    """An engine make_engine did not make (a test's): its dialect decides, once."""
    kind = postgresql_kind if engine.dialect.name == "postgresql" else sqlite_kind
    _kinds[engine] = kind
    return kind


def postgresql_kind(conn: Connection, write: bool, single_statement: bool) -> Connection:
    """Reads on PostgreSQL run in autocommit: under READ COMMITTED every statement takes its
    own snapshot anyway, so BEGIN and COMMIT would only add two round trips to each read (a
    cache hit makes three reads). So does a write the caller makes in one statement
    (`single_statement`, however many data-modifying CTEs it carries): PostgreSQL runs it as
    its own transaction, all or nothing, in one round trip instead of three. Set in place, on
    a held connection too, and only when it changes: SQLAlchemy adds a reset for the pool's
    check-in at every setting, and a worker holds its connection for as long as it runs (two
    settings a job grew its connection's record by two callbacks a job, and cost CPU)."""
    level = conn.default_isolation_level if write and not single_statement else "AUTOCOMMIT"
    if conn.get_execution_options().get("isolation_level") == level:
        return conn
    return conn.execution_options(isolation_level=level)


def sqlite_kind(conn: Connection, write: bool, single_statement: bool) -> Connection:
    """A write on SQLite takes the write lock up front (BEGIN IMMEDIATE), however many
    statements it makes; a read takes none."""
    return conn.execution_options(**{WRITE: write})


@contextlib.contextmanager
def postgresql_snapshot(engine: Engine) -> Iterator[Connection]:
    """REPEATABLE READ, read only: every statement sees the state of the first. Without JIT
    compilation, which the per-row duplicate lookups of an export made the planner choose,
    and which took longer than the work (11 s before the first of 10,000 rows): each lookup
    is a few index probes, nothing to compile."""
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="REPEATABLE READ",
                                      postgresql_readonly=True)
        with conn.begin():
            conn.exec_driver_sql("SET LOCAL jit = off")
            yield conn


@contextlib.contextmanager
def sqlite_snapshot(engine: Engine) -> Iterator[Connection]:
    """A read transaction: SQLite's (in WAL mode) reads one state from its first read on."""
    with engine.connect() as conn, sqlite_kind(conn, False, False).begin():
        yield conn


def sqlite_path(url: str) -> str | None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return os.path.abspath(parsed.database)
    return None
