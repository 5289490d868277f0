"""One database port, three implementations: every test here runs on the in-memory store,
on SQLite and on PostgreSQL, and must pass on each unchanged.

What the port does not read back (the call ledger, the rows behind a deletion) the `Store`
reads per implementation: that is the tests' window, not the port's.
"""
from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from sqlalchemy import select

from ledgerline.adapters.db.database import SqlDatabase
from ledgerline.adapters.db.engine import make_engine, transaction
from ledgerline.adapters.db.tables import (accounts, blobs, cache_entries, jobs, model_calls,
                                           results, shadow_fields)
from ledgerline.adapters.memory import MemoryDatabase
from ledgerline.domain.identity import Caller
from ledgerline.ports.database import Database
from tests.conftest import TEMPLATE_DB
from tests.tenants import memory_tenant, sql_tenant

@dataclass
class Store:
    name: str
    db: Database
    _tenant: Callable[[str], dict[str, Caller]]
    _rows: Callable[[str], list[dict]]
    closers: list[Callable[[], None]] = field(default_factory=list)

    def tenant(self, account: str) -> dict[str, Caller]:
        """The account, and a caller of each role (a second supplier too)."""
        return self._tenant(account)

    def rows(self, table: str) -> list[dict]:
        """Every row of one of: jobs, blobs, results, cache_entries, calls, agreements,
        accounts; each a dict of its columns (calls in the order they were started)."""
        return self._rows(table)


def memory_store() -> Store:
    db = MemoryDatabase()

    tables = {"jobs": "jobs", "blobs": "blobs", "results": "results",
              "cache_entries": "cache_entries", "calls": "calls",
              "agreements": "shadow_fields", "accounts": "accounts"}

    def rows(table: str) -> list[dict]:
        found = getattr(db.tables, tables[table]).values()
        if table == "calls":
            found = sorted(found, key=lambda row: row.id)
        return [dict(vars(row)) for row in found]

    return Store("memory", db, functools.partial(memory_tenant, db), rows)


SQL_TABLES = {"jobs": jobs, "blobs": blobs, "results": results, "cache_entries": cache_entries,
              "calls": model_calls, "agreements": shadow_fields, "accounts": accounts}


def sql_store(name: str, url: str) -> Store:
    engine = make_engine(url)
    db = SqlDatabase(engine)

    def rows(table: str) -> list[dict]:
        source = SQL_TABLES[table]
        query = select(source)
        if table == "calls":
            query = query.order_by(model_calls.c.id)
        with transaction(engine, write=False) as conn:
            return [dict(row._mapping) for row in conn.execute(query)]

    return Store(name, db, functools.partial(sql_tenant, engine), rows, [engine.dispose])


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "memory":
        yield memory_store()
        return
    if request.param == "sqlite":
        url = request.getfixturevalue("migrated_sqlite")(tmp_path / "ledgerline.sqlite3")
        built = sql_store("sqlite", url)
        yield built
        for close in built.closers:
            close()
        return
    pg = request.getfixturevalue("pg_server")
    name = f"c_{uuid.uuid4().hex[:12]}"
    built = sql_store("postgresql", pg.create_database(name, template=TEMPLATE_DB))
    yield built
    for close in built.closers:
        close()
    pg.drop_database(name)
