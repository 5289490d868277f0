"""The database port (ports/database.py) on SQLAlchemy: SQLite or PostgreSQL, its dialect's
implementation chosen once, when the database is opened.

A transaction hands out the stores of that dialect on its one connection, each made when first
asked for. SQLAlchemy's errors leave as the port's: a database that is away or did not answer
(OperationalError) as StoreUnavailable, a constraint that refused the transaction
(IntegrityError) as Conflict.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from functools import cached_property

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError, OperationalError

from ...domain.identity import Caller
from ...ports.database import Conflict, StoreUnavailable
from ...ports.invoices import EditableInvoice, InvoiceProgress, ListFilter
from ..invoice_views import editable
from . import engine as engines
from . import invoices, outbox
from .arrival import SqlArrival
from .claims import SqlClaims
from .corrections import SqlCorrections
from .deletion import SqlDeletion
from .dialect import Dialect
from .ledger import SqlLedger
from .notify import Listener

UNAVAILABLE = "the database is unavailable; nothing was changed"


def dialect_of(engine: Engine) -> Dialect:
    if engine.dialect.name == "postgresql":
        from .postgresql import DIALECT
    else:
        from .sqlite import DIALECT
    return DIALECT


class SqlDatabase:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.dialect = dialect_of(engine)

    @contextlib.contextmanager
    def transaction(self, *, write: bool,
                    single_statement: bool = False) -> Iterator[SqlTransaction]:
        try:
            with engines.transaction(self.engine, write=write, single_statement=single_statement,
                                     kind=self.dialect.kind) as conn:
                yield SqlTransaction(conn, self.dialect)
        except OperationalError as exc:
            raise StoreUnavailable(UNAVAILABLE) from exc
        except IntegrityError as exc:
            raise Conflict(str(exc.orig)) from exc

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[SqlTransaction]:
        try:
            with self.dialect.snapshot(self.engine) as conn:
                yield SqlTransaction(conn, self.dialect)
        except OperationalError as exc:
            raise StoreUnavailable(UNAVAILABLE) from exc

    def hit_transaction(self) -> AbstractContextManager[SqlTransaction]:
        """PostgreSQL: autocommit, since the hit's one statement is a transaction of its own
        (BEGIN and COMMIT would be two more round trips); SQLite: a write transaction, which
        takes the write lock up front."""
        return self.transaction(write=self.dialect.hit_writes)

    def one_connection(self) -> AbstractContextManager[None]:
        return engines.one_connection(self.engine)

    def let_go(self) -> None:
        engines.let_go(self.engine)

    def check(self) -> None:
        with self.transaction(write=False) as tx:
            tx.conn.execute(text("SELECT 1"))

    def listen_for_work(self, wake: threading.Event, stop: threading.Event) -> None:
        if self.dialect.notifies:
            Listener.wake_workers(self.engine, wake, stop)

    def close(self) -> None:
        self.engine.dispose()


class SqlTransaction:
    def __init__(self, conn: Connection, dialect: Dialect):
        self.conn, self._dialect = conn, dialect

    @cached_property
    def arrival(self) -> SqlArrival:
        return self._dialect.arrival(self.conn, self._dialect.insert)

    @cached_property
    def ledger(self) -> SqlLedger:
        return SqlLedger(self.conn, self._dialect.insert)

    @cached_property
    def claims(self) -> SqlClaims:
        return self._dialect.claims(self.conn, self._dialect.insert, self.ledger)

    @cached_property
    def invoices(self) -> SqlInvoiceReads:
        return SqlInvoiceReads(self.conn)

    @cached_property
    def corrections(self) -> SqlCorrections:
        return SqlCorrections(self.conn)

    @cached_property
    def deletion(self) -> SqlDeletion:
        return SqlDeletion(self.conn)

    @cached_property
    def events(self) -> SqlEvents:
        return SqlEvents(self.conn)


class SqlInvoiceReads:
    """The port's reads, from adapters/db/invoices.py."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def get(self, caller: Caller, account: str, invoice_id: str) -> dict | None:
        return invoices.get_invoice(self.conn, caller, account, invoice_id)

    def page(self, caller: Caller, account: str, flt: ListFilter, *,
             with_document: bool = False) -> list[dict]:
        return invoices.list_invoices(self.conn, caller, account, flt,
                                      with_document=with_document)

    def export(self, caller: Caller, account: str, flt: ListFilter) -> Iterator[dict]:
        return invoices.export_invoices(self.conn, caller, account, flt)

    def earlier_duplicate(self, caller: Caller, account: str, invoice: EditableInvoice,
                          summary: dict) -> dict | None:
        return invoices.earlier_duplicate(self.conn, caller, account, invoice, summary)

    def file_location(self, caller: Caller, account: str, invoice_id: str) -> str | None:
        return invoices.file_location(self.conn, caller, account, invoice_id)

    def review_queue(self) -> list[tuple[str, int, int]]:
        return invoices.review_queue(self.conn)

    def progress(self, caller: Caller, account: str,
                 invoice_id: str) -> InvoiceProgress | None:
        return invoices.invoice_progress(self.conn, caller, account, invoice_id)

    def for_update(self, caller: Caller, account: str,
                   invoice_id: str) -> EditableInvoice | None:
        row = invoices.invoice_for_update(self.conn, caller, account, invoice_id)
        if row is None:
            return None
        return editable(row)


class SqlEvents:
    def __init__(self, conn: Connection):
        self.conn = conn

    def invoice_event(self, account: str, invoice_id: str, event_type: str,
                      discriminator: str, detail: str | None = None) -> None:
        outbox.invoice_event(self.conn, account, invoice_id, event_type, discriminator, detail)
