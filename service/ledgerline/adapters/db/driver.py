"""A prebuilt statement run on psycopg's own cursor: a job's claim and its publish, and the
statements of an upload's arrival and of its answer.

SQLAlchemy's execution of a compiled statement (its cache lookup, the execution context, the
parameters and result columns processed one by one) took 230-300 µs of the worker's CPU for
each of the two statements of a job, where psycopg alone takes 60-90 µs; at one job at a time
that was a fifth of every job. Here the statement is compiled once per dialect, its constant
parameters and the processors of its typed parameters and columns are found once, and each
execution binds its values, runs the SQL as a prepared statement and converts one row.

What SQLAlchemy did besides is kept: the driver's errors leave as SQLAlchemy's (a connection
that broke is invalidated, so that its pool replaces it), and while anything listens to the
engine's statements (tracing.py's instrumentation) they run through SQLAlchemy as before, so
that they are seen. On another driver (SQLite's) they run through SQLAlchemy: decided once
per dialect, when a statement first runs on it.
"""
from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Select

from . import prebuilt


class DriverStatement:
    """`statement` (a SELECT whose bound parameters other than its constants are
    prebuilt.param's) compiled for one dialect."""

    def __init__(self, statement: Select, dialect: Dialect):
        compiled = statement.compile(dialect=dialect)
        self.sql = str(compiled)
        self.constants: dict[str, Any] = {}
        self.processors: list[tuple[str, Callable]] = []
        for bind in compiled.binds.values():
            name = compiled.bind_names[bind]
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if name.startswith(prebuilt.PREFIX):
                if process is not None:
                    self.processors.append((name, process))
            else:
                value = bind.effective_value
                self.constants[name] = process(value) if process is not None else value
        columns = list(statement.selected_columns)
        self.make_row = _row_maker([str(column.key) for column in columns])
        self.loaders = [(i, load) for i, column in enumerate(columns)
                        if (load := column.type.dialect_impl(dialect).result_processor(
                            dialect, None)) is not None]

    def first(self, conn: Connection, values: dict) -> Any | None:
        found = self._run(conn, values, lambda cursor: cursor.fetchone())
        return None if found is None else self._row(found)

    def all(self, conn: Connection, values: dict) -> list:
        return [self._row(found) for found in self._run(conn, values,
                                                        lambda cursor: cursor.fetchall())]

    def _run(self, conn: Connection, values: dict, fetch: Callable) -> Any:
        params = {**self.constants, **values}
        for name, process in self.processors:
            params[name] = process(params[name])
        driver: Any = conn.connection.driver_connection
        try:
            with driver.cursor() as cursor:
                cursor.execute(self.sql, params, prepare=True)
                return fetch(cursor)
        except conn.dialect.loaded_dbapi.Error as exc:
            broken = conn.dialect.is_disconnect(exc, driver, None)
            if broken:
                conn.invalidate(exc)
            raise DBAPIError.instance(self.sql, params, exc, conn.dialect.loaded_dbapi.Error,
                                      connection_invalidated=broken,
                                      dialect=conn.dialect) from exc

    def _row(self, found) -> Any:
        if self.loaders:
            found = list(found)
            for i, load in self.loaders:
                found[i] = load(found[i])
        return self.make_row(found)


def _row_maker(names: list[str]) -> Callable[[Iterable], Any]:
    """Rows whose values are read as attributes named as the columns, as SQLAlchemy's are."""
    row: Any = collections.namedtuple("Row", names)  # type: ignore[misc]
    return row._make


class Prebuilt:
    """A statement built once, run on the driver unless something listens to statements or
    the driver is not psycopg."""

    def __init__(self, statement: Select):
        self.statement = statement
        self._compiled: dict[Dialect, DriverStatement | None] = {}

    def first(self, conn: Connection, values: dict) -> Any | None:
        """The statement's first row (attributes named as its columns), or None."""
        compiled = self._on_driver(conn)
        if compiled is None:
            return conn.execute(self.statement, values).first()
        return compiled.first(conn, values)

    def all(self, conn: Connection, values: dict) -> list:
        compiled = self._on_driver(conn)
        if compiled is None:
            return list(conn.execute(self.statement, values).all())
        return compiled.all(conn, values)

    def scalar(self, conn: Connection, values: dict) -> Any | None:
        """The first row's first value, or None."""
        row = self.first(conn, values)
        return None if row is None else row[0]

    def _on_driver(self, conn: Connection) -> DriverStatement | None:
        dispatch = conn.dispatch
        if dispatch.before_cursor_execute or dispatch.after_cursor_execute:
            return None
        try:
            return self._compiled[conn.dialect]
        except KeyError:
            compiled = (DriverStatement(self.statement, conn.dialect)
                        if conn.dialect.driver == "psycopg" else None)
            self._compiled[conn.dialect] = compiled
            return compiled
