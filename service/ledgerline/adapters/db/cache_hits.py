"""A cache hit recorded and answered at once: on PostgreSQL in one statement, one round trip.

A hit is an upload whose cache entry exists, whose original is recorded and for which no
joinable extraction is in flight (an arrival joins work in flight before it takes a finished
result, as service_layer.intake decides). The statement finds the entry, inserts the caller's
completed job and invoice and the webhook event, and returns what the answer shows: the
invoice, the document as stored (served as it is, never parsed and written again), and the
possible duplicates the caller may see. When any condition fails it changes nothing and
returns nothing, and the upload takes the general path, which decides everything again.

PostgreSQL runs it as data-modifying CTEs in autocommit: one statement is one transaction
(postgresql/arrival.py). SQLite takes the same steps one statement at a time inside one write
transaction (BEGIN IMMEDIATE; sqlite/arrival.py): it is embedded, so its round trips cost
little. The pieces both build from are here. Either way:

- The job insert names no conflict target and skips any conflict: the caller's
  Idempotency-Key already naming an operation (a replay, a reused or an expired key) is left
  to the general path, which tells them apart.
- The invoice references its original through the invoices -> blobs foreign key: an original
  whose row a purge or a deletion removes meanwhile fails the statement (IntegrityError), and
  the general path stores the file again.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import exists, literal, select

from ...domain.duplicates import Summary
from ...domain.identity import Caller
from ...domain.jobs import CacheOutcome, JobStatus
from ...domain.webhooks import event_id
from ...ports.jobs import NewJob, ServedHit
from . import outbox, prebuilt
from .clock import db_now
from ..invoice_views import DUPLICATE_FIELDS, invoice_view, possible_duplicates
from .invoices import ACCOUNT, CALLER_ID, CONTENT_HASH, INVOICE_ID
from .tables import blobs, cache_entries, invoices, jobs, results, webhook_deliveries

COMPLETED = "invoice.completed"


@dataclass(frozen=True)
class Found:
    """What a dialect's recording of a hit returns: the entry's row (its result's document,
    summary and seller key, and the new job's time), the ids of the caller's other invoices
    of the same file, and (id, *DUPLICATE_FIELDS) of those of the same seller."""
    row: Any
    same_file: list
    same_seller: list


def parameters(caller: Caller, job: NewJob, job_id: str, invoice_id: str) -> dict:
    """The values the statements bind."""
    return prebuilt.values(
        account=job.account, caller_id=caller.principal, idempotency_key=job.idempotency_key,
        request_hash=job.request_hash, cache_key=job.cache_key, content_hash=job.content_hash,
        extractor_versions=job.extractor_versions, job_id=job_id, invoice_id=invoice_id,
        event_id=event_id(invoice_id, COMPLETED, job_id))


def served(caller: Caller, job: NewJob, job_id: str, invoice_id: str, found: Found) -> ServedHit:
    """The answer to the caller, from what the statements found."""
    row = found.row
    duplicates = possible_duplicates(found.same_file, _mine(row),
                                     _candidates(found.same_seller))
    invoice = invoice_view(_shown(caller, job, invoice_id, row,
                                  duplicates[0]["id"] if duplicates else None))
    return ServedHit(invoice_id, job_id, invoice, row.document, _json(duplicates))


def _mine(row) -> Summary:
    return Summary(**{name: getattr(row, name) for name in DUPLICATE_FIELDS})


def _candidates(rows) -> list[tuple[str, Summary]]:
    """(id, summary) of rows of (id, *DUPLICATE_FIELDS)."""
    return [(other[0], Summary(**dict(zip(DUPLICATE_FIELDS, other[1:])))) for other in rows]


def _json(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def _shown(caller: Caller, job: NewJob, invoice_id: str, row,
           duplicate_of: str | None) -> SimpleNamespace:
    """The new invoice as invoices._query would read it: completed, uncorrected, unreviewed."""
    return SimpleNamespace(
        id=invoice_id, account=job.account, status=JobStatus.COMPLETED.value,
        content_hash=job.content_hash, uploaded_by=caller.principal,
        uploader_role=caller.role.value, uploader_name=caller.name, created_at=row.created_at,
        error_code=None, error_message=None, version=0, review_resolved_at=None,
        review_resolved_by=None, review_required=row.review_required,
        duplicate_of=duplicate_of)


# The statements are built once per process (and kind of caller), with bound parameters:
# building a statement of this size costs more than running it.

_CACHE_KEY = prebuilt.param("cache_key", jobs.c.cache_key.type)
JOB_ID = prebuilt.param("job_id", jobs.c.id.type)


def entry():
    """The cached result, where this upload is a hit."""
    return (select(results.c.id.label("result_id"), results.c.document,
                   results.c.review_required, results.c.seller_key, results.c.number_key,
                   *(results.c[name] for name in DUPLICATE_FIELDS))
            .select_from(cache_entries.join(results, results.c.id == cache_entries.c.result_id))
            .where(cache_entries.c.account == ACCOUNT, cache_entries.c.cache_key == _CACHE_KEY,
                   ~exists().where(jobs.c.account == ACCOUNT, jobs.c.inflight_key == _CACHE_KEY),
                   exists().where(blobs.c.account == ACCOUNT,
                                  blobs.c.content_hash == CONTENT_HASH)))


def job_values(result_id) -> dict:
    """arrival.insert_job's row for a hit: completed at once with the cached result."""
    return dict(
        id=JOB_ID, account=ACCOUNT, cache_key=_CACHE_KEY, content_hash=CONTENT_HASH,
        **prebuilt.columns(jobs, "caller_id", "idempotency_key", "request_hash",
                           "extractor_versions"),
        status=literal(JobStatus.COMPLETED.value), outcome=literal(CacheOutcome.HIT.value),
        fresh=literal(False), result_id=result_id, fencing_token=literal(0),
        attempts=literal(0), fair_position=literal(0), run_after=db_now(),
        created_at=db_now(), updated_at=db_now(), finished_at=db_now())


def invoice_insert(job_rows):
    """The caller's invoice, at its job's (database) time; `job_rows` holds the job."""
    return invoices.insert().from_select(
        ["id", "account", "uploaded_by", "job_id", "content_hash", "created_at"],
        select(INVOICE_ID, ACCOUNT, CALLER_ID, job_rows.c.id, CONTENT_HASH,
               job_rows.c.created_at),
        include_defaults=False)  # a CTE's Python-side defaults would be bound as NULL


# The invoice of the job `job_id` names, inserted in a statement of its own after the job's.
INVOICE_OF_JOB = invoice_insert(select(jobs.c.id, jobs.c.created_at)
                                .where(jobs.c.id == JOB_ID).subquery())


def event_insert(only_if=None):
    event_id = prebuilt.param("event_id", webhook_deliveries.c.event_id.type)
    return outbox.invoice_event_insert(ACCOUNT, INVOICE_ID, COMPLETED, event_id,
                                       only_if=only_if)
