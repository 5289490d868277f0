"""Faults injected through the database port, on any implementation of it: a database that
passes everything on to the real one, except what a test tells it to do instead.

    faults = Faults.around(services)        # services.db is now the faulty one
    faults.replace("claims.renew", lambda real, *args, **kw: ...)
    faults.lose_acknowledgement("claims.publish_and_finish")

`replace` swaps one store method for a function of the real method and its arguments (to fail,
to slow down, to watch); `lose_acknowledgement` lets the next transaction that called the method
commit, then raises StoreUnavailable as a connection dropped before the commit's answer would.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from ledgerline.ports.database import StoreUnavailable


class Faults:
    def __init__(self, db):
        self.db = db
        self._replaced: dict[str, Callable] = {}
        self._lose_after: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def around(cls, services) -> Faults:
        faults = cls(services.db)
        services.db = faults
        return faults

    def replace(self, name: str, instead: Callable) -> None:
        """`name`: a store and its method, "claims.renew"; `instead(real, *args, **kwargs)`."""
        self._replaced[name] = instead

    def restore(self, name: str) -> None:
        self._replaced.pop(name, None)

    def lose_acknowledgement(self, name: str) -> None:
        self._lose_after.add(name)

    @contextlib.contextmanager
    def transaction(self, **kind) -> Iterator[_Transaction]:
        with self._committed(self.db.transaction(**kind)) as tx:
            yield tx

    @contextlib.contextmanager
    def hit_transaction(self) -> Iterator[_Transaction]:
        with self._committed(self.db.hit_transaction()) as tx:
            yield tx

    @contextlib.contextmanager
    def _committed(self, real) -> Iterator[_Transaction]:
        called: set[str] = set()
        with real as tx:
            yield _Transaction(tx, self, called)
        with self._lock:
            lost = called & self._lose_after
            self._lose_after -= lost
        if lost:
            raise StoreUnavailable(f"the acknowledgement of {', '.join(sorted(lost))} was lost")

    def __getattr__(self, name: str):  # one_connection, let_go, listen_for_work, close
        return getattr(self.db, name)


class _Transaction:
    def __init__(self, tx, faults: Faults, called: set[str]):
        self._tx, self._faults, self._called = tx, faults, called

    def __getattr__(self, store: str):
        return _Store(getattr(self._tx, store), store, self._faults, self._called)


class _Store:
    def __init__(self, real, name: str, faults: Faults, called: set[str]):
        self._real, self._name, self._faults, self._called = real, name, faults, called

    def __getattr__(self, method: str):
        real = getattr(self._real, method)
        name = f"{self._name}.{method}"
        instead = self._faults._replaced.get(name)

        def call(*args, **kwargs):
            self._called.add(name)
            if instead is not None:
                return instead(real, *args, **kwargs)
            return real(*args, **kwargs)

        return call
