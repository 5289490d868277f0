"""A worker's side of the job table in SQL: claim, renew, publish, fail, release.

Every state change a worker makes is one conditional statement that names the owner and the
fencing token it claimed with, so a worker that lost its lease changes nothing. Every time in
these statements is the database's (clock.db_now), never a process's. Every worker write can be
retried after a lost acknowledgement: results carry ids the worker made before the first try,
and a publish or failure recognises that it already happened under its token.

What both dialects share is here; each dialect's module (postgresql/claims.py,
sqlite/claims.py) adds the two writes of a job's hot path: the claim that opens its call, and
the publish that ends it.
"""
from __future__ import annotations

import functools
import json
from abc import ABC, abstractmethod
from collections.abc import Callable

from sqlalchemy import (ColumnElement, Connection, Float, String, and_, case, func, literal_column,
                        or_, select, update)

from ...domain.jobs import MAX_ATTEMPTS, CallOutcome, Claim, JobStatus
from ...ports.extractor import Progress
from ...ports.jobs import (ATTEMPTS_EXHAUSTED, MAX_ERROR_MESSAGE, Call, CallOpening, ClaimedJob,
                           Exhausted)
from ..invoice_views import result_summary
from . import outbox, prebuilt
from .clock import db_now, db_now_plus
from .ledger import SqlLedger
from .tables import blobs, cache_entries, invoices, jobs

PENDING, RUNNING = JobStatus.PENDING.value, JobStatus.RUNNING.value
COMPLETED, FAILED = JobStatus.COMPLETED.value, JobStatus.FAILED.value
RESULT_COLUMNS = ("id", "account", "cache_key", "content_hash", "job_id", "document",
                  "invoice_number", "issue_date", "seller_name", "gross_total", "currency",
                  "seller_key", "number_key", "review_required")


# The statuses as SQL literals, not bound parameters: PostgreSQL plans a prepared statement
# (psycopg prepares one after a few executions) once for any parameters, and such a generic
# plan can use a partial index only if the statement's own text implies the index's predicate.
# With `status IN ($1, $2)` it could not: the claim's generic plan scanned the whole table and
# sorted every job in the queue, each claim dearer the longer the queue.
IN_FLIGHT_STATUSES: list[ColumnElement[str]] = [literal_column(f"'{status}'")
                                                for status in (PENDING, RUNNING)]
# The claim's LIMIT too: a generic plan takes a LIMIT it cannot see for a tenth of the rows,
# and on a job table of millions the claim's generic plan then looked thousands of times
# dearer than one made for the values, so PostgreSQL planned the claim anew at every call
# (about 1 ms, three times its execution; bench/history.py).
ONE: ColumnElement[int] = literal_column("1")


def in_flight(table=jobs):
    """The partial indexes' predicate (tables.IN_FLIGHT), so that the planner uses them,
    in prepared statements too."""
    return and_(table.c.status.in_(IN_FLIGHT_STATUSES), table.c.leader_id.is_(None))


def fenced(claim: Claim):
    """The job is still ours: running, our owner name, our token, lease not run out.

    domain.jobs.may_publish in SQL; tests/integration/test_rules_in_sql.py holds them equal."""
    return fenced_by(claim.job_id, claim.owner, claim.token)


def fenced_by(job_id, owner, token):
    """fenced, for values or a statement's bound parameters."""
    return and_(jobs.c.id == job_id, jobs.c.status == RUNNING, jobs.c.lease_owner == owner,
                jobs.c.fencing_token == token, jobs.c.lease_expires_at > db_now())


def claim_update(owner, lease_seconds, extractor_versions):
    """The claim itself: one UPDATE … RETURNING of the job it took, or failed past its attempts
    (domain.jobs.exhausted: a reclaim after an expired lease counts too). PostgreSQL skips rows
    other workers hold (FOR UPDATE SKIP LOCKED); SQLite has no row locks and needs none: its
    single writer serialises claims. Values or bound parameters."""
    now = db_now()
    candidate = (
        select(jobs.c.id)
        .where(in_flight(), jobs.c.extractor_versions == extractor_versions,
               or_(and_(jobs.c.status == PENDING, jobs.c.run_after <= now),
                   and_(jobs.c.status == RUNNING, jobs.c.lease_expires_at <= now)))
        .order_by(jobs.c.fair_position, jobs.c.created_at)
        .limit(ONE)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    spent = jobs.c.attempts >= MAX_ATTEMPTS

    def unless_spent(value, spent_value):
        return case((spent, spent_value), else_=value)

    return (
        update(jobs).where(jobs.c.id == candidate)
        .values(status=unless_spent(RUNNING, FAILED),
                lease_owner=unless_spent(owner, None),
                lease_expires_at=unless_spent(db_now_plus(lease_seconds), None),
                fencing_token=jobs.c.fencing_token + 1,
                attempts=unless_spent(jobs.c.attempts + 1, jobs.c.attempts),
                inflight_key=unless_spent(jobs.c.inflight_key, None),
                claimed_at=unless_spent(now, jobs.c.claimed_at),
                finished_at=unless_spent(None, now),
                error_code=unless_spent(jobs.c.error_code, ATTEMPTS_EXHAUSTED),
                error_message=unless_spent(
                    jobs.c.error_message,
                    f"gave up after {MAX_ATTEMPTS} attempts (each lost its worker or failed "
                    "transiently)"),
                updated_at=now)
        .returning(jobs.c.id, jobs.c.status, jobs.c.fencing_token, jobs.c.account,
                   jobs.c.cache_key, jobs.c.content_hash, jobs.c.attempts, jobs.c.fresh,
                   jobs.c.lease_expires_at, jobs.c.claimed_at, jobs.c.retry_of,
                   jobs.c.request_id, jobs.c.trace_context))


def invoice_of(job_id, retry_of):
    """The invoice a job was created with (a retry's: the one it retries), for its log lines;
    one probe of the unique index on invoices.job_id. Values or a statement's columns."""
    return select(func.coalesce(
        select(invoices.c.id).where(invoices.c.job_id == job_id).limit(1).scalar_subquery(),
        retry_of))


@functools.cache
def prebuilt_claim():
    """claim_update built once per process, its values (prebuilt.param's owner, lease_seconds
    and extractor_versions) bound at each claim: building the statement took half a
    millisecond of every claim. SQLite runs it as it is; PostgreSQL's claim
    (postgresql/claims.py) holds it as a CTE of one statement."""
    return claim_update(prebuilt.param("owner", String), prebuilt.param("lease_seconds", Float),
                        prebuilt.param("extractor_versions", String))


def claimed(row, owner: str, storage_key: str | None, invoice_id: str | None) -> ClaimedJob:
    return ClaimedJob(claim=Claim(row.id, owner, row.fencing_token, row.lease_expires_at),
                      account=row.account, cache_key=row.cache_key,
                      content_hash=row.content_hash, storage_key=storage_key,
                      attempts=row.attempts, fresh=row.fresh, claimed_at=row.claimed_at,
                      invoice_id=invoice_id, request_id=row.request_id,
                      trace_context=row.trace_context)


def result_row(job: ClaimedJob, document: dict, result_id: str) -> dict:
    return dict(
        id=result_id, account=job.account, cache_key=job.cache_key,
        content_hash=job.content_hash, job_id=job.claim.job_id,
        document=json.dumps(document, separators=(",", ":")), **result_summary(document),
        created_at=db_now())


def completed(result_id) -> dict:
    return dict(status=COMPLETED, result_id=result_id, inflight_key=None, lease_owner=None,
                lease_expires_at=None, finished_at=db_now(), updated_at=db_now(),
                error_code=None, error_message=None)


def current_unless_superseded(stmt):
    """The cache entry's upsert, unless it holds an extraction that started later
    (domain.cache.supersedes, in the statement)."""
    current = cache_entries.c.started_at
    return stmt.on_conflict_do_update(
        index_elements=[cache_entries.c.account, cache_entries.c.cache_key],
        set_={"result_id": stmt.excluded.result_id, "updated_at": stmt.excluded.updated_at,
              "started_at": stmt.excluded.started_at},
        where=or_(current.is_(None), current < stmt.excluded.started_at))


class SqlClaims(ABC):
    """The claims both dialects make alike; a dialect's subclass adds claim_and_start and
    publish_and_finish, and says how a job's end is announced."""

    def __init__(self, conn: Connection, insert: Callable, ledger: SqlLedger):
        self.conn, self._insert, self._ledger = conn, insert, ledger

    @abstractmethod
    def claim_and_start(self, owner: str, lease_seconds: float, extractor_versions: str,
                        opening: CallOpening) -> ClaimedJob | Exhausted | None: ...

    @abstractmethod
    def publish_and_finish(self, job: ClaimedJob, call: Call, document: dict, *,
                           result_id: str, record_in_cache: bool,
                           progress: Progress | None = None) -> bool: ...

    def announce_job_ended(self, job_id: str) -> None:  # noqa: B027 - only PostgreSQL notifies
        """Inside the transaction that ends the job: tell the requests waiting for it."""

    def claim_next(self, owner: str, lease_seconds: float,
                   extractor_versions: str) -> ClaimedJob | Exhausted | None:
        """The claim without its call: the job in fair order, its token raised (a job past
        its attempts failed instead, with its joiners, who read its status)."""
        conn = self.conn
        row = conn.execute(prebuilt_claim(), prebuilt.values(
            owner=owner, lease_seconds=float(lease_seconds),
            extractor_versions=extractor_versions)).first()
        if row is None:
            return None
        if row.fencing_token > 1:
            self._ledger.mark_abandoned_calls(row.id, row.fencing_token)
        if row.status == FAILED:
            self.announce_job_ended(row.id)
            outbox.job_event(conn, row.id, "invoice.failed", ATTEMPTS_EXHAUSTED)
            return Exhausted(row.id)
        storage_key = conn.execute(
            select(blobs.c.storage_key)
            .where(blobs.c.account == row.account, blobs.c.content_hash == row.content_hash)
        ).scalar()
        invoice_id = conn.execute(invoice_of(row.id, row.retry_of)).scalar()
        return claimed(row, owner, storage_key, invoice_id)

    def make_current(self, job: ClaimedJob, result_id: str) -> None:
        """The result becomes the cache's entry, unless an extraction that started later holds
        it (current_unless_superseded)."""
        self.conn.execute(current_unless_superseded(self._insert(cache_entries).values(
            account=job.account, cache_key=job.cache_key, result_id=result_id,
            updated_at=db_now(), started_at=job.claimed_at)))

    def renew(self, claim: Claim, lease_seconds: float) -> Claim | None:
        expires = self.conn.execute(update(jobs).where(fenced(claim))
                                    .values(lease_expires_at=db_now_plus(lease_seconds),
                                            updated_at=db_now())
                                    .returning(jobs.c.lease_expires_at)).scalar()
        return Claim(claim.job_id, claim.owner, claim.token, expires) if expires else None

    def ended_under(self, claim: Claim, status: str) -> bool:
        """Did this claim already end the job this way (a retried write whose first try
        committed)? Only the holder of a token can end the job under it."""
        row = self.conn.execute(select(jobs.c.status, jobs.c.fencing_token)
                                .where(jobs.c.id == claim.job_id)).first()
        return row is not None and row.status == status and row.fencing_token == claim.token

    def fail(self, claim: Claim, code: str, message: str) -> bool:
        done = self.conn.execute(
            update(jobs).where(fenced(claim))
            .values(status=FAILED, error_code=code, error_message=message[:MAX_ERROR_MESSAGE],
                    inflight_key=None, lease_owner=None, lease_expires_at=None,
                    finished_at=db_now(), updated_at=db_now())
        ).rowcount
        if done:
            self.announce_job_ended(claim.job_id)
            outbox.job_event(self.conn, claim.job_id, "invoice.failed", code)
        return bool(done) or self.ended_under(claim, FAILED)

    def release(self, claim: Claim, *, after_seconds: float = 0.0,
                error: tuple[str, str] | None = None, refund_attempt: bool = False) -> bool:
        values: dict[str, object] = dict(status=PENDING, lease_owner=None,
                                         lease_expires_at=None,
                                         run_after=db_now_plus(after_seconds),
                                         updated_at=db_now())
        if refund_attempt:
            values["attempts"] = jobs.c.attempts - 1
        if error:
            values.update(error_code=error[0], error_message=error[1][:MAX_ERROR_MESSAGE])
        done = self.conn.execute(update(jobs).where(fenced(claim)).values(**values)).rowcount
        return bool(done) or self.ended_under(claim, PENDING)

    def release_owned(self, owner: str, call_id: str | None = None) -> int:
        released = self.conn.execute(
            update(jobs).where(in_flight(), jobs.c.status == RUNNING, jobs.c.lease_owner == owner)
            .values(status=PENDING, lease_owner=None, lease_expires_at=None,
                    attempts=jobs.c.attempts - 1, updated_at=db_now())).rowcount
        if call_id is not None:
            self._ledger.finish_call(call_id, CallOutcome.UNSTARTED)
        return released
