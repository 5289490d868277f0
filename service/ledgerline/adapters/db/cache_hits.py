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

from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy import Connection, exists, func, literal, select, true
from sqlalchemy.dialects import postgresql, sqlite

from ...domain.duplicates import Summary
from ...domain.identity import Caller
from ...domain.jobs import CacheOutcome, JobStatus
from . import outbox
from .clock import db_now
from .engine import transaction
from .invoices import (DUPLICATE_FIELDS, invoice_view, possible_duplicates, same_file_query,
                       same_seller_query)
from .jobs import NewJob, new_id
from .tables import blobs, cache_entries, invoices, jobs, results

COMPLETED = "invoice.completed"


@dataclass(frozen=True)
class ServedHit:
    invoice_id: str
    job_id: str
    invoice: dict          # the invoice as a read shows it, but for its extraction
    document_json: str     # the extraction: the cached document exactly as stored


def serve_hit(conn: Connection, caller: Caller, job: NewJob) -> ServedHit | None:
    """Record the caller's upload as a hit of the account's cache and answer it; None (and
    nothing written) when it is not one."""
    job_id, invoice_id = new_id("job"), new_id("inv")
    if conn.dialect.name == "postgresql":
        row = conn.execute(_one_statement(caller, job, job_id, invoice_id)).first()
        if row is None:
            return None
        same_file = row.same_file or []
        same_seller = [(other[0], _summary(other[1:])) for other in row.same_seller or []]
    else:
        row = _step_by_step(conn, caller, job, job_id, invoice_id)
        if row is None:
            return None
        same_file = conn.execute(_same_file(caller, job, invoice_id)
                                 .order_by(invoices.c.created_at, invoices.c.id)).scalars().all()
        same_seller = []
        if row.seller_key:
            same_seller = [(other.id, _summary(other[1:])) for other in conn.execute(
                same_seller_query(caller, job.account, job.content_hash, row.seller_key)
                .order_by(invoices.c.created_at, invoices.c.id))]
    mine = _summary([getattr(row, name) for name in DUPLICATE_FIELDS])
    invoice = invoice_view(_shown(caller, job, invoice_id, row))
    invoice["possible_duplicates"] = possible_duplicates(same_file, mine, same_seller)
    return ServedHit(invoice_id, job_id, invoice, row.document)


def _summary(values) -> Summary:
    return Summary(**dict(zip(DUPLICATE_FIELDS, values)))


def _shown(caller: Caller, job: NewJob, invoice_id: str, row) -> SimpleNamespace:
    """The new invoice as invoices._query would read it: completed, uncorrected, unreviewed."""
    return SimpleNamespace(
        id=invoice_id, account=job.account, status=JobStatus.COMPLETED.value,
        content_hash=job.content_hash, uploaded_by=caller.key_id,
        uploader_role=caller.role.value, uploader_name=caller.name, created_at=row.created_at,
        error_code=None, error_message=None, version=0, review_resolved_at=None,
        review_resolved_by=None, review_required=row.review_required)


def _entry(job: NewJob):
    """The cached result, where this upload is a hit."""
    return (select(results.c.id.label("result_id"), results.c.document,
                   results.c.review_required, results.c.seller_key,
                   *(results.c[name] for name in DUPLICATE_FIELDS))
            .select_from(cache_entries.join(results, results.c.id == cache_entries.c.result_id))
            .where(cache_entries.c.account == job.account,
                   cache_entries.c.cache_key == job.cache_key,
                   ~exists().where(jobs.c.account == job.account,
                                   jobs.c.inflight_key == job.cache_key),
                   exists().where(blobs.c.account == job.account,
                                  blobs.c.content_hash == job.content_hash)))


def _job_values(job: NewJob, job_id: str, result_id) -> dict:
    """jobs.insert_job's row for a hit: completed at once with the cached result."""
    return dict(
        id=literal(job_id), account=literal(job.account), caller_id=literal(job.caller_id),
        idempotency_key=literal(job.idempotency_key, jobs.c.idempotency_key.type),
        request_hash=literal(job.request_hash), cache_key=literal(job.cache_key),
        content_hash=literal(job.content_hash), status=literal(JobStatus.COMPLETED.value),
        outcome=literal(CacheOutcome.HIT.value), fresh=literal(False),
        result_id=result_id, fencing_token=literal(0), attempts=literal(0),
        extractor_versions=literal(job.extractor_versions), fair_position=literal(0),
        run_after=db_now(), created_at=db_now(), updated_at=db_now(), finished_at=db_now())


def _invoice_insert(caller: Caller, job: NewJob, invoice_id: str, job_rows):
    """The caller's invoice, at its job's (database) time; `job_rows` holds the job."""
    return invoices.insert().from_select(
        ["id", "account", "uploaded_by", "job_id", "content_hash", "created_at"],
        select(literal(invoice_id), literal(job.account), literal(caller.key_id),
               job_rows.c.id, literal(job.content_hash), job_rows.c.created_at),
        include_defaults=False)  # a CTE's Python-side defaults would be bound as NULL


def _same_file(caller: Caller, job: NewJob, invoice_id: str):
    return same_file_query(caller, job.account, job.content_hash, invoice_id)


def _one_statement(caller: Caller, job: NewJob, job_id: str, invoice_id: str):
    entry = _entry(job).cte("hit_entry")
    values = _job_values(job, job_id, entry.c.result_id)
    new_job = (postgresql.insert(jobs).from_select(list(values), select(*values.values()),
                                                   include_defaults=False)
               .on_conflict_do_nothing()
               .returning(jobs.c.id, jobs.c.created_at).cte("hit_job"))
    new_invoice = (_invoice_insert(caller, job, invoice_id, new_job)
                   .returning(invoices.c.id).cte("hit_invoice"))
    event = outbox.invoice_event_insert(job.account, invoice_id, COMPLETED, job_id,
                                        only_if=exists(select(new_invoice.c.id))).cte("hit_event")
    order = (invoices.c.created_at, invoices.c.id)
    same_file = _same_file(caller, job, invoice_id).with_only_columns(
        func.json_agg(postgresql.aggregate_order_by(invoices.c.id, *order)))
    seller_key = select(entry.c.seller_key).scalar_subquery()
    same_seller = same_seller_query(caller, job.account, job.content_hash, seller_key)
    same_seller = same_seller.with_only_columns(func.json_agg(postgresql.aggregate_order_by(
        func.json_build_array(*same_seller.selected_columns), *order)))
    return (select(new_job.c.created_at, entry.c.document, entry.c.review_required,
                   entry.c.seller_key, *(entry.c[name] for name in DUPLICATE_FIELDS),
                   same_file.scalar_subquery().label("same_file"),
                   same_seller.scalar_subquery().label("same_seller"))
            .select_from(new_invoice.join(new_job, true()).join(entry, true()))
            .add_cte(event))


def _step_by_step(conn: Connection, caller: Caller, job: NewJob, job_id: str, invoice_id: str):
    """The same, for SQLite: the caller's write transaction holds the database's one write
    lock, so nothing changes between the steps."""
    entry = conn.execute(_entry(job)).first()
    if entry is None:
        return None
    values = _job_values(job, job_id, literal(entry.result_id))
    created = conn.execute(sqlite.insert(jobs).values(values).on_conflict_do_nothing()
                           .returning(jobs.c.created_at)).scalar()
    if created is None:
        return None
    new_job = select(jobs.c.id, jobs.c.created_at).where(jobs.c.id == job_id).subquery()
    conn.execute(_invoice_insert(caller, job, invoice_id, new_job))
    outbox.invoice_event(conn, job.account, invoice_id, COMPLETED, job_id)
    return SimpleNamespace(created_at=created, **entry._mapping)


def hit_transaction(engine):
    """Where serve_hit runs. PostgreSQL: autocommit, since its one statement is a transaction
    of its own (BEGIN and COMMIT would be two more round trips); SQLite: a write transaction,
    which takes the write lock up front."""
    return transaction(engine, write=engine.dialect.name != "postgresql")
