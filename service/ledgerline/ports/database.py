"""The database port: transactions, and in each the stores a use case works with.

    with services.db.transaction(write=True) as tx:
        job_id = tx.arrival.insert_job(...)
        tx.events.invoice_event(...)

A transaction commits when its block ends without an exception and rolls back otherwise.
`single_statement`: the block makes one write, which the store may run as a transaction of its
own in one round trip (PostgreSQL's autocommit). `hit_transaction` is where a cache hit is
recorded (Arrival.serve_hit). `one_connection` lets every transaction of a block share one
connection (a request's), and `let_go` gives it back before a long wait.

Failures come as this port's errors, never a driver's: `StoreUnavailable` (nothing can be
written now: the store is away or did not answer in time) and `Conflict` (a uniqueness or
reference rule refused the transaction: a race lost to another writer). Either way nothing of
the transaction happened, but for a commit whose acknowledgement was lost: then it may have.
"""
from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Protocol

from ..domain.errors import LedgerlineError
from .invoices import Corrections, Deletion, Events, InvoiceReads
from .jobs import Arrival, Claims, Ledger


class StoreUnavailable(LedgerlineError):
    """The database is away or did not answer in time; to a client, 503."""
    status, code, title = 503, "unavailable", "Storage or database unavailable"


class Conflict(Exception):
    """A uniqueness or reference rule refused the transaction (another writer won a race)."""


class Transaction(Protocol):
    @property
    def arrival(self) -> Arrival: ...

    @property
    def claims(self) -> Claims: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def invoices(self) -> InvoiceReads: ...

    @property
    def corrections(self) -> Corrections: ...

    @property
    def deletion(self) -> Deletion: ...

    @property
    def events(self) -> Events: ...


class Database(Protocol):
    def transaction(self, *, write: bool,
                    single_statement: bool = False) -> AbstractContextManager[Transaction]: ...

    def hit_transaction(self) -> AbstractContextManager[Transaction]: ...

    def snapshot(self) -> AbstractContextManager[Transaction]:
        """A read-only transaction that sees one state of the store for its whole length: an
        export read in windows lists every row as of its start, none twice and none missed,
        however long its client takes to read."""

    def one_connection(self) -> AbstractContextManager[None]: ...

    def let_go(self) -> None: ...

    def check(self) -> None:
        """Raise StoreUnavailable unless the database answers (readiness)."""

    def listen_for_work(self, wake: threading.Event, stop: threading.Event) -> None:
        """Set `wake` whenever another process records work for a worker, until `stop` (where
        the store can tell: PostgreSQL; elsewhere workers poll)."""

    def close(self) -> None:
        """Let go of every connection (the end of a process, or of a test)."""
