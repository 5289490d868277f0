"""The durable job table: create-or-get on arrival, claim, renew, publish, fail.

Every state change a worker makes is one conditional UPDATE that names the owner and
the fencing token it claimed with, so a worker that lost its lease changes nothing.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, and_, or_, select, update

from ...domain.jobs import CacheOutcome, Claim, JobStatus, lease_expiry
from .engine import insert_for
from .tables import blobs, cache_entries, invoices, jobs, model_calls, results

PENDING, RUNNING = JobStatus.PENDING.value, JobStatus.RUNNING.value
COMPLETED, FAILED = JobStatus.COMPLETED.value, JobStatus.FAILED.value


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


@dataclass(frozen=True)
class NewJob:
    account: str
    caller_id: str
    idempotency_key: str | None
    request_hash: str
    cache_key: str
    content_hash: str
    fresh: bool


@dataclass(frozen=True)
class ClaimedJob:
    claim: Claim
    account: str
    cache_key: str
    content_hash: str
    storage_key: str
    attempts: int
    fresh: bool


# --- arrival ------------------------------------------------------------------------

def job_by_idempotency_key(conn: Connection, account: str, caller_id: str, key: str):
    return conn.execute(
        select(jobs.c.id, jobs.c.request_hash, invoices.c.id.label("invoice_id"))
        .join(invoices, invoices.c.job_id == jobs.c.id)
        .where(jobs.c.account == account, jobs.c.caller_id == caller_id,
               jobs.c.idempotency_key == key)
    ).first()


def inflight_leader(conn: Connection, account: str, cache_key: str, *, joinable_only: bool):
    """The running or pending extraction for this key, if there is one."""
    if joinable_only:
        cond = and_(jobs.c.account == account, jobs.c.inflight_key == cache_key)
    else:
        cond = and_(jobs.c.account == account, jobs.c.cache_key == cache_key,
                    jobs.c.leader_id.is_(None), jobs.c.status.in_([PENDING, RUNNING]))
    return conn.execute(select(jobs.c.id).where(cond).limit(1)).scalar()


def cached_result(conn: Connection, account: str, cache_key: str) -> str | None:
    return conn.execute(
        select(cache_entries.c.result_id)
        .where(cache_entries.c.account == account, cache_entries.c.cache_key == cache_key)
    ).scalar()


def insert_job(conn: Connection, job: NewJob, *, outcome: CacheOutcome, now: datetime,
               leader_id: str | None = None, result_id: str | None = None,
               joinable: bool = False, would_be: str | None = None) -> tuple[str, str]:
    """Insert the job and the caller's invoice record; returns (job id, invoice id)."""
    job_id, invoice_id = new_id("job"), new_id("inv")
    status = COMPLETED if result_id else PENDING
    conn.execute(jobs.insert().values(
        id=job_id, account=job.account, caller_id=job.caller_id,
        idempotency_key=job.idempotency_key, request_hash=job.request_hash,
        cache_key=job.cache_key, content_hash=job.content_hash, status=status,
        outcome=outcome.value, would_be=would_be, fresh=job.fresh, leader_id=leader_id,
        inflight_key=job.cache_key if joinable else None, result_id=result_id,
        fencing_token=0, attempts=0, run_after=now, created_at=now, updated_at=now,
        finished_at=now if result_id else None,
    ))
    conn.execute(invoices.insert().values(
        id=invoice_id, account=job.account, uploaded_by=job.caller_id, job_id=job_id,
        content_hash=job.content_hash, created_at=now,
    ))
    return job_id, invoice_id


def blob_key(conn: Connection, account: str, content_hash: str) -> str | None:
    return conn.execute(
        select(blobs.c.storage_key)
        .where(blobs.c.account == account, blobs.c.content_hash == content_hash)
    ).scalar()


def record_blob(conn: Connection, account: str, content_hash: str, storage_key: str,
                size: int, now: datetime) -> None:
    insert = insert_for(conn)
    conn.execute(insert(blobs).values(
        account=account, content_hash=content_hash, storage_key=storage_key, size=size,
        stored_at=now,
    ).on_conflict_do_nothing())


# --- workers ------------------------------------------------------------------------

def _fenced(claim: Claim, now: datetime):
    """The job is still ours: running, our owner name, our token, lease not run out.

    domain.jobs.may_publish in SQL; tests/integration/test_rules_in_sql.py holds them equal."""
    return and_(jobs.c.id == claim.job_id, jobs.c.status == RUNNING,
                jobs.c.lease_owner == claim.owner, jobs.c.fencing_token == claim.token,
                jobs.c.lease_expires_at > now)


def claim_next(conn: Connection, owner: str, now: datetime, lease_seconds: float) -> ClaimedJob | None:
    """Claim the oldest claimable job and raise its fencing token, in one statement.

    PostgreSQL skips rows other workers hold (FOR UPDATE SKIP LOCKED); SQLite has no row
    locks and needs none: its single writer serialises claims.
    """
    expires = lease_expiry(now, lease_seconds)
    candidate = (
        select(jobs.c.id)
        .where(jobs.c.leader_id.is_(None),
               or_(and_(jobs.c.status == PENDING, jobs.c.run_after <= now),
                   and_(jobs.c.status == RUNNING, jobs.c.lease_expires_at <= now)))
        .order_by(jobs.c.run_after)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    row = conn.execute(
        update(jobs).where(jobs.c.id == candidate)
        .values(status=RUNNING, lease_owner=owner, lease_expires_at=expires,
                fencing_token=jobs.c.fencing_token + 1, attempts=jobs.c.attempts + 1,
                updated_at=now)
        .returning(jobs.c.id, jobs.c.fencing_token, jobs.c.account, jobs.c.cache_key,
                   jobs.c.content_hash, jobs.c.attempts, jobs.c.fresh)
    ).first()
    if row is None:
        return None
    if row.attempts > 1:
        _mark_abandoned_calls(conn, row.id, row.fencing_token)
    storage_key = blob_key(conn, row.account, row.content_hash)
    return ClaimedJob(claim=Claim(row.id, owner, row.fencing_token, expires),
                      account=row.account, cache_key=row.cache_key,
                      content_hash=row.content_hash, storage_key=storage_key,
                      attempts=row.attempts, fresh=row.fresh)


def _mark_abandoned_calls(conn: Connection, job_id: str, token: int) -> None:
    """Calls of earlier claims still 'running' lost their worker: nobody will finish them.

    Their end stays unknown (NULL). A worker that was only paused still ends its own call as
    'discarded' when it wakes and its publish is refused.
    """
    conn.execute(update(model_calls)
                 .where(model_calls.c.job_id == job_id, model_calls.c.outcome == "running",
                        model_calls.c.fencing_token < token)
                 .values(outcome="abandoned"))


def renew(conn: Connection, claim: Claim, now: datetime, lease_seconds: float) -> Claim | None:
    expires = lease_expiry(now, lease_seconds)
    done = conn.execute(update(jobs).where(_fenced(claim, now))
                        .values(lease_expires_at=expires, updated_at=now)).rowcount
    return Claim(claim.job_id, claim.owner, claim.token, expires) if done else None


def publish(conn: Connection, job: ClaimedJob, document: dict, now: datetime,
            *, record_in_cache: bool) -> bool:
    """Store the result and complete the job, only if the claim still holds."""
    result_id = new_id("res")
    fields = document.get("fields", {})

    def value(name):
        field = fields.get(name) or {}
        return field.get("value")

    conn.execute(results.insert().values(
        id=result_id, account=job.account, cache_key=job.cache_key,
        content_hash=job.content_hash, job_id=job.claim.job_id,
        document=json.dumps(document, separators=(",", ":")),
        invoice_number=_clip(value("invoice_number"), 200), issue_date=value("issue_date"),
        seller_name=_clip(value("seller_name"), 300), gross_total=value("gross_total"),
        currency=value("currency"), created_at=now,
    ))
    done = conn.execute(
        update(jobs).where(_fenced(job.claim, now))
        .values(status=COMPLETED, result_id=result_id, inflight_key=None, lease_owner=None,
                lease_expires_at=None, finished_at=now, updated_at=now, error_code=None,
                error_message=None)
    ).rowcount
    if not done:  # the claim is gone: leave no trace of the refused result
        conn.execute(results.delete().where(results.c.id == result_id))
        return False
    if record_in_cache:
        insert = insert_for(conn)
        stmt = insert(cache_entries).values(account=job.account, cache_key=job.cache_key,
                                            result_id=result_id, updated_at=now)
        conn.execute(stmt.on_conflict_do_update(
            index_elements=[cache_entries.c.account, cache_entries.c.cache_key],
            set_={"result_id": result_id, "updated_at": now}))
    return True


def fail(conn: Connection, claim: Claim, code: str, message: str, now: datetime) -> bool:
    """Record a permanent failure. Failures never enter the cache."""
    return bool(conn.execute(
        update(jobs).where(_fenced(claim, now))
        .values(status=FAILED, error_code=code, error_message=message[:2000],
                inflight_key=None, lease_owner=None, lease_expires_at=None,
                finished_at=now, updated_at=now)
    ).rowcount)


def release(conn: Connection, claim: Claim, now: datetime, *, run_after: datetime,
            error: tuple[str, str] | None = None, refund_attempt: bool = False) -> bool:
    """Hand the job back (shutdown, or a transient failure to retry after `run_after`).

    `refund_attempt`: this claim never reached the model (the store was away), so it does
    not count against the job's retry budget.
    """
    values = dict(status=PENDING, lease_owner=None, lease_expires_at=None,
                  run_after=run_after, updated_at=now)
    if refund_attempt:
        values["attempts"] = jobs.c.attempts - 1
    if error:
        values.update(error_code=error[0], error_message=error[1][:2000])
    return bool(conn.execute(update(jobs).where(_fenced(claim, now)).values(**values)).rowcount)


# --- the call ledger ------------------------------------------------------------------

def start_call(conn: Connection, *, operation: str, job: ClaimedJob, request_hash: str,
               cost, now: datetime) -> int:
    return conn.execute(model_calls.insert().values(
        operation=operation, account=job.account, job_id=job.claim.job_id,
        request_hash=request_hash, started_at=now, outcome="running", cost=cost,
        worker=job.claim.owner, fencing_token=job.claim.token,
    ).returning(model_calls.c.id)).scalar_one()


def finish_call(conn: Connection, call_id: int, outcome: str, now: datetime) -> None:
    conn.execute(update(model_calls).where(model_calls.c.id == call_id)
                 .values(outcome=outcome, finished_at=now))


def _clip(value, n):
    return value[:n] if isinstance(value, str) else value
