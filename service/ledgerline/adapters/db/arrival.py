"""Arrival in SQL: the caller's job and invoice created or found, on either dialect.

What both dialects share is here; each dialect's module (postgresql/arrival.py,
sqlite/arrival.py) adds how a cache hit is recorded and answered (cache_hits.py) and how
waiting workers are woken.
"""
from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable

from sqlalchemy import Connection, Float, case, func, literal, select, true, update

from ...domain.identity import Caller
from ...domain.ids import new_id
from ...domain.jobs import CacheOutcome
from ...ports.jobs import BeforeStoring, KeyedJob, NewJob, RetryTarget, ServedHit
from . import cache_hits, prebuilt
from .driver import Prebuilt
from .claims import COMPLETED, PENDING, in_flight
from .clock import db_now, db_now_plus
from .tables import blobs, cache_entries, invoices, jobs


_QUEUE, _MINE = jobs.alias("q"), jobs.alias("mine")  # made once: see db/duplicates.py


def _fair_position(account, extractor_versions):
    """domain.jobs.fair_position in SQL: two index probes on the queue's partial indexes."""
    q, mine = _QUEUE, _MINE
    head = func.coalesce(
        select(func.min(q.c.fair_position))
        .where(in_flight(q), q.c.extractor_versions == extractor_versions)
        .scalar_subquery(), 0)
    after_last = func.coalesce(
        select(func.max(mine.c.fair_position) + 1)
        .where(in_flight(mine), mine.c.account == account).scalar_subquery(), 0)
    return case((after_last > head, after_last), else_=head)


# The statements of an upload's arrival, built once with bound parameters: made anew for
# each upload, they cost the API more to build and key for SQLAlchemy's cache than to run.

_BY_IDEMPOTENCY_KEY = (
    select(jobs.c.id, jobs.c.request_hash,
           func.coalesce(invoices.c.id, jobs.c.retry_of).label("invoice_id"),
           (jobs.c.created_at < db_now_plus(-prebuilt.param("ttl_seconds", Float())))
           .label("expired"))
    .select_from(jobs.outerjoin(invoices, invoices.c.job_id == jobs.c.id))
    .where(*(jobs.c[name] == param for name, param in
             prebuilt.columns(jobs, "account", "caller_id", "idempotency_key").items())))

_ACCOUNT, _CACHE_KEY = prebuilt.param("account", jobs.c.account.type), \
    prebuilt.param("cache_key", jobs.c.cache_key.type)
_JOINABLE_LEADER = Prebuilt(select(jobs.c.id)
                             .where(jobs.c.account == _ACCOUNT, jobs.c.inflight_key == _CACHE_KEY)
                             .with_for_update(read=True))
_LEADER_IN_FLIGHT = Prebuilt(select(jobs.c.id)
                              .where(jobs.c.account == _ACCOUNT, jobs.c.cache_key == _CACHE_KEY,
                                     in_flight()).limit(1))
_CACHED_RESULT = Prebuilt(select(cache_entries.c.result_id)
                          .where(cache_entries.c.account == _ACCOUNT,
                                 cache_entries.c.cache_key == _CACHE_KEY))

_BLOB = prebuilt.columns(blobs, "account", "content_hash", "storage_key", "size")
_BLOB_KEY = select(blobs.c.storage_key).where(blobs.c.account == _BLOB["account"],
                                              blobs.c.content_hash == _BLOB["content_hash"],
                                              blobs.c.lost_at.is_(None))

# The key's operation and the stored original's key in one row: one round trip before the
# original's write (the key's columns NULL when no job holds it).
_KEYED = _BY_IDEMPOTENCY_KEY.subquery("keyed")
_ONE_ROW = select(literal(1).label("one")).subquery("one_row")
_BEFORE_STORING = Prebuilt(select(_KEYED, _BLOB_KEY.scalar_subquery().label("storage_key"))
                           .select_from(_ONE_ROW.outerjoin(_KEYED, true())))


def _keyed(row) -> KeyedJob | None:
    if row is None:
        return None
    return KeyedJob(row.id, row.request_hash, row.invoice_id, bool(row.expired))


@functools.cache
def _blob_insert(dialect_insert: Callable):
    insert = dialect_insert(blobs).values(**_BLOB, stored_at=db_now())
    return insert.on_conflict_do_update(
        index_elements=[blobs.c.account, blobs.c.content_hash],
        set_=dict(storage_key=insert.excluded.storage_key, size=insert.excluded.size,
                  stored_at=db_now(), lost_at=None),
        where=blobs.c.lost_at.is_not(None),
    ).returning(blobs.c.account)


# What insert_job binds; the rest of the row follows from the shape of the job.
_JOB_COLUMNS = ("id", "account", "caller_id", "idempotency_key", "request_hash", "cache_key",
                "content_hash", "outcome", "would_be", "fresh", "leader_id", "inflight_key",
                "result_id", "extractor_versions", "retry_of", "request_id", "trace_context")


@functools.cache
def job_insert(finished: bool, works: bool):
    """insert_job's statement, built once for each shape of job (completed at once or not;
    work for a worker, with a place in the queue, or not): a statement made anew for each
    upload cost the API more CPU to key for SQLAlchemy's cache than to run."""
    bound = prebuilt.columns(jobs, *_JOB_COLUMNS)
    return jobs.insert().values(
        **bound, status=literal(COMPLETED if finished else PENDING),
        fencing_token=literal(0), attempts=literal(0),
        fair_position=(_fair_position(bound["account"], bound["extractor_versions"])
                       if works else literal(0)),
        run_after=db_now(), created_at=db_now(), updated_at=db_now(),
        finished_at=db_now() if finished else None)


class SqlArrival(ABC):
    def __init__(self, conn: Connection, insert: Callable):
        self.conn, self._insert = conn, insert

    @abstractmethod
    def found_hit(self, own_only: bool, params: dict) -> cache_hits.Found | None:
        """The dialect's recording of a hit (cache_hits.py)."""

    def serve_hit(self, caller: Caller, job: NewJob) -> ServedHit | None:
        job_id, invoice_id = new_id("job"), new_id("inv")
        found = self.found_hit(caller.sees_only_own_uploads(),
                               cache_hits.parameters(caller, job, job_id, invoice_id))
        if found is None:
            return None
        return cache_hits.served(caller, job, job_id, invoice_id, found)

    def job_by_idempotency_key(self, account: str, caller_id: str, key: str,
                               ttl_seconds: float) -> KeyedJob | None:
        """The operation under the caller's key; `expired` once it is older than the key's
        lifetime (by the database's clock), after which the key names nothing."""
        row = self.conn.execute(_BY_IDEMPOTENCY_KEY, prebuilt.values(
            account=account, caller_id=caller_id, idempotency_key=key,
            ttl_seconds=float(ttl_seconds))).first()
        return _keyed(row)

    def before_storing(self, account: str, caller_id: str, key: str, content_hash: str,
                       ttl_seconds: float) -> BeforeStoring:
        row = _BEFORE_STORING.first(self.conn, prebuilt.values(
            account=account, caller_id=caller_id, idempotency_key=key,
            ttl_seconds=float(ttl_seconds), content_hash=content_hash))
        if row is None:  # never (one row, keyed or not); were it so, the key's constraint decides
            return BeforeStoring(None, None)
        return BeforeStoring(_keyed(row) if row.id is not None else None, row.storage_key)

    def forget_idempotency_key(self, job_id: str) -> None:
        self.conn.execute(update(jobs).where(jobs.c.id == job_id)
                          .values(idempotency_key=None, updated_at=db_now()))

    def inflight_leader(self, account: str, cache_key: str, *,
                        joinable_only: bool) -> str | None:
        """Joining locks the leader's row (FOR SHARE) until the joiner commits: a leader that
        fails or completes meanwhile waits for the join to commit, and a leader whose failure
        committed first is no longer found."""
        query = _JOINABLE_LEADER if joinable_only else _LEADER_IN_FLIGHT
        return query.scalar(self.conn, prebuilt.values(account=account, cache_key=cache_key))

    def cached_result(self, account: str, cache_key: str) -> str | None:
        return _CACHED_RESULT.scalar(self.conn, prebuilt.values(account=account,
                                                                cache_key=cache_key))

    def insert_job(self, job: NewJob, *, outcome: CacheOutcome, leader_id: str | None = None,
                   result_id: str | None = None, joinable: bool = False,
                   would_be: str | None = None, invoice_id: str | None = None) -> str:
        """Times from the database clock."""
        job_id = new_id("job")
        finished = result_id is not None
        self.insert_rows(finished, not finished and leader_id is None, invoice_id, prebuilt.values(
            id=job_id, account=job.account, caller_id=job.caller_id,
            idempotency_key=job.idempotency_key, request_hash=job.request_hash,
            cache_key=job.cache_key, content_hash=job.content_hash, outcome=outcome.value,
            would_be=would_be, fresh=job.fresh, leader_id=leader_id,
            inflight_key=job.cache_key if joinable else None, result_id=result_id,
            extractor_versions=job.extractor_versions, retry_of=job.retry_of,
            request_id=job.request_id, trace_context=job.trace_context,
            invoice_id=invoice_id, job_id=job_id))
        return job_id

    def insert_rows(self, finished: bool, works: bool, invoice_id: str | None,
                    params: dict) -> None:
        """The job's row (`params`), and the invoice's when `invoice_id`: a statement each.
        No worker in another process is told of new work: SQLite's poll."""
        self.conn.execute(job_insert(finished, works), params)
        if invoice_id is not None:
            self.conn.execute(cache_hits.INVOICE_OF_JOB, params)

    def insert_invoice(self, job: NewJob, job_id: str) -> str:
        invoice_id = new_id("inv")
        self.conn.execute(cache_hits.INVOICE_OF_JOB, prebuilt.values(
            invoice_id=invoice_id, account=job.account, caller_id=job.caller_id,
            content_hash=job.content_hash, job_id=job_id))
        return invoice_id

    def blob_key(self, account: str, content_hash: str) -> str | None:
        return self.conn.execute(_BLOB_KEY, prebuilt.values(
            account=account, content_hash=content_hash)).scalar()

    def record_blob(self, account: str, content_hash: str, storage_key: str,
                    size: int) -> bool:
        """Whether the row is new or repaired: told by RETURNING, since an INSERT that ON
        CONFLICT did nothing reports no row count on PostgreSQL (psycopg gives -1)."""
        return self.conn.execute(_blob_insert(self._insert), prebuilt.values(
            account=account, content_hash=content_hash, storage_key=storage_key,
            size=size)).first() is not None

    def mark_blob_lost(self, account: str, content_hash: str) -> str | None:
        return self.conn.execute(
            update(blobs)
            .where(blobs.c.account == account, blobs.c.content_hash == content_hash,
                   blobs.c.lost_at.is_(None))
            .values(lost_at=db_now()).returning(blobs.c.storage_key)).scalar()

    def retry_target(self, invoice_id: str) -> RetryTarget | None:
        conn = self.conn
        own = conn.execute(select(jobs.c.id, jobs.c.leader_id, jobs.c.status)
                           .select_from(invoices.join(jobs, jobs.c.id == invoices.c.job_id))
                           .where(invoices.c.id == invoice_id)
                           .with_for_update(of=jobs)).first()
        if own is None:
            return None
        status = own.status
        if own.leader_id is not None:
            status = conn.execute(select(jobs.c.status)
                                  .where(jobs.c.id == own.leader_id)).scalar()
        return RetryTarget(own.id, status)

    def follow(self, job_id: str, worker_job_id: str) -> None:
        self.conn.execute(update(jobs).where(jobs.c.id == job_id)
                          .values(leader_id=worker_job_id, updated_at=db_now()))
