"""The use cases (service_layer) through their ports, on the in-memory store and on PostgreSQL.

`app` runs a test on both: the same use case, the same assertions, the store's own rows read
back through `App.rows`. `memory` runs it on the in-memory store alone, with a clock the test
moves (ManualClock): for what waits on time, which a real database's clock decides. No test
here sleeps.
"""
from __future__ import annotations

import functools
import io
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import (accounts, api_keys, blobs, invoices, jobs,
                                           model_calls, results, webhook_deliveries)
from ledgerline.adapters.db.webhooks import create as create_endpoint
from ledgerline.adapters.memory import MemoryDatabase, MemoryObjectStore
from ledgerline.bootstrap import Services, bootstrap
from ledgerline.config import Settings
from ledgerline.domain.identity import Caller
from ledgerline.domain.webhooks import EVENT_TYPES, Registration
from ledgerline.service_layer import intake
from ledgerline.service_layer.worker import Worker
from tests.clock import ManualClock
from tests.conftest import TEMPLATE_DB
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.tenants import memory_tenant, sql_tenant

SQL_TABLES = {"jobs": jobs, "invoices": invoices, "blobs": blobs, "results": results,
              "calls": model_calls, "keys": api_keys, "accounts": accounts}


@dataclass
class App:
    """A service on one store, and what a test does with it."""
    store: str                    # memory | postgresql
    services: Services
    clock: ManualClock | None     # the services' and the store's clock, where a test moves it
    _tenant: Callable[[str], dict[str, Caller]]
    _rows: Callable[[str], list]

    @property
    def extractor(self) -> ControlledExtractor:
        return self.services.extractor  # type: ignore[return-value]

    def tenant(self, account: str) -> dict[str, Caller]:
        """The account and a caller of each role (a second supplier too); on PostgreSQL
        an endpoint subscribed to every webhook event, so that events are written."""
        return self._tenant(account)

    def upload(self, caller: Caller, tag: str, *, key: str | None = None, fresh: bool = False,
               account: str | None = None) -> intake.Upload:
        return intake.upload(self.services, caller, account or caller.account or "",
                             io.BytesIO(pdf_bytes(tag)), idempotency_key=key, fresh=fresh)

    def work(self, name: str = "worker") -> int:
        """Run the queue dry with one worker; how many jobs it took."""
        worker, taken = Worker(self.services, name=name), 0
        while worker.run_once():
            taken += 1
        return taken

    def rows(self, table: str) -> list:
        """The rows of one of jobs, invoices, blobs, results, calls (in the order they
        started), keys, accounts; or events, each (invoice id, type, detail)."""
        return self._rows(table)

    def job(self, job_id: str):
        return next(job for job in self.rows("jobs") if job.id == job_id)

    def originals(self) -> list[str]:
        return [stored.key for stored in self.services.store.list_originals()]


def memory_app(tmp_path, extractor, clock: ManualClock, **settings) -> App:
    db = MemoryDatabase(clock)
    services = bootstrap(Settings(spool_dir=str(tmp_path), **settings), db=db,
                         store=MemoryObjectStore(clock),
                         extractor=extractor or ControlledExtractor(), clock=clock)

    def rows(table: str) -> list:
        if table == "events":
            return [(e.invoice_id, e.type, e.detail) for e in db.tables.events.values()]
        found = list(getattr(db.tables, table).values())
        return sorted(found, key=lambda row: row.id) if table == "calls" else found

    return App("memory", services, clock, functools.partial(memory_tenant, db), rows)


def postgresql_app(url: str, tmp_path, extractor, **settings) -> App:
    services = bootstrap(Settings(database_url=url, storage_url=f"file://{tmp_path}/objects",
                                  spool_dir=str(tmp_path), **settings),
                         extractor=extractor or ControlledExtractor())
    engine = services.engine

    def tenant(account: str) -> dict[str, Caller]:
        callers = sql_tenant(engine, account)
        with transaction(engine, write=True) as conn:
            create_endpoint(conn, account, callers["customer"].key_id,
                            Registration("https://hooks.example/in", tuple(EVENT_TYPES)),
                            "whsec_test")
        return callers

    def rows(table: str) -> list:
        with transaction(engine, write=False) as conn:
            if table == "events":
                return [(r.invoice_id, r.type, r.detail) for r in conn.execute(
                    select(webhook_deliveries).order_by(webhook_deliveries.c.occurred_at))]
            query = select(SQL_TABLES[table])
            if table == "calls":
                query = query.order_by(model_calls.c.id)
            return list(conn.execute(query))

    return App("postgresql", services, None, tenant, rows)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def memory(clock, tmp_path):
    """Services on the in-memory store, with a clock the test moves."""
    def make(extractor: ControlledExtractor | None = None, **settings) -> App:
        return memory_app(tmp_path, extractor, clock, **settings)

    return make


@pytest.fixture(params=["memory", "postgresql"])
def app(request, tmp_path, clock):
    """Services on the in-memory store, then on PostgreSQL."""
    built: list[App] = []
    name = f"u_{uuid.uuid4().hex[:12]}"

    def make(extractor: ControlledExtractor | None = None, **settings) -> App:
        if request.param == "memory":
            made = memory_app(tmp_path, extractor, clock, **settings)
        else:
            pg = request.getfixturevalue("pg_server")
            url = pg.create_database(f"{name}_{len(built)}", template=TEMPLATE_DB)
            made = postgresql_app(url, tmp_path, extractor, **settings)
        built.append(made)
        return made

    yield make
    for made in built:
        made.services.db.close()
    if request.param == "postgresql":
        pg = request.getfixturevalue("pg_server")
        for i in range(len(built)):
            pg.drop_database(f"{name}_{i}")
