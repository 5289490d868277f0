"""The durable job table: create-or-get on arrival, claim, renew, publish, fail.

Every state change a worker makes is one conditional statement that names the owner and the
fencing token it claimed with, so a worker that lost its lease changes nothing. Every time in
these statements is the database's (clock.db_now), never a process's. Every worker write can be
retried after a lost acknowledgement: ledger rows and results carry ids the worker made before
the first try, and a publish or failure recognises that it already happened under its token.

A job's path on PostgreSQL is two statements, each its own transaction (run in autocommit,
one round trip each, as procrastinate's fetch-and-lock and finish are): `claim_and_start` and
`publish_and_finish`, each one UPDATE with data-modifying CTEs for everything that must change
with it. SQLite has no data-modifying CTEs; there the same steps run one by one inside its
single writer's transaction, with the same outcome.
"""
from __future__ import annotations

import functools
import json
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import (Connection, ColumnElement, Float, Integer, String, and_, case,
                        exists, func, literal, or_, select, update)
from sqlalchemy.dialects import postgresql

from ...domain.duplicates import seller_key
from ...domain.jobs import MAX_ATTEMPTS, CacheOutcome, CallOutcome, Claim, JobStatus
from . import outbox, prebuilt
from .clock import db_now, db_now_plus
from .engine import insert_for
from .notify import announce_job_ended, job_ended_notice
from .tables import blobs, cache_entries, invoices, jobs, model_calls, results, shadow_fields

PENDING, RUNNING = JobStatus.PENDING.value, JobStatus.RUNNING.value
COMPLETED, FAILED = JobStatus.COMPLETED.value, JobStatus.FAILED.value
ATTEMPTS_EXHAUSTED = "attempts_exhausted"
MAX_ERROR_MESSAGE = 2000


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
    extractor_versions: str          # ExtractorVersions.label of the API that keyed it
    retry_of: str | None = None      # the invoice a retry job makes a new attempt for


@dataclass(frozen=True)
class ClaimedJob:
    claim: Claim
    account: str
    cache_key: str
    content_hash: str
    storage_key: str | None
    attempts: int
    fresh: bool
    claimed_at: datetime  # database time: when this attempt (its extraction) started


@dataclass(frozen=True)
class Exhausted:
    """The claim found a job past its attempts and failed it instead (with its joiners)."""
    job_id: str


def _in_flight(table=jobs):
    """The partial indexes' predicate (tables.IN_FLIGHT), so that the planner uses them."""
    return and_(table.c.status.in_([PENDING, RUNNING]), table.c.leader_id.is_(None))


# --- arrival ------------------------------------------------------------------------

def job_by_idempotency_key(conn: Connection, account: str, caller_id: str, key: str,
                           ttl_seconds: float):
    """The operation under the caller's key; `expired` once it is older than the key's
    lifetime (by the database's clock), after which the key names nothing."""
    return conn.execute(
        select(jobs.c.id, jobs.c.request_hash,
               func.coalesce(invoices.c.id, jobs.c.retry_of).label("invoice_id"),
               (jobs.c.created_at < db_now_plus(-ttl_seconds)).label("expired"))
        .select_from(jobs.outerjoin(invoices, invoices.c.job_id == jobs.c.id))
        .where(jobs.c.account == account, jobs.c.caller_id == caller_id,
               jobs.c.idempotency_key == key)
    ).first()


def forget_idempotency_key(conn: Connection, job_id: str) -> None:
    """The key expired: free it for a new operation (the old job and invoice stay)."""
    conn.execute(update(jobs).where(jobs.c.id == job_id)
                 .values(idempotency_key=None, updated_at=db_now()))


def inflight_leader(conn: Connection, account: str, cache_key: str, *, joinable_only: bool):
    """The running or pending extraction for this key, if there is one.

    Joining locks the leader's row (FOR SHARE) until the joiner commits: a leader that fails
    or completes meanwhile waits for the join to commit, and a leader whose failure committed
    first is no longer found, so an arrival never joins a failure that came before it.
    """
    if joinable_only:
        query = (select(jobs.c.id)
                 .where(jobs.c.account == account, jobs.c.inflight_key == cache_key)
                 .with_for_update(read=True))
    else:
        query = select(jobs.c.id).where(jobs.c.account == account, jobs.c.cache_key == cache_key,
                                        _in_flight()).limit(1)
    return conn.execute(query).scalar()


def cached_result(conn: Connection, account: str, cache_key: str) -> str | None:
    return conn.execute(
        select(cache_entries.c.result_id)
        .where(cache_entries.c.account == account, cache_entries.c.cache_key == cache_key)
    ).scalar()


def _fair_position(job: NewJob):
    """domain.jobs.fair_position in SQL: two index probes on the queue's partial indexes."""
    q, mine = jobs.alias("q"), jobs.alias("mine")
    head = func.coalesce(
        select(func.min(q.c.fair_position))
        .where(_in_flight(q), q.c.extractor_versions == job.extractor_versions)
        .scalar_subquery(), 0)
    after_last = func.coalesce(
        select(func.max(mine.c.fair_position) + 1)
        .where(_in_flight(mine), mine.c.account == job.account).scalar_subquery(), 0)
    return case((after_last > head, after_last), else_=head)


def insert_job(conn: Connection, job: NewJob, *, outcome: CacheOutcome,
               leader_id: str | None = None, result_id: str | None = None,
               joinable: bool = False, would_be: str | None = None) -> str:
    """Insert the job (times from the database clock); returns its id."""
    job_id = new_id("job")
    finished = result_id is not None
    works = not finished and leader_id is None
    conn.execute(jobs.insert().values(
        id=job_id, account=job.account, caller_id=job.caller_id,
        idempotency_key=job.idempotency_key, request_hash=job.request_hash,
        cache_key=job.cache_key, content_hash=job.content_hash,
        status=COMPLETED if finished else PENDING, outcome=outcome.value, would_be=would_be,
        fresh=job.fresh, leader_id=leader_id,
        inflight_key=job.cache_key if joinable else None, result_id=result_id,
        fencing_token=0, attempts=0, extractor_versions=job.extractor_versions,
        fair_position=_fair_position(job) if works else 0, retry_of=job.retry_of,
        run_after=db_now(), created_at=db_now(), updated_at=db_now(),
        finished_at=db_now() if finished else None,
    ))
    return job_id


def insert_invoice(conn: Connection, job: NewJob, job_id: str) -> str:
    """The caller's invoice record, created at the same (database) time as its job."""
    invoice_id = new_id("inv")
    conn.execute(invoices.insert().from_select(
        ["id", "account", "uploaded_by", "job_id", "content_hash", "created_at"],
        select(literal(invoice_id), literal(job.account), literal(job.caller_id),
               jobs.c.id, literal(job.content_hash), jobs.c.created_at)
        .where(jobs.c.id == job_id)))
    return invoice_id


def blob_key(conn: Connection, account: str, content_hash: str) -> str | None:
    return conn.execute(
        select(blobs.c.storage_key)
        .where(blobs.c.account == account, blobs.c.content_hash == content_hash)
    ).scalar()


def record_blob(conn: Connection, account: str, content_hash: str, storage_key: str,
                size: int) -> bool:
    """Record a stored original; False when a row for it was already there."""
    insert = insert_for(conn)
    return bool(conn.execute(insert(blobs).values(
        account=account, content_hash=content_hash, storage_key=storage_key, size=size,
        stored_at=db_now(),
    ).on_conflict_do_nothing()).rowcount)


# --- retries asked for by a caller ----------------------------------------------------

@dataclass(frozen=True)
class RetryTarget:
    job_id: str       # the invoice's own job
    status: str       # what a reader sees: its leader's status when it follows one


def retry_target(conn: Connection, invoice_id: str) -> RetryTarget | None:
    """The invoice's own job, locked against a concurrent retry, and the status it shows."""
    own = conn.execute(select(jobs.c.id, jobs.c.leader_id, jobs.c.status)
                       .select_from(invoices.join(jobs, jobs.c.id == invoices.c.job_id))
                       .where(invoices.c.id == invoice_id).with_for_update(of=jobs)).first()
    if own is None:
        return None
    status = own.status
    if own.leader_id is not None:
        status = conn.execute(select(jobs.c.status).where(jobs.c.id == own.leader_id)).scalar()
    return RetryTarget(own.id, status)


def follow(conn: Connection, job_id: str, worker_job_id: str) -> None:
    """Point an invoice's job at the job now doing its work (readers follow `leader_id`)."""
    conn.execute(update(jobs).where(jobs.c.id == job_id)
                 .values(leader_id=worker_job_id, updated_at=db_now()))


# --- workers ------------------------------------------------------------------------

def _fenced(claim: Claim):
    """The job is still ours: running, our owner name, our token, lease not run out.

    domain.jobs.may_publish in SQL; tests/integration/test_rules_in_sql.py holds them equal."""
    return _fenced_by(claim.job_id, claim.owner, claim.token)


def _fenced_by(job_id, owner, token):
    """_fenced, for values or a statement's bound parameters."""
    return and_(jobs.c.id == job_id, jobs.c.status == RUNNING, jobs.c.lease_owner == owner,
                jobs.c.fencing_token == token, jobs.c.lease_expires_at > db_now())


def claim_next(conn: Connection, owner: str, lease_seconds: float,
               extractor_versions: str) -> ClaimedJob | Exhausted | None:
    """Claim the next job in fair order that this worker's extractor can produce, and raise its
    fencing token, in one statement.

    The same statement enforces the attempts cap (domain.jobs.exhausted): a claimable job that
    already had MAX_ATTEMPTS claims, a reclaim after an expired lease included, ends `failed`
    with `attempts_exhausted` instead, and so do the uploads joined to it (they read its status).
    PostgreSQL skips rows other workers hold (FOR UPDATE SKIP LOCKED); SQLite has no row
    locks and needs none: its single writer serialises claims.
    """
    row = conn.execute(_claim_update(owner, lease_seconds, extractor_versions)).first()
    if row is None:
        return None
    if row.fencing_token > 1:
        mark_abandoned_calls(conn, row.id, row.fencing_token)
    if row.status == FAILED:
        announce_job_ended(conn, row.id)
        outbox.job_event(conn, row.id, "invoice.failed", ATTEMPTS_EXHAUSTED)
        return Exhausted(row.id)
    return _claimed(row, owner, blob_key(conn, row.account, row.content_hash))


def _claimed(row, owner: str, storage_key: str | None) -> ClaimedJob:
    return ClaimedJob(claim=Claim(row.id, owner, row.fencing_token, row.lease_expires_at),
                      account=row.account, cache_key=row.cache_key,
                      content_hash=row.content_hash, storage_key=storage_key,
                      attempts=row.attempts, fresh=row.fresh, claimed_at=row.claimed_at)


def _claim_update(owner: str, lease_seconds: float, extractor_versions: str):
    """The claim itself (claim_next): one UPDATE … RETURNING of the job it took or failed."""
    now = db_now()
    candidate = (
        select(jobs.c.id)
        .where(_in_flight(), jobs.c.extractor_versions == extractor_versions,
               or_(and_(jobs.c.status == PENDING, jobs.c.run_after <= now),
                   and_(jobs.c.status == RUNNING, jobs.c.lease_expires_at <= now)))
        .order_by(jobs.c.fair_position, jobs.c.created_at)
        .limit(1)
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
                   jobs.c.lease_expires_at, jobs.c.claimed_at))


def claim_and_start(conn: Connection, owner: str, lease_seconds: float,
                    extractor_versions: str,
                    opening: CallOpening) -> ClaimedJob | Exhausted | None:
    """claim_next, and the claimed attempt's ledger row opened with it: the billed call starts
    in the claim's own statement, before the original is fetched, so no attempt can reach the
    model unrecorded (one that never does is ended `unstarted`, at cost 0).

    PostgreSQL, one statement (_claim_and_start_statement): the claim (fencing token, attempts
    cap) as a CTE, the calls of earlier claims marked abandoned, the new call inserted, the
    original's storage key read, and for a job past its attempts its end announced and its
    webhook events written instead.
    """
    if conn.dialect.name != "postgresql":
        job = claim_next(conn, owner, lease_seconds, extractor_versions)
        if isinstance(job, ClaimedJob):
            start_call(conn, opening.of(job))
        return job
    found = conn.execute(_claim_and_start_statement(), prebuilt.values(
        owner=owner, lease_seconds=float(lease_seconds), extractor_versions=extractor_versions,
        call_id=opening.call_id, operation=opening.operation, cost=opening.cost,
        provider=opening.provider, model=opening.model, cost_basis=opening.cost_basis)).first()
    if found is None:
        return None
    if found.status == FAILED:
        return Exhausted(found.id)
    return _claimed(found, owner, found.storage_key)


@functools.cache
def _claim_and_start_statement():
    bound = prebuilt.columns(model_calls, "call_id", "operation", "cost", "provider", "model",
                             "cost_basis")
    owner = prebuilt.param("owner", String)
    claimed = _claim_update(owner, prebuilt.param("lease_seconds", Float),
                            prebuilt.param("extractor_versions", String)).cte("claimed")
    spent = claimed.c.status == FAILED
    # mark_abandoned_calls; its job id a scalar, so that the planner probes ix_model_calls_job_id
    # rather than joins the ledger to a CTE it cannot estimate.
    abandoned = (update(model_calls)
                 .where(model_calls.c.job_id == select(claimed.c.id).scalar_subquery(),
                        model_calls.c.outcome == CallOutcome.RUNNING.value,
                        model_calls.c.fencing_token
                        < select(claimed.c.fencing_token).scalar_subquery())
                 .values(outcome=CallOutcome.ABANDONED.value).cte("abandoned"))
    row = {**bound, "account": claimed.c.account, "job_id": claimed.c.id,
           "request_hash": claimed.c.cache_key, "started_at": db_now(),
           "outcome": literal(CallOutcome.RUNNING.value), "worker": owner,
           "fencing_token": claimed.c.fencing_token}
    started = (model_calls.insert()
               .from_select(list(row), select(*_typed(model_calls, row)).where(~spent),
                            include_defaults=False)
               .cte("started"))
    # The job id as a scalar (NULL unless spent), not a join with the CTE: joined, the planner
    # made the claim's own UPDATE of jobs take hundreds of milliseconds on a large table.
    events = outbox.job_event_insert(select(claimed.c.id).where(spent).scalar_subquery(),
                                     "invoice.failed", ATTEMPTS_EXHAUSTED).cte("events")
    notified = job_ended_notice(claimed.c.id).where(spent).cte("notified")
    storage_key = (select(blobs.c.storage_key)
                   .where(blobs.c.account == claimed.c.account,
                          blobs.c.content_hash == claimed.c.content_hash).scalar_subquery())
    return (select(*claimed.c, storage_key.label("storage_key"), _count(notified))
            .add_cte(abandoned, started, events))


def _typed(table, row: dict) -> list:
    """A row of values for INSERT … SELECT: plain values bound with their column's type."""
    return [(value if isinstance(value, ColumnElement) else literal(value, table.c[name].type))
            .label(name) for name, value in row.items()]


def _count(cte):
    """A column that makes PostgreSQL run a plain (not data-modifying) CTE: pg_notify's."""
    return select(func.count()).select_from(cte).scalar_subquery().label(f"{cte.name}_rows")


def mark_abandoned_calls(conn: Connection, job_id: str, token: int) -> None:
    """Calls of earlier claims still 'running' lost their worker: nobody will finish them.

    Their end stays unknown (NULL). A worker that was only paused still ends its own call as
    'discarded' when it wakes and its publish is refused. One probe of ix_model_calls_job_id.
    """
    conn.execute(update(model_calls)
                 .where(model_calls.c.job_id == job_id,
                        model_calls.c.outcome == CallOutcome.RUNNING.value,
                        model_calls.c.fencing_token < token)
                 .values(outcome=CallOutcome.ABANDONED.value))


def renew(conn: Connection, claim: Claim, lease_seconds: float) -> Claim | None:
    expires = conn.execute(update(jobs).where(_fenced(claim))
                           .values(lease_expires_at=db_now_plus(lease_seconds),
                                   updated_at=db_now())
                           .returning(jobs.c.lease_expires_at)).scalar()
    return Claim(claim.job_id, claim.owner, claim.token, expires) if expires else None


def _ended_under(conn: Connection, claim: Claim, status: str) -> bool:
    """Did this claim already end the job this way (a retried write whose first try
    committed)? Only the holder of a token can end the job under it."""
    row = conn.execute(select(jobs.c.status, jobs.c.fencing_token)
                       .where(jobs.c.id == claim.job_id)).first()
    return row is not None and row.status == status and row.fencing_token == claim.token


def publish(conn: Connection, job: ClaimedJob, document: dict, *, result_id: str,
            record_in_cache: bool) -> bool:
    """Store the result and complete the job, only if the claim still holds.

    `result_id` is made by the worker once per attempt: a retry after a lost acknowledgement
    finds its own committed result and reports success instead of discarding it.
    """
    insert = insert_for(conn)
    conn.execute(insert(results).values(**_result_row(job, document, result_id))
                 .on_conflict_do_nothing(index_elements=[results.c.id]))
    done = conn.execute(
        update(jobs).where(_fenced(job.claim)).values(**_completed(result_id))).rowcount
    if not done:
        if _ended_under(conn, job.claim, COMPLETED):
            return True
        # The claim is gone: leave no trace of the refused result.
        conn.execute(results.delete().where(results.c.id == result_id))
        return False
    if record_in_cache:
        _make_current(conn, job, result_id)
    announce_job_ended(conn, job.claim.job_id)
    outbox.job_event(conn, job.claim.job_id, "invoice.completed")
    return True


RESULT_COLUMNS = ("id", "account", "cache_key", "content_hash", "job_id", "document",
                  "invoice_number", "issue_date", "seller_name", "gross_total", "currency",
                  "seller_key", "review_required")


def _result_row(job: ClaimedJob, document: dict, result_id: str) -> dict:
    fields = document.get("fields", {})

    def value(name):
        return (fields.get(name) or {}).get("value")

    return dict(
        id=result_id, account=job.account, cache_key=job.cache_key,
        content_hash=job.content_hash, job_id=job.claim.job_id,
        document=json.dumps(document, separators=(",", ":")),
        invoice_number=value("invoice_number"), issue_date=value("issue_date"),
        seller_name=value("seller_name"), gross_total=value("gross_total"),
        currency=value("currency"), seller_key=seller_key(value("seller_name")),
        review_required=(document.get("review") or {}).get("required") is True,
        created_at=db_now())


def _completed(result_id: str) -> dict:
    return dict(status=COMPLETED, result_id=result_id, inflight_key=None, lease_owner=None,
                lease_expires_at=None, finished_at=db_now(), updated_at=db_now(),
                error_code=None, error_message=None)


def _make_current(conn: Connection, job: ClaimedJob, result_id: str) -> None:
    """Upsert the cache entry unless it holds an extraction that started later
    (domain.cache.supersedes, in the statement)."""
    insert = insert_for(conn)
    conn.execute(_current_unless_superseded(insert(cache_entries).values(
        account=job.account, cache_key=job.cache_key, result_id=result_id,
        updated_at=db_now(), started_at=job.claimed_at)))


def _current_unless_superseded(stmt):
    current = cache_entries.c.started_at
    return stmt.on_conflict_do_update(
        index_elements=[cache_entries.c.account, cache_entries.c.cache_key],
        set_={"result_id": stmt.excluded.result_id, "updated_at": stmt.excluded.updated_at,
              "started_at": stmt.excluded.started_at},
        where=or_(current.is_(None), current < stmt.excluded.started_at))


def publish_and_finish(conn: Connection, job: ClaimedJob, call: Call, document: dict, *,
                       result_id: str, record_in_cache: bool, progress=None) -> bool:
    """publish, and the call ended with it (finish_call): `published` when the result became
    the job's (now, or by this attempt's earlier try whose acknowledgement was lost),
    `discarded` when the claim was gone. True when published.

    PostgreSQL, one statement: the fenced UPDATE of the job as a CTE, and only if it matched,
    the result row, the cache entry (unless a later-started extraction holds it), the webhook
    events and the notification; the call's end in any case. Nothing of a refused result is
    ever written, so nothing needs deleting.
    """
    if conn.dialect.name != "postgresql":
        published = publish(conn, job, document, result_id=result_id,
                            record_in_cache=record_in_cache)
        finish_call(conn, call.call_id, CallOutcome.PUBLISHED if published
                    else CallOutcome.DISCARDED, call=call, progress=progress)
        return published
    claim = job.claim
    values = _result_row(job, document, result_id)
    del values["created_at"]
    values.update(owner=claim.owner, token=claim.token, call_id=call.call_id)
    if progress is not None:
        values.update({f"progress_{k}": v for k, v in _progress_params(progress).items()})
    statement = _publish_and_finish_statement(record_in_cache, progress is not None)
    return bool(conn.execute(statement, prebuilt.values(**values)).scalar())


@functools.cache
def _publish_and_finish_statement(record_in_cache: bool, with_progress: bool):
    row = prebuilt.columns(results, *RESULT_COLUMNS)
    job_id, token = row["job_id"], prebuilt.param("token", Integer)
    done = (update(jobs).where(_fenced_by(job_id, prebuilt.param("owner", String), token))
            .values(**_completed(row["id"])).returning(jobs.c.id, jobs.c.claimed_at)
            .cte("done"))
    now_done = exists(select(done.c.id))
    # The statement's snapshot is from before its own UPDATE: this finds a first try that
    # committed under our token (_ended_under).
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
        ended.update(_progress_set(job_id, {
            name: prebuilt.param(f"progress_{name}", model_calls.c[name].type)
            for name in PROGRESS_COLUMNS}))
    ctes.append(update(model_calls)
                .where(model_calls.c.call_id == prebuilt.param("call_id", String))
                .values(**ended).cte("ended"))
    if record_in_cache:
        entry = {"account": row["account"], "cache_key": row["cache_key"],
                 "result_id": row["id"], "updated_at": db_now(),
                 "started_at": done.c.claimed_at}
        ctes.append(_current_unless_superseded(postgresql.insert(cache_entries).from_select(
            list(entry), select(*_typed(cache_entries, entry)))).cte("current"))
    ctes.append(outbox.job_event_insert(job_id, "invoice.completed", when=now_done)
                .cte("events"))
    notified = job_ended_notice(done.c.id).cte("notified")
    return select(published.label("published"), _count(notified)).add_cte(*ctes)


def fail(conn: Connection, claim: Claim, code: str, message: str) -> bool:
    """Record a permanent failure. Failures never enter the cache."""
    done = conn.execute(
        update(jobs).where(_fenced(claim))
        .values(status=FAILED, error_code=code, error_message=message[:MAX_ERROR_MESSAGE],
                inflight_key=None, lease_owner=None, lease_expires_at=None,
                finished_at=db_now(), updated_at=db_now())
    ).rowcount
    if done:
        announce_job_ended(conn, claim.job_id)
        outbox.job_event(conn, claim.job_id, "invoice.failed", code)
    return bool(done) or _ended_under(conn, claim, FAILED)


def release(conn: Connection, claim: Claim, *, after_seconds: float = 0.0,
            error: tuple[str, str] | None = None, refund_attempt: bool = False) -> bool:
    """Hand the job back (shutdown, or a transient failure to retry `after_seconds` later).

    `refund_attempt`: this claim never reached the model (the store was away), so it does
    not count against the job's retry budget.
    """
    values = dict(status=PENDING, lease_owner=None, lease_expires_at=None,
                  run_after=db_now_plus(after_seconds), updated_at=db_now())
    if refund_attempt:
        values["attempts"] = jobs.c.attempts - 1
    if error:
        values.update(error_code=error[0], error_message=error[1][:MAX_ERROR_MESSAGE])
    done = conn.execute(update(jobs).where(_fenced(claim)).values(**values)).rowcount
    return bool(done) or _ended_under(conn, claim, PENDING)


def release_owned(conn: Connection, owner: str, call_id: str | None = None) -> int:
    """Hand back every job claimed under `owner` (a claim whose acknowledgement was lost:
    its worker never started on it, so the attempt is refunded, and the call that claim
    opened, `call_id`, ends `unstarted` at cost 0)."""
    released = conn.execute(
        update(jobs).where(_in_flight(), jobs.c.status == RUNNING, jobs.c.lease_owner == owner)
        .values(status=PENDING, lease_owner=None, lease_expires_at=None,
                attempts=jobs.c.attempts - 1, updated_at=db_now())).rowcount
    if call_id is not None:
        finish_call(conn, call_id, CallOutcome.UNSTARTED)
    return released


# --- the call ledger ------------------------------------------------------------------

@dataclass(frozen=True)
class Call:
    """One row of the call ledger, as the worker knows it before writing it."""
    call_id: str
    operation: str
    job: ClaimedJob
    request_hash: str
    cost: object  # Decimal: the flat price, or 0 until a provider's progress says more
    provider: str | None = None
    model: str | None = None
    cost_basis: str | None = None


@dataclass(frozen=True)
class CallOpening:
    """A ledger row as a worker knows it before it claims: the id it made for it (once, so
    that a retried write adds nothing) and what the extractor's call costs up front
    (dispatch.opening)."""
    call_id: str
    operation: str
    cost: object
    provider: str | None = None
    model: str | None = None
    cost_basis: str | None = None

    def of(self, job: ClaimedJob) -> Call:
        return Call(call_id=self.call_id, operation=self.operation, job=job,
                    request_hash=job.cache_key, cost=self.cost, provider=self.provider,
                    model=self.model, cost_basis=self.cost_basis)


def start_call(conn: Connection, call: Call) -> None:
    """Written before the model is called; a retry of the same call adds nothing."""
    insert = insert_for(conn)
    job = call.job
    conn.execute(insert(model_calls).values(
        call_id=call.call_id, operation=call.operation, account=job.account,
        job_id=job.claim.job_id, request_hash=call.request_hash, started_at=db_now(),
        outcome=CallOutcome.RUNNING.value, cost=call.cost, worker=job.claim.owner,
        fencing_token=job.claim.token, provider=call.provider, model=call.model,
        cost_basis=call.cost_basis,
    ).on_conflict_do_nothing(index_elements=[model_calls.c.call_id]))


PROGRESS_COLUMNS = ("provider", "model", "client_token", "provider_job_id",
                    "provider_request_id", "provider_requests", "input_tokens", "output_tokens",
                    "pages", "cost", "cost_basis")


def _progress_values(call: Call, progress) -> dict:
    """A provider's progress as ledger columns."""
    return _progress_set(call.job.claim.job_id, _progress_params(progress))


def _progress_params(progress) -> dict:
    return dict(provider=progress.provider, model=progress.model[:120],
                client_token=progress.client_token, provider_job_id=progress.provider_job_id,
                provider_request_id=(progress.request_id or None) and progress.request_id[:200],
                provider_requests=progress.requests, input_tokens=progress.input_tokens,
                output_tokens=progress.output_tokens, pages=progress.pages, cost=progress.cost,
                cost_basis=progress.cost_basis)


def _progress_set(job_id, values: dict) -> dict:
    """The columns to set (values or bound parameters). A call that sent the same idempotency
    token as an earlier attempt of its job reached the same provider job, which the provider
    charges once: its cost is 0 and the earlier row keeps the charge (domain.providers)."""
    token = values["client_token"]
    if token is None:  # no token, nothing reused (a bound NULL token matches nothing either)
        return values
    earlier = model_calls.alias("earlier")
    reused = exists().where(earlier.c.job_id == job_id, earlier.c.client_token == token,
                            earlier.c.id < model_calls.c.id)
    return {**values, "cost": case((reused, literal(0)), else_=values["cost"])}


def record_progress(conn: Connection, call: Call, progress) -> None:
    """What the provider may bill so far, written as it happens (before a request is sent and
    when its answer comes), so that a worker killed a moment later has recorded it."""
    conn.execute(update(model_calls).where(model_calls.c.call_id == call.call_id)
                 .values(**_progress_values(call, progress)))


def finish_call(conn: Connection, call_id: str, outcome: CallOutcome, *, call: Call | None = None,
                progress=None) -> None:
    """End the call, with the provider's final counts; work that never reached the model (or
    that the provider refused before doing any) costs nothing."""
    values = dict(outcome=outcome.value, finished_at=db_now())
    if progress is not None and call is not None:
        values.update(_progress_values(call, progress))
    if not outcome.billed:
        values["cost"] = 0
    conn.execute(update(model_calls).where(model_calls.c.call_id == call_id).values(**values))


def record_agreement(conn: Connection, call: Call, *, serving_provider: str,
                     candidate_provider: str, candidate_model: str, verdicts: dict) -> None:
    """One shadow comparison, a row per field; a retried write adds nothing."""
    insert = insert_for(conn)
    rows = [dict(call_id=call.call_id, job_id=call.job.claim.job_id, account=call.job.account,
                 started_at=db_now(), serving_provider=serving_provider,
                 candidate_provider=candidate_provider, candidate_model=candidate_model[:120],
                 field=name, agreement=verdict.value) for name, verdict in verdicts.items()]
    if rows:
        conn.execute(insert(shadow_fields).values(rows).on_conflict_do_nothing(
            index_elements=[shadow_fields.c.call_id, shadow_fields.c.field]))
