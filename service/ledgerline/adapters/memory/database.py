"""The database port in memory, shipped as real code (as procrastinate ships its
InMemoryConnector): for the use cases' unit tests, which run against it in milliseconds, and
for trying the service without a database. It keeps every promise of the port, and the same
contract tests as SQLite and PostgreSQL hold it to them (tests/contract).

One lock serialises transactions, as SQLite's single writer does; a transaction that ends in an
exception puts every table back as it found it. A snapshot reads a copy of the tables made
when it began, holding no lock while its reader takes its time. Time is the given clock's
(ports/clock.py), moved on by a microsecond whenever it stands still, so that rows keep the
order they were written in, as statements stamped by a database's clock do. A store shared
by several processes needs SQL: this one lives in one.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cached_property

from ...domain.identity import Caller
from ...ports.clock import Clock, SystemClock
from .arrival import MemoryArrival
from .claims import MemoryClaims
from .events import MemoryEvents
from .invoices import MemoryCorrections, MemoryDeletion, MemoryInvoiceReads
from .ledger import MemoryLedger
from .tables import AccountRow, KeyRow, Now, Tables

TICK = timedelta(microseconds=1)


class MemoryDatabase:
    def __init__(self, clock: Clock | None = None):
        self.clock = clock or SystemClock()
        self.tables = Tables()
        self._lock = threading.RLock()
        self._last: datetime | None = None
        self._depth = 0

    def now(self) -> datetime:
        """The store's time: the clock's, strictly after the last time it gave."""
        now = self.clock.now()
        if self._last is not None and now <= self._last:
            now = self._last + TICK
        self._last = now
        return now

    @contextlib.contextmanager
    def transaction(self, *, write: bool,
                    single_statement: bool = False) -> Iterator[MemoryTransaction]:
        with self._lock:
            outermost = self._depth == 0
            saved = self.tables.snapshot() if outermost else None
            self._depth += 1
            try:
                yield MemoryTransaction(self.tables, self.now)
            except BaseException:
                if saved is not None:
                    self.tables.restore(saved)
                raise
            finally:
                self._depth -= 1

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[MemoryTransaction]:
        with self._lock:
            copy = Tables()
            copy.restore(self.tables.snapshot())
        yield MemoryTransaction(copy, self.now)

    def hit_transaction(self) -> contextlib.AbstractContextManager[MemoryTransaction]:
        return self.transaction(write=True)

    def one_connection(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def let_go(self) -> None:
        pass

    def check(self) -> None:
        """Always answers: it lives in this process."""

    def listen_for_work(self, wake: threading.Event, stop: threading.Event) -> None:
        """No other process shares this store: its own uploads wake its workers."""

    def close(self) -> None:
        pass

    # --- what SQL's accounts and keys tables hold (adapters/db/accounts.py) ---------------

    def add_account(self, name: str) -> None:
        with self.transaction(write=True):
            self.tables.accounts[name] = AccountRow(name, self.now())

    def add_key(self, caller: Caller) -> None:
        """A key of `caller` (its id, role, account and name), as if `keys create` made it."""
        with self.transaction(write=True):
            self.tables.keys[caller.key_id] = KeyRow(caller.key_id, caller.role.value,
                                                     caller.account, caller.name)


class MemoryTransaction:
    def __init__(self, tables: Tables, now: Now):
        self._tables, self._now = tables, now

    @cached_property
    def arrival(self) -> MemoryArrival:
        return MemoryArrival(self._tables, self._now)

    @cached_property
    def ledger(self) -> MemoryLedger:
        return MemoryLedger(self._tables, self._now)

    @cached_property
    def claims(self) -> MemoryClaims:
        return MemoryClaims(self._tables, self._now, self.ledger)

    @cached_property
    def invoices(self) -> MemoryInvoiceReads:
        return MemoryInvoiceReads(self._tables)

    @cached_property
    def corrections(self) -> MemoryCorrections:
        return MemoryCorrections(self._tables, self._now)

    @cached_property
    def deletion(self) -> MemoryDeletion:
        return MemoryDeletion(self._tables, self._now)

    @cached_property
    def events(self) -> MemoryEvents:
        return MemoryEvents(self._tables, self._now)
