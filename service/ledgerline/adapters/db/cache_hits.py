"""A cache hit recorded and answered at once: on PostgreSQL in one statement, one round trip.

A hit is an upload whose cache entry exists, whose original is recorded and for which no
joinable extraction is in flight (an arrival joins work in flight before it takes a finished
result, as service_layer.intake decides). The statement finds the entry, inserts the caller's
completed job and invoice and the webhook event, and returns what the answer shows: the
invoice, the document as stored (served as it is, never parsed and written again), and the
possible duplicates the caller may see. When any condition fails it changes nothing and
returns nothing, and the upload takes the general path, which decides everything again.

PostgreSQL runs it as data-modifying CTEs in autocommit: one statement is one transaction.
SQLite takes the same steps one statement at a time inside one write transaction (BEGIN
IMMEDIATE): it is embedded, so its round trips cost little. Either way:

- The job insert names no conflict target and skips any conflict: the caller's
  Idempotency-Key already naming an operation (a replay, a reused or an expired key) is left
  to the general path, which tells them apart.
- The invoice references its original through the invoices -> blobs foreign key: an original
  whose row a purge or a deletion removes meanwhile fails the statement (IntegrityError), and
  the general path stores the file again.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy import Connection, exists, func, literal, select, true
from sqlalchemy.dialects import postgresql, sqlite

from ...domain.duplicates import Summary
from ...domain.identity import Caller
from ...domain.jobs import CacheOutcome, JobStatus
from ...domain.webhooks import event_id
from . import outbox, prebuilt
from .clock import db_now
from .engine import transaction
from .invoices import (DUPLICATE_FIELDS, invoice_view, possible_duplicates, same_file_query,
                       same_seller_query, visible_to)
from .jobs import NewJob, new_id
from .tables import blobs, cache_entries, invoices, jobs, results, webhook_deliveries

COMPLETED = "invoice.completed"


@dataclass(frozen=True)
class ServedHit:
    invoice_id: str
    job_id: str
    invoice: dict          # the invoice as a read shows it, but for the two JSON texts below
    document_json: str     # its extraction: the cached document exactly as stored
    duplicates_json: str   # its possible_duplicates


def serve_hit(conn: Connection, caller: Caller, job: NewJob) -> ServedHit | None:
    """Record the caller's upload as a hit of the account's cache and answer it; None (and
    nothing written) when it is not one."""
    job_id, invoice_id = new_id("job"), new_id("inv")
    params = prebuilt.values(
        account=job.account, caller_id=caller.key_id, idempotency_key=job.idempotency_key,
        request_hash=job.request_hash, cache_key=job.cache_key, content_hash=job.content_hash,
        extractor_versions=job.extractor_versions, job_id=job_id, invoice_id=invoice_id,
        event_id=event_id(invoice_id, COMPLETED, job_id))
    own_only = caller.sees_only_own_uploads()
    if conn.dialect.name == "postgresql":
        row = conn.execute(_one_statement(own_only), params).first()
        if row is None:
            return None
        same_file, candidates = row.same_file or [], row.same_seller or []
    else:
        row = _step_by_step(conn, own_only, params)
        if row is None:
            return None
        same_file = conn.execute(_same_file(own_only), params).scalars().all()
        candidates = []
        if row.seller_key:
            candidates = conn.execute(_same_seller_step(own_only),
                                      {**params, **prebuilt.values(seller_key=row.seller_key)}
                                      ).all()
    duplicates = _json(possible_duplicates(same_file, _mine(row), _candidates(candidates)))
    invoice = invoice_view(_shown(caller, job, invoice_id, row))
    return ServedHit(invoice_id, job_id, invoice, row.document, duplicates)


def _mine(row) -> Summary:
    return Summary(**{name: getattr(row, name) for name in DUPLICATE_FIELDS})


def _candidates(rows) -> list[tuple[str, Summary]]:
    """(id, summary) of rows of (id, *DUPLICATE_FIELDS)."""
    return [(other[0], Summary(**dict(zip(DUPLICATE_FIELDS, other[1:])))) for other in rows]


def _json(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def _shown(caller: Caller, job: NewJob, invoice_id: str, row) -> SimpleNamespace:
    """The new invoice as invoices._query would read it: completed, uncorrected, unreviewed."""
    return SimpleNamespace(
        id=invoice_id, account=job.account, status=JobStatus.COMPLETED.value,
        content_hash=job.content_hash, uploaded_by=caller.key_id,
        uploader_role=caller.role.value, uploader_name=caller.name, created_at=row.created_at,
        error_code=None, error_message=None, version=0, review_resolved_at=None,
        review_resolved_by=None, review_required=row.review_required)


# The statements are built once per process (and kind of caller), with bound parameters:
# building a statement of this size costs more than running it.

_ACCOUNT = prebuilt.param("account", jobs.c.account.type)
_CONTENT_HASH = prebuilt.param("content_hash", jobs.c.content_hash.type)
_CACHE_KEY = prebuilt.param("cache_key", jobs.c.cache_key.type)
_JOB_ID = prebuilt.param("job_id", jobs.c.id.type)
_INVOICE_ID = prebuilt.param("invoice_id", invoices.c.id.type)
_CALLER_ID = prebuilt.param("caller_id", invoices.c.uploaded_by.type)


def _visible(own_only: bool):
    return visible_to(_ACCOUNT, _CALLER_ID if own_only else None)


def _entry():
    """The cached result, where this upload is a hit."""
    return (select(results.c.id.label("result_id"), results.c.document,
                   results.c.review_required, results.c.seller_key,
                   *(results.c[name] for name in DUPLICATE_FIELDS))
            .select_from(cache_entries.join(results, results.c.id == cache_entries.c.result_id))
            .where(cache_entries.c.account == _ACCOUNT, cache_entries.c.cache_key == _CACHE_KEY,
                   ~exists().where(jobs.c.account == _ACCOUNT, jobs.c.inflight_key == _CACHE_KEY),
                   exists().where(blobs.c.account == _ACCOUNT,
                                  blobs.c.content_hash == _CONTENT_HASH)))


def _job_values(result_id) -> dict:
    """jobs.insert_job's row for a hit: completed at once with the cached result."""
    return dict(
        id=_JOB_ID, account=_ACCOUNT, cache_key=_CACHE_KEY, content_hash=_CONTENT_HASH,
        **prebuilt.columns(jobs, "caller_id", "idempotency_key", "request_hash",
                           "extractor_versions"),
        status=literal(JobStatus.COMPLETED.value), outcome=literal(CacheOutcome.HIT.value),
        fresh=literal(False), result_id=result_id, fencing_token=literal(0),
        attempts=literal(0), fair_position=literal(0), run_after=db_now(),
        created_at=db_now(), updated_at=db_now(), finished_at=db_now())


def _invoice_insert(job_rows):
    """The caller's invoice, at its job's (database) time; `job_rows` holds the job."""
    return invoices.insert().from_select(
        ["id", "account", "uploaded_by", "job_id", "content_hash", "created_at"],
        select(_INVOICE_ID, _ACCOUNT, _CALLER_ID, job_rows.c.id, _CONTENT_HASH,
               job_rows.c.created_at),
        include_defaults=False)  # a CTE's Python-side defaults would be bound as NULL


def _event_insert(only_if=None):
    event_id = prebuilt.param("event_id", webhook_deliveries.c.event_id.type)
    return outbox.invoice_event_insert(_ACCOUNT, _INVOICE_ID, COMPLETED, event_id,
                                       only_if=only_if)


_OLDEST_FIRST = (invoices.c.created_at, invoices.c.id)


@functools.cache
def _same_file(own_only: bool):
    return same_file_query(_visible(own_only), _CONTENT_HASH, _INVOICE_ID)


def _same_seller(own_only: bool, seller_key):
    return (same_seller_query(_visible(own_only), _ACCOUNT, _CONTENT_HASH, seller_key)
            .order_by(*_OLDEST_FIRST))


@functools.cache
def _same_seller_step(own_only: bool):
    return _same_seller(own_only, prebuilt.param("seller_key", results.c.seller_key.type))


@functools.cache
def _one_statement(own_only: bool):
    entry = _entry().cte("hit_entry")
    values = _job_values(entry.c.result_id)
    new_job = (postgresql.insert(jobs).from_select(list(values), select(*values.values()),
                                                   include_defaults=False)
               .on_conflict_do_nothing()
               .returning(jobs.c.id, jobs.c.created_at).cte("hit_job"))
    new_invoice = _invoice_insert(new_job).returning(invoices.c.id).cte("hit_invoice")
    event = _event_insert(only_if=exists(select(new_invoice.c.id))).cte("hit_event")

    # The same file's ids (the oldest few) and the seller's candidates as rows, for
    # domain.duplicates to judge, each as one array in the query's order.
    same_file = _same_file(own_only).add_columns(invoices.c.created_at).subquery()
    same_seller = _same_seller(own_only, select(entry.c.seller_key).scalar_subquery())
    return (select(new_job.c.created_at, entry.c.document, entry.c.review_required,
                   entry.c.seller_key, *(entry.c[name] for name in DUPLICATE_FIELDS),
                   select(func.array_agg(postgresql.aggregate_order_by(
                       same_file.c.id, same_file.c.created_at, same_file.c.id)))
                   .scalar_subquery().label("same_file"),
                   same_seller.with_only_columns(func.json_agg(postgresql.aggregate_order_by(
                       func.json_build_array(*same_seller.selected_columns), *_OLDEST_FIRST)))
                   .order_by(None).scalar_subquery().label("same_seller"))
            .select_from(new_invoice.join(new_job, true()).join(entry, true()))
            .add_cte(event))


@functools.cache
def _steps():
    """The same for SQLite, a statement at a time: the entry, the job (its time), the invoice
    and the event."""
    return (_entry(),
            sqlite.insert(jobs)
            .values(_job_values(prebuilt.param("result_id", jobs.c.result_id.type)))
            .on_conflict_do_nothing().returning(jobs.c.created_at),
            _invoice_insert(select(jobs.c.id, jobs.c.created_at)
                            .where(jobs.c.id == _JOB_ID).subquery()),
            _event_insert())


def _step_by_step(conn: Connection, own_only: bool, params: dict):
    """The caller's write transaction holds SQLite's one write lock, so nothing changes
    between the steps."""
    entry, insert_job, insert_invoice, insert_event = _steps()
    found = conn.execute(entry, params).first()
    if found is None:
        return None
    created = conn.execute(insert_job,
                           {**params, **prebuilt.values(result_id=found.result_id)}).scalar()
    if created is None:
        return None
    conn.execute(insert_invoice, params)
    conn.execute(insert_event, params)
    return SimpleNamespace(created_at=created, **found._mapping)


def hit_transaction(engine):
    """Where serve_hit runs. PostgreSQL: autocommit, since its one statement is a transaction
    of its own (BEGIN and COMMIT would be two more round trips); SQLite: a write transaction,
    which takes the write lock up front."""
    return transaction(engine, write=engine.dialect.name != "postgresql")
