"""Arrival in memory: the caller's job and invoice created or found, with the SQL schema's
constraints (one operation per caller's key, one joinable extraction per cache key, an
invoice's original recorded) raised as the port's Conflict; a cache hit recorded at once."""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

from ...domain.identity import Caller
from ...domain.ids import new_id
from ...domain.jobs import CacheOutcome, JobStatus, fair_position
from ...domain.webhooks import event_id
from ...ports.database import Conflict
from ...ports.jobs import BeforeStoring, KeyedJob, NewJob, RetryTarget, ServedHit
from .events import record_event
from .reads import InvoiceView, invoice_row
from .tables import BlobRow, JobRow, Now, Tables

PENDING, RUNNING = JobStatus.PENDING.value, JobStatus.RUNNING.value
COMPLETED = JobStatus.COMPLETED.value


def in_flight(job: JobRow) -> bool:
    return job.status in (PENDING, RUNNING) and job.leader_id is None


class MemoryArrival:
    def __init__(self, tables: Tables, now: Now):
        self.t, self.now = tables, now

    def job_by_idempotency_key(self, account: str, caller_id: str, key: str,
                               ttl_seconds: float) -> KeyedJob | None:
        for job in self.t.jobs.values():
            if (job.account, job.caller_id, job.idempotency_key) == (account, caller_id, key):
                invoice = next((i.id for i in self.t.invoices.values() if i.job_id == job.id),
                               job.retry_of)
                expired = job.created_at < self.now() - timedelta(seconds=ttl_seconds)
                if invoice is None:  # a keyed job has its invoice, or is a retry
                    raise LookupError(f"the keyed job {job.id} has no invoice")
                return KeyedJob(job.id, job.request_hash, invoice, expired)
        return None

    def before_storing(self, account: str, caller_id: str, key: str, content_hash: str,
                       ttl_seconds: float) -> BeforeStoring:
        return BeforeStoring(self.job_by_idempotency_key(account, caller_id, key, ttl_seconds),
                             self.blob_key(account, content_hash))

    def forget_idempotency_key(self, job_id: str) -> None:
        job = self.t.jobs[job_id]
        self.t.jobs[job_id] = replace(job, idempotency_key=None, updated_at=self.now())

    def inflight_leader(self, account: str, cache_key: str, *,
                        joinable_only: bool) -> str | None:
        for job in self.t.jobs.values():
            if job.account != account:
                continue
            if joinable_only and job.inflight_key == cache_key:
                return job.id
            if not joinable_only and job.cache_key == cache_key and in_flight(job):
                return job.id
        return None

    def cached_result(self, account: str, cache_key: str) -> str | None:
        entry = self.t.cache_entries.get((account, cache_key))
        return entry.result_id if entry else None

    def insert_job(self, job: NewJob, *, outcome: CacheOutcome, leader_id: str | None = None,
                   result_id: str | None = None, joinable: bool = False,
                   would_be: str | None = None, invoice_id: str | None = None) -> str:
        """No other process shares this store: no worker elsewhere to tell of new work."""
        tables, now = self.t, self.now()
        finished = result_id is not None
        works = not finished and leader_id is None
        inflight_key = job.cache_key if joinable else None
        self._refuse_conflicts(job, inflight_key)
        if invoice_id is not None:
            self._refuse_an_unrecorded_original(job)
        job_id = new_id("job")
        tables.jobs[job_id] = JobRow(
            id=job_id, seq=tables.next(), account=job.account, caller_id=job.caller_id,
            idempotency_key=job.idempotency_key, request_hash=job.request_hash,
            cache_key=job.cache_key, content_hash=job.content_hash,
            status=COMPLETED if finished else PENDING, outcome=outcome.value,
            would_be=would_be, fresh=job.fresh, leader_id=leader_id, inflight_key=inflight_key,
            result_id=result_id, fencing_token=0, attempts=0,
            extractor_versions=job.extractor_versions,
            fair_position=self._fair_position(job) if works else 0, retry_of=job.retry_of,
            request_id=job.request_id, trace_context=job.trace_context,
            run_after=now, created_at=now, updated_at=now,
            finished_at=now if finished else None)
        if invoice_id is not None:
            tables.invoices[invoice_id] = invoice_row(invoice_id, job, job_id, now)
        return job_id

    def _refuse_conflicts(self, job: NewJob, inflight_key: str | None) -> None:
        """The SQL schema's constraints on a new job."""
        if job.account not in self.t.accounts or job.caller_id not in self.t.keys:
            raise Conflict("no such account or key")
        for other in self.t.jobs.values():
            if other.account != job.account:
                continue
            if (job.idempotency_key is not None and other.caller_id == job.caller_id
                    and other.idempotency_key == job.idempotency_key):
                raise Conflict("the caller's Idempotency-Key names another job")
            if inflight_key is not None and other.inflight_key == inflight_key:
                raise Conflict("an extraction of this key is in flight")

    def _fair_position(self, job: NewJob) -> int:
        queue = [j for j in self.t.jobs.values() if in_flight(j)]
        head = min((j.fair_position for j in queue
                    if j.extractor_versions == job.extractor_versions), default=None)
        last = max((j.fair_position for j in queue if j.account == job.account), default=None)
        return fair_position(head, last)

    def insert_invoice(self, job: NewJob, job_id: str) -> str:
        self._refuse_an_unrecorded_original(job)
        invoice_id = new_id("inv")
        self.t.invoices[invoice_id] = invoice_row(invoice_id, job, job_id,
                                                  self.t.jobs[job_id].created_at)
        return invoice_id

    def _refuse_an_unrecorded_original(self, job: NewJob) -> None:
        """The invoices -> blobs foreign key."""
        if (job.account, job.content_hash) not in self.t.blobs:
            raise Conflict("the invoice's original is not recorded")

    def blob_key(self, account: str, content_hash: str) -> str | None:
        blob = self.t.blobs.get((account, content_hash))
        return blob.storage_key if blob and blob.lost_at is None else None

    def record_blob(self, account: str, content_hash: str, storage_key: str,
                    size: int) -> bool:
        if account not in self.t.accounts:
            raise Conflict("no such account")
        known = self.t.blobs.get((account, content_hash))
        if known is not None and known.lost_at is None:
            return False
        self.t.blobs[(account, content_hash)] = BlobRow(account, content_hash, storage_key,
                                                        size, self.now())
        return True

    def mark_blob_lost(self, account: str, content_hash: str) -> str | None:
        blob = self.t.blobs.get((account, content_hash))
        if blob is None or blob.lost_at is not None:
            return None
        self.t.blobs[(account, content_hash)] = replace(blob, lost_at=self.now())
        return blob.storage_key

    def retry_target(self, invoice_id: str) -> RetryTarget | None:
        invoice = self.t.invoices.get(invoice_id)
        if invoice is None:
            return None
        own = self.t.jobs[invoice.job_id]
        status = own.status
        if own.leader_id is not None:
            status = self.t.jobs[own.leader_id].status
        return RetryTarget(own.id, status)

    def follow(self, job_id: str, worker_job_id: str) -> None:
        job = self.t.jobs[job_id]
        self.t.jobs[job_id] = replace(job, leader_id=worker_job_id, updated_at=self.now())

    def serve_hit(self, caller: Caller, job: NewJob) -> ServedHit | None:
        tables = self.t
        entry = tables.cache_entries.get((job.account, job.cache_key))
        if (entry is None or (job.account, job.content_hash) not in tables.blobs
                or self.inflight_leader(job.account, job.cache_key, joinable_only=True)):
            return None
        try:
            job_id = self.insert_job(job, outcome=CacheOutcome.HIT, result_id=entry.result_id)
        except Conflict:
            return None  # the caller's key names an operation: the general path tells which
        invoice_id = self.insert_invoice(job, job_id)
        record_event(tables, job.account, invoice_id, "invoice.completed",
                     event_id(invoice_id, "invoice.completed", job_id), None, self.now())
        view = InvoiceView(tables, caller)
        shown = view.row(tables.invoices[invoice_id])
        duplicates = view.possible_duplicates(shown)
        # As SQL's hit (cache_hits.served) flags it: by the first of its possible duplicates.
        shown.duplicate_of = duplicates[0]["id"] if duplicates else None
        return ServedHit(invoice_id, job_id, view.invoice(shown),
                         tables.results[entry.result_id].document,
                         json.dumps(duplicates, separators=(",", ":")))
