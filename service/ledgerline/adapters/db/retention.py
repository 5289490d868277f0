"""SQL of the retention purge (service_layer/retention.py says what is kept and why).

Each function deletes at most `batch` rows in one statement, so that a purge never holds many
locks or a long transaction; PostgreSQL's SKIP LOCKED lets purges on several hosts share the
work instead of waiting on each other. Run again until nothing is left: every step is
idempotent.
"""
from __future__ import annotations

from sqlalchemy import Connection, delete, exists, func, select
from sqlalchemy.exc import IntegrityError

from ...domain.jobs import CallOutcome, JobStatus
from .claims import in_flight
from .clock import db_now, db_now_plus
from .engine import insert_for
from .tables import blobs, cache_entries, invoices, jobs, model_calls, results, shadow_fields

FINISHED = (JobStatus.COMPLETED.value, JobStatus.FAILED.value)


def _locked(query):
    return query.with_for_update(skip_locked=True)


def purge_calls(conn: Connection, horizon_seconds: float, batch: int) -> int:
    """Ledger rows of whole UTC days before the horizon (the report counts by day), once
    ended; read through the report's index on date(started_at)."""
    cutoff_day = func.date(db_now_plus(-horizon_seconds))
    ids = _locked(select(model_calls.c.id)
                  .where(func.date(model_calls.c.started_at) < cutoff_day,
                         model_calls.c.outcome != CallOutcome.RUNNING.value)
                  .limit(batch))
    return conn.execute(
        delete(model_calls).where(model_calls.c.id.in_(ids.scalar_subquery()))).rowcount


def purge_shadow_fields(conn: Connection, horizon_seconds: float, batch: int) -> int:
    """The shadow comparison's rows of whole UTC days before the horizon, like the ledger's
    (the agreement report counts by day)."""
    cutoff_day = func.date(db_now_plus(-horizon_seconds))
    ids = _locked(select(shadow_fields.c.id)
                  .where(func.date(shadow_fields.c.started_at) < cutoff_day).limit(batch))
    return conn.execute(
        delete(shadow_fields).where(shadow_fields.c.id.in_(ids.scalar_subquery()))).rowcount


def purge_jobs(conn: Connection, horizon_seconds: float, batch: int) -> int:
    """Finished jobs no invoice and no other job refers to."""
    follower = jobs.alias("follower")
    ids = _locked(select(jobs.c.id).where(
        jobs.c.status.in_(FINISHED), jobs.c.finished_at < db_now_plus(-horizon_seconds),
        ~exists().where(invoices.c.job_id == jobs.c.id),
        ~exists().where(follower.c.leader_id == jobs.c.id)).limit(batch))
    return conn.execute(delete(jobs).where(jobs.c.id.in_(ids.scalar_subquery()))).rowcount


def purge_results(conn: Connection, horizon_seconds: float, batch: int) -> int:
    """Results neither a job nor a cache entry refers to."""
    ids = _locked(select(results.c.id).where(
        results.c.created_at < db_now_plus(-horizon_seconds),
        ~exists().where(jobs.c.result_id == results.c.id),
        ~exists().where(cache_entries.c.result_id == results.c.id)).limit(batch))
    return conn.execute(delete(results).where(results.c.id.in_(ids.scalar_subquery()))).rowcount


def unreferenced_originals(conn: Connection, horizon_seconds: float, batch: int) -> list:
    """(account, content hash) of originals recorded before the horizon that no invoice and
    no job in flight uses."""
    return conn.execute(select(blobs.c.account, blobs.c.content_hash).where(
        blobs.c.stored_at < db_now_plus(-horizon_seconds),
        ~exists().where(invoices.c.account == blobs.c.account,
                        invoices.c.content_hash == blobs.c.content_hash),
        ~_in_flight_job_for(blobs)).limit(batch)).all()


def _in_flight_job_for(blob):
    return exists().where(jobs.c.account == blob.c.account,
                          jobs.c.content_hash == blob.c.content_hash,
                          in_flight())


def forget_original(conn: Connection, account: str, content_hash: str,
                    horizon_seconds: float) -> str | None:
    """Delete one original's row if it is still unused; returns its storage key.

    The caller deletes the object before committing: the row stays locked meanwhile, so an
    upload that wants it waits and then, finding it gone, stores the file afresh. An invoice
    committed meanwhile makes the foreign key refuse the delete (None: kept).
    """
    try:
        with conn.begin_nested():
            return conn.execute(delete(blobs).where(
                blobs.c.account == account, blobs.c.content_hash == content_hash,
                blobs.c.stored_at < db_now_plus(-horizon_seconds),
                ~_in_flight_job_for(blobs)).returning(blobs.c.storage_key)).scalar()
    except IntegrityError:
        return None


def known_originals(conn: Connection, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    if not pairs:
        return set()
    accounts = {a for a, _ in pairs}
    hashes = {h for _, h in pairs}
    rows = conn.execute(select(blobs.c.account, blobs.c.content_hash).where(
        blobs.c.account.in_(accounts), blobs.c.content_hash.in_(hashes)))
    return {(r.account, r.content_hash) for r in rows}


def adopt_original(conn: Connection, account: str, content_hash: str, key: str,
                   size: int) -> bool:
    """Record an object the database did not know (its upload died between storing it and
    committing), stamped now: a later purge deletes it once it stayed unused that long."""
    insert = insert_for(conn)
    try:
        with conn.begin_nested():
            return bool(conn.execute(insert(blobs).values(
                account=account, content_hash=content_hash, storage_key=key, size=size,
                stored_at=db_now()).on_conflict_do_nothing()).rowcount)
    except IntegrityError:  # no such account (any more): leave it for an operator
        return False

