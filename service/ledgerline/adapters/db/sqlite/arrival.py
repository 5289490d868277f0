"""Arrival on SQLite: a cache hit as a statement at a time. The caller's write transaction
holds SQLite's one write lock, so nothing changes between the steps; there are no workers in
other processes to wake (they poll, and one in this process is told directly)."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from types import SimpleNamespace

from sqlalchemy.dialects import sqlite

from .. import prebuilt
from ..arrival import SqlArrival
from ..cache_hits import INVOICE_OF_JOB, Found, entry, event_insert, job_values
from ..invoices import SAME_SELLER_KEYS, same_file_step, same_seller_step
from ..tables import jobs


class SqliteArrival(SqlArrival):
    def found_hit(self, own_only: bool, params: dict) -> Found | None:
        conn = self.conn
        find_entry, insert_job, insert_invoice, insert_event = _steps()
        found = conn.execute(find_entry, params).first()
        if found is None:
            return None
        created = conn.execute(insert_job,
                               {**params, **prebuilt.values(result_id=found.result_id)}).scalar()
        if created is None:
            return None
        conn.execute(insert_invoice, params)
        conn.execute(insert_event, params)
        row = SimpleNamespace(created_at=created, **found._mapping)
        files = conn.execute(same_file_step(own_only), params).scalars().all()
        sellers: Sequence = []
        if row.seller_key:
            keys = {name: getattr(row, name) for name in SAME_SELLER_KEYS}
            sellers = conn.execute(same_seller_step(own_only),
                                   {**params, **prebuilt.values(**keys)}).all()
        return Found(row, list(files), list(sellers))


@functools.cache
def _steps():
    """The entry, the job (its time), the invoice and the event."""
    return (entry(),
            sqlite.insert(jobs)
            .values(job_values(prebuilt.param("result_id", jobs.c.result_id.type)))
            .on_conflict_do_nothing().returning(jobs.c.created_at),
            INVOICE_OF_JOB,
            event_insert())
