"""A job's hot path on PostgreSQL: two statements, each its own transaction (run in
autocommit, one round trip each, as procrastinate's fetch-and-lock and finish are), each one
UPDATE with data-modifying CTEs for everything that must change with it.

The statements are built and compiled once per process (prebuilt.py): building one of this
size costs more than running it; and they run on psycopg's cursor (driver.py): SQLAlchemy's
execution of one cost three times psycopg's own.
"""
from __future__ import annotations

import functools

from sqlalchemy import (ColumnElement, Integer, String, case, exists, func, literal,
                        or_, select, update)
from sqlalchemy.dialects import postgresql

from ....domain.jobs import CallOutcome
from ....ports.extractor import Progress
from ....ports.jobs import ATTEMPTS_EXHAUSTED, Call, CallOpening, ClaimedJob, Exhausted
from .. import outbox, prebuilt
from ..claims import (COMPLETED, FAILED, RESULT_COLUMNS, SqlClaims, claimed, completed,
                      current_unless_superseded, fenced_by, invoice_of, prebuilt_claim,
                      result_row)
from ..clock import db_now
from ..ledger import PROGRESS_COLUMNS, progress_params, progress_set
from ..notify import announce_job_ended, job_ended_notice
from ..tables import blobs, cache_entries, jobs, model_calls, results
from ..driver import Prebuilt


class PostgresClaims(SqlClaims):
    def announce_job_ended(self, job_id: str) -> None:
        announce_job_ended(self.conn, job_id)

    def claim_and_start(self, owner: str, lease_seconds: float, extractor_versions: str,
                        opening: CallOpening) -> ClaimedJob | Exhausted | None:
        """One statement (_claim_and_start_statement): the claim (fencing token, attempts cap)
        as a CTE, the calls of earlier claims marked abandoned, the new call inserted, the
        original's storage key and the job's invoice read, and for a job past its attempts its
        end announced and its webhook events written instead."""
        found = _claim_and_start_statement().first(self.conn, prebuilt.values(
            owner=owner, lease_seconds=float(lease_seconds),
            extractor_versions=extractor_versions, call_id=opening.call_id,
            operation=opening.operation, cost=opening.cost, provider=opening.provider,
            model=opening.model, cost_basis=opening.cost_basis))
        if found is None:
            return None
        if found.status == FAILED:
            return Exhausted(found.id)
        return claimed(found, owner, found.storage_key, found.invoice_id)

    def publish_and_finish(self, job: ClaimedJob, call: Call, document: dict, *,
                           result_id: str, record_in_cache: bool,
                           progress: Progress | None = None) -> bool:
        """One statement: the fenced UPDATE of the job as a CTE, and only if it matched, the
        result row, the cache entry (unless a later-started extraction holds it), the webhook
        events and the notification; the call's end in any case. Nothing of a refused result
        is ever written, so nothing needs deleting."""
        claim = job.claim
        values = result_row(job, document, result_id)
        del values["created_at"]
        values.update(owner=claim.owner, token=claim.token, call_id=call.call_id)
        if progress is not None:
            values.update({f"progress_{k}": v for k, v in progress_params(progress).items()})
        statement = _publish_and_finish_statement(record_in_cache, progress is not None)
        return bool(statement.first(self.conn, prebuilt.values(**values)).published)


@functools.cache
def _claim_and_start_statement():
    bound = prebuilt.columns(model_calls, "call_id", "operation", "cost", "provider", "model",
                             "cost_basis")
    owner = prebuilt.param("owner", String)  # the same parameter as the claim's own
    claimed_job = prebuilt_claim().cte("claimed")
    spent = claimed_job.c.status == FAILED
    # SqlLedger.mark_abandoned_calls; its job id a scalar, so that the planner probes
    # ix_model_calls_job_id rather than joins the ledger to a CTE it cannot estimate.
    abandoned = (update(model_calls)
                 .where(model_calls.c.job_id == select(claimed_job.c.id).scalar_subquery(),
                        model_calls.c.outcome == CallOutcome.RUNNING.value,
                        model_calls.c.fencing_token
                        < select(claimed_job.c.fencing_token).scalar_subquery())
                 .values(outcome=CallOutcome.ABANDONED.value).cte("abandoned"))
    row = {**bound, "account": claimed_job.c.account, "job_id": claimed_job.c.id,
           "request_hash": claimed_job.c.cache_key, "started_at": db_now(),
           "outcome": literal(CallOutcome.RUNNING.value), "worker": owner,
           "fencing_token": claimed_job.c.fencing_token}
    started = (model_calls.insert()
               .from_select(list(row), select(*_typed(model_calls, row)).where(~spent),
                            include_defaults=False)
               .cte("started"))
    # The job id as a scalar (NULL unless spent), not a join with the CTE: joined, the planner
    # made the claim's own UPDATE of jobs take hundreds of milliseconds on a large table.
    events = outbox.job_event_insert(select(claimed_job.c.id).where(spent).scalar_subquery(),
                                     "invoice.failed", ATTEMPTS_EXHAUSTED).cte("events")
    notified = job_ended_notice(claimed_job.c.id).where(spent).cte("notified")
    storage_key = (select(blobs.c.storage_key)
                   .where(blobs.c.account == claimed_job.c.account,
                          blobs.c.content_hash == claimed_job.c.content_hash).scalar_subquery())
    invoice_id = invoice_of(claimed_job.c.id, claimed_job.c.retry_of).scalar_subquery()
    return Prebuilt(select(*claimed_job.c, storage_key.label("storage_key"),
                           invoice_id.label("invoice_id"), _count(notified))
                    .add_cte(abandoned, started, events))


@functools.cache
def _publish_and_finish_statement(record_in_cache: bool, with_progress: bool):
    row = prebuilt.columns(results, *RESULT_COLUMNS)
    job_id, token = row["job_id"], prebuilt.param("token", Integer)
    done = (update(jobs).where(fenced_by(job_id, prebuilt.param("owner", String), token))
            .values(**completed(row["id"])).returning(jobs.c.id, jobs.c.claimed_at)
            .cte("done"))
    now_done = exists(select(done.c.id))
    # The statement's snapshot is from before its own UPDATE: this finds a first try that
    # committed under our token (SqlClaims.ended_under).
    before = exists().where(jobs.c.id == job_id, jobs.c.status == COMPLETED,
                            jobs.c.fencing_token == token)
    published = or_(now_done, before)
    ctes = [results.insert().from_select(
        list(row) + ["created_at"],
        select(*_typed(results, {**row, "created_at": db_now()})).select_from(done),
        include_defaults=False).cte("stored")]
    ended = dict(outcome=case((published, CallOutcome.PUBLISHED.value),
                              else_=CallOutcome.DISCARDED.value), finished_at=db_now())
    if with_progress:
        ended.update(progress_set(job_id, {
            name: prebuilt.param(f"progress_{name}", model_calls.c[name].type)
            for name in PROGRESS_COLUMNS}))
    ctes.append(update(model_calls)
                .where(model_calls.c.call_id == prebuilt.param("call_id", String))
                .values(**ended).cte("ended"))
    if record_in_cache:
        entry = {"account": row["account"], "cache_key": row["cache_key"],
                 "result_id": row["id"], "updated_at": db_now(),
                 "started_at": done.c.claimed_at}
        ctes.append(current_unless_superseded(postgresql.insert(cache_entries).from_select(
            list(entry), select(*_typed(cache_entries, entry)))).cte("current"))
    ctes.append(outbox.job_event_insert(job_id, "invoice.completed", when=now_done)
                .cte("events"))
    notified = job_ended_notice(done.c.id).cte("notified")
    return Prebuilt(select(published.label("published"), _count(notified)).add_cte(*ctes))


def _typed(table, row: dict) -> list:
    """A row of values for INSERT … SELECT: plain values bound with their column's type."""
    return [(value if isinstance(value, ColumnElement) else literal(value, table.c[name].type))
            .label(name) for name, value in row.items()]


def _count(cte):
    """A column that makes PostgreSQL run a plain (not data-modifying) CTE: pg_notify's."""
    return select(func.count()).select_from(cte).scalar_subquery().label(f"{cte.name}_rows")
