"""Claims in memory: the rules SQL applies in its WHERE clauses (claimable, exhausted,
may_publish), applied with the domain's own functions."""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta

from ...domain.jobs import (MAX_ATTEMPTS, CallOutcome, Claim, JobStatus, claimable, exhausted,
                            may_publish)
from ...ports.extractor import Progress
from ...ports.jobs import (ATTEMPTS_EXHAUSTED, MAX_ERROR_MESSAGE, Call, CallOpening, ClaimedJob,
                           Exhausted)
from ..invoice_views import result_summary
from .arrival import in_flight
from .events import job_event
from .ledger import MemoryLedger
from .tables import CacheEntryRow, JobRow, Now, ResultRow, Tables

PENDING, RUNNING = JobStatus.PENDING.value, JobStatus.RUNNING.value
COMPLETED, FAILED = JobStatus.COMPLETED.value, JobStatus.FAILED.value


def _fenced(job: JobRow | None, claim: Claim, now: datetime) -> bool:
    return job is not None and may_publish(
        claim, current_owner=job.lease_owner, current_token=job.fencing_token,
        status=JobStatus(job.status), lease_expires_at=job.lease_expires_at, now=now)


def _ended_under(job: JobRow | None, claim: Claim, status: str) -> bool:
    return job is not None and job.status == status and job.fencing_token == claim.token


class MemoryClaims:
    def __init__(self, tables: Tables, now: Now, ledger: MemoryLedger):
        self.t, self.now, self.ledger = tables, now, ledger

    def claim_and_start(self, owner: str, lease_seconds: float, extractor_versions: str,
                        opening: CallOpening) -> ClaimedJob | Exhausted | None:
        tables, now = self.t, self.now()
        candidates = [j for j in tables.jobs.values()
                      if in_flight(j) and j.extractor_versions == extractor_versions
                      and claimable(JobStatus(j.status), j.run_after, j.lease_expires_at, now)]
        if not candidates:
            return None
        job = min(candidates, key=lambda j: (j.fair_position, j.created_at, j.seq))
        token = job.fencing_token + 1
        self.ledger.mark_abandoned_calls(job.id, token)
        if exhausted(job.attempts):
            tables.jobs[job.id] = replace(
                job, status=FAILED, lease_owner=None, lease_expires_at=None,
                fencing_token=token, inflight_key=None, finished_at=now,
                error_code=ATTEMPTS_EXHAUSTED,
                error_message=f"gave up after {MAX_ATTEMPTS} attempts (each lost its worker or "
                              "failed transiently)", updated_at=now)
            job_event(tables, job.id, "invoice.failed", ATTEMPTS_EXHAUSTED, now)
            return Exhausted(job.id)
        expires = now + timedelta(seconds=lease_seconds)
        job = tables.jobs[job.id] = replace(
            job, status=RUNNING, lease_owner=owner, lease_expires_at=expires,
            fencing_token=token, attempts=job.attempts + 1, claimed_at=now, finished_at=None,
            updated_at=now)
        blob = tables.blobs.get((job.account, job.content_hash))
        claimed = ClaimedJob(claim=Claim(job.id, owner, token, expires), account=job.account,
                             cache_key=job.cache_key, content_hash=job.content_hash,
                             storage_key=blob.storage_key if blob else None,
                             attempts=job.attempts, fresh=job.fresh, claimed_at=now,
                             invoice_id=self._invoice_of(job), request_id=job.request_id,
                             trace_context=job.trace_context)
        self.ledger.start_call(opening.of(claimed))
        return claimed

    def _invoice_of(self, job: JobRow) -> str | None:
        """The invoice the job was created with (a retry's: the one it retries)."""
        return next((i.id for i in self.t.invoices.values() if i.job_id == job.id),
                    job.retry_of)

    def release_owned(self, owner: str, call_id: str | None = None) -> int:
        tables, now = self.t, self.now()
        mine = [j for j in tables.jobs.values()
                if in_flight(j) and j.status == RUNNING and j.lease_owner == owner]
        for job in mine:
            tables.jobs[job.id] = replace(job, status=PENDING, lease_owner=None,
                                          lease_expires_at=None, attempts=job.attempts - 1,
                                          updated_at=now)
        if call_id is not None:
            self.ledger.finish_call(call_id, CallOutcome.UNSTARTED)
        return len(mine)

    def renew(self, claim: Claim, lease_seconds: float) -> Claim | None:
        now = self.now()
        job = self.t.jobs.get(claim.job_id)
        if job is None or not _fenced(job, claim, now):
            return None
        expires = now + timedelta(seconds=lease_seconds)
        self.t.jobs[job.id] = replace(job, lease_expires_at=expires, updated_at=now)
        return Claim(claim.job_id, claim.owner, claim.token, expires)

    def publish_and_finish(self, job: ClaimedJob, call: Call, document: dict, *,
                           result_id: str, record_in_cache: bool,
                           progress: Progress | None = None) -> bool:
        tables, now = self.t, self.now()
        row = tables.jobs.get(job.claim.job_id)
        if _fenced(row, job.claim, now):
            self._publish(job, document, result_id, record_in_cache, now)
            published = True
        else:
            published = _ended_under(row, job.claim, COMPLETED)
        self.ledger.finish_call(call.call_id, CallOutcome.PUBLISHED if published
                                else CallOutcome.DISCARDED, call=call, progress=progress)
        return published

    def _publish(self, job: ClaimedJob, document: dict, result_id: str, record_in_cache: bool,
                 now: datetime) -> None:
        tables = self.t
        tables.results.setdefault(result_id, ResultRow(
            id=result_id, account=job.account, cache_key=job.cache_key,
            content_hash=job.content_hash, job_id=job.claim.job_id,
            document=json.dumps(document, separators=(",", ":")), **result_summary(document),
            created_at=now))
        done = tables.jobs[job.claim.job_id]
        tables.jobs[done.id] = replace(
            done, status=COMPLETED, result_id=result_id, inflight_key=None, lease_owner=None,
            lease_expires_at=None, finished_at=now, updated_at=now, error_code=None,
            error_message=None)
        if record_in_cache:
            key = (job.account, job.cache_key)
            current = tables.cache_entries.get(key)
            if current is None or current.started_at is None or (
                    current.started_at < job.claimed_at):
                tables.cache_entries[key] = CacheEntryRow(job.account, job.cache_key, result_id,
                                                          now, job.claimed_at)
        job_event(tables, done.id, "invoice.completed", None, now)

    def fail(self, claim: Claim, code: str, message: str) -> bool:
        tables, now = self.t, self.now()
        job = tables.jobs.get(claim.job_id)
        if job is None or not _fenced(job, claim, now):
            return _ended_under(job, claim, FAILED)
        tables.jobs[job.id] = replace(
            job, status=FAILED, error_code=code, error_message=message[:MAX_ERROR_MESSAGE],
            inflight_key=None, lease_owner=None, lease_expires_at=None, finished_at=now,
            updated_at=now)
        job_event(tables, job.id, "invoice.failed", code, now)
        return True

    def release(self, claim: Claim, *, after_seconds: float = 0.0,
                error: tuple[str, str] | None = None, refund_attempt: bool = False) -> bool:
        tables, now = self.t, self.now()
        job = tables.jobs.get(claim.job_id)
        if job is None or not _fenced(job, claim, now):
            return _ended_under(job, claim, PENDING)
        released = replace(job, status=PENDING, lease_owner=None, lease_expires_at=None,
                           run_after=now + timedelta(seconds=after_seconds), updated_at=now,
                           attempts=job.attempts - 1 if refund_attempt else job.attempts)
        if error:
            released = replace(released, error_code=error[0],
                               error_message=error[1][:MAX_ERROR_MESSAGE])
        tables.jobs[job.id] = released
        return True
