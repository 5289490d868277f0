"""The database's clock, as SQL expressions: every lease, claim and ledger time comes from it.

A process's own clock may be minutes off (a VM after a pause, a host without NTP); stamping in
the statement makes every process agree on what "now" and "expired" mean, as procrastinate
does. PostgreSQL: the statement's start, in UTC. SQLite: `'now'` to the millisecond, written in
the six-digit form SQLAlchemy stores, so stored times keep comparing as text.
"""
from __future__ import annotations

from sqlalchemy import ColumnElement, Float, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from .tables import UTC

_PG_NOW = "timezone('UTC', statement_timestamp())"
_SQLITE_FORMAT = "'%Y-%m-%d %H:%M:%f000'"  # %f is SS.SSS; three zeros make microseconds


class db_now(FunctionElement):
    """The database's current time (UTC)."""
    type = UTC()
    inherit_cache = True
    name = "db_now"


class db_now_plus(FunctionElement):
    """The database's current time plus `seconds` (may be negative)."""
    type = UTC()
    inherit_cache = True
    name = "db_now_plus"

    def __init__(self, seconds):
        """`seconds`: a number, or a SQL expression of one (a statement's bound parameter)."""
        if not isinstance(seconds, ColumnElement):
            seconds = literal(float(seconds), Float)
        super().__init__(seconds)


@compiles(db_now, "postgresql")
def _pg_now(element, compiler, **kw):
    return _PG_NOW


@compiles(db_now, "sqlite")
def _sqlite_now(element, compiler, **kw):
    return f"strftime({_SQLITE_FORMAT}, 'now')"


@compiles(db_now_plus, "postgresql")
def _pg_now_plus(element, compiler, **kw):
    seconds = compiler.process(element.clauses, **kw)
    return f"({_PG_NOW} + make_interval(secs => {seconds}))"


@compiles(db_now_plus, "sqlite")
def _sqlite_now_plus(element, compiler, **kw):
    seconds = compiler.process(element.clauses, **kw)
    return f"strftime({_SQLITE_FORMAT}, 'now', ({seconds}) || ' seconds')"
