"""Arrival on PostgreSQL: a cache hit recorded and answered in one statement (data-modifying
CTEs in autocommit: one round trip); a new upload's job, its invoice and the workers' wake-up
call (NOTIFY, sent on commit) in one statement too."""
from __future__ import annotations

import functools

from sqlalchemy import exists, func, null, select, true
from sqlalchemy.dialects import postgresql

from ..arrival import SqlArrival, job_insert
from ..cache_hits import Found, entry, event_insert, invoice_insert, job_values
from ..driver import Prebuilt
from ..invoices import OLDEST_FIRST, SAME_SELLER_KEYS, same_file_step, same_seller
from ...invoice_views import DUPLICATE_FIELDS
from ..notify import new_job_notice
from ..tables import invoices, jobs


class PostgresArrival(SqlArrival):
    def insert_rows(self, finished: bool, works: bool, invoice_id: str | None,
                    params: dict) -> None:
        if invoice_id is None and not works:
            super().insert_rows(finished, works, invoice_id, params)
        else:
            _recorded(finished, works, invoice_id is not None).first(self.conn, params)

    def found_hit(self, own_only: bool, params: dict) -> Found | None:
        row = _one_statement(own_only).first(self.conn, params)
        if row is None:
            return None
        return Found(row, row.same_file or [], row.same_seller or [])


@functools.cache
def _recorded(finished: bool, works: bool, with_invoice: bool):
    """The job, the invoice (`with_invoice`) and, for work, the workers' wake-up call: the
    data-modifying CTEs run whether or not the query reads them."""
    new_job = job_insert(finished, works).returning(jobs.c.id, jobs.c.created_at).cte("new_job")
    told = new_job_notice() if works else select(null().label("sent"))
    told = told.add_cte(new_job)
    if with_invoice:
        told = told.add_cte(invoice_insert(new_job).cte("new_invoice"))
    return Prebuilt(told)


@functools.cache
def _one_statement(own_only: bool):
    """The entry, the job, the invoice and the event, and what the answer shows."""
    hit = entry().cte("hit_entry")
    values = job_values(hit.c.result_id)
    new_job = (postgresql.insert(jobs).from_select(list(values), select(*values.values()),
                                                   include_defaults=False)
               .on_conflict_do_nothing()
               .returning(jobs.c.id, jobs.c.created_at).cte("hit_job"))
    new_invoice = invoice_insert(new_job).returning(invoices.c.id).cte("hit_invoice")
    event = event_insert(only_if=exists(select(new_invoice.c.id))).cte("hit_event")

    # The same file's ids (the oldest few) and the seller's candidates as rows, for
    # domain.duplicates to judge, each as one array in the query's order.
    files = same_file_step(own_only).add_columns(invoices.c.created_at).subquery()
    sellers = same_seller(own_only, *(select(hit.c[name]).scalar_subquery()
                                      for name in SAME_SELLER_KEYS))
    answer = (select(new_job.c.created_at, hit.c.document, hit.c.review_required,
                     hit.c.seller_key, *(hit.c[name] for name in DUPLICATE_FIELDS),
                     select(func.array_agg(postgresql.aggregate_order_by(
                         files.c.id, files.c.created_at, files.c.id)))
                     .scalar_subquery().label("same_file"),
                     sellers.with_only_columns(func.json_agg(postgresql.aggregate_order_by(
                         func.json_build_array(*sellers.selected_columns), *OLDEST_FIRST)))
                     .order_by(None).scalar_subquery().label("same_seller"))
              .select_from(new_invoice.join(new_job, true()).join(hit, true()))
              .add_cte(event))
    return Prebuilt(answer)
