"""SQL of deletion: one invoice and what only it used, or a whole account.

An invoice's deletion, in one transaction: its corrections; its jobs (its own and the retries
made for it), each unless another invoice's job still follows it — a job kept for others only
loses its idempotency key; a leader left with nothing to serve goes too; the results none of
the account's remaining invoices shows, with their cache entries; and its original's row
when no other invoice and no work in flight uses it. The caller deletes the object while that
row is still locked, as the purge does: an upload that relied on the row then waits, finds
it gone and stores the file again, so the upload ends complete and the deletion complete.
The call ledger keeps its rows (ids, hashes and costs: what the cost report reads).
"""
from __future__ import annotations

from sqlalchemy import Connection, delete, exists, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from ...domain.ids import pseudonym
from ...domain.jobs import CallOutcome
from ...ports.invoices import Deleted, LockedInvoice
from .claims import in_flight
from .clock import db_now
from .tables import (UTC, accounts, api_keys, auth_state, blobs, cache_entries,
                     dashboard_sessions, invoice_corrections, invoices, jobs, model_calls,
                     results, webhook_attempts, webhook_deliveries, webhook_endpoints)



def _still_needed(conn: Connection, job_id: str) -> bool:
    """Another invoice, or a job that follows this one, relies on it."""
    return bool(conn.execute(select(
        exists().where(invoices.c.job_id == job_id)
        | exists().where(jobs.c.leader_id == job_id))).scalar())


def _end_calls_of(conn: Connection, job_id: str) -> None:
    """A call still running for a deleted job will never publish: no lease can renew it.
    Its worker, if alive, still ends it as cancelled or discarded."""
    conn.execute(update(model_calls)
                 .where(model_calls.c.job_id == job_id,
                        model_calls.c.outcome == CallOutcome.RUNNING.value)
                 .values(outcome=CallOutcome.ABANDONED.value))


def _delete_result_if_unused(conn: Connection, account: str, result_id: str,
                             done: Deleted) -> None:
    if conn.execute(select(exists().where(jobs.c.result_id == result_id))).scalar():
        return  # a remaining invoice (its job, or the job it follows) shows it
    try:
        with conn.begin_nested():
            entries = conn.execute(delete(cache_entries).where(
                cache_entries.c.account == account,
                cache_entries.c.result_id == result_id)).rowcount
            done.results += conn.execute(delete(results).where(results.c.id == result_id)).rowcount
            done.cache_entries += entries
    except IntegrityError:
        pass  # a cache hit committed a job on it meanwhile: it stays, with its entry


def _forget_original(conn: Connection, account: str, content_hash: str) -> str | None:
    """Delete the original's row unless an invoice or work in flight uses it; its key."""
    in_use = or_(
        exists().where(invoices.c.account == account, invoices.c.content_hash == content_hash),
        exists().where(jobs.c.account == account, jobs.c.content_hash == content_hash,
                       in_flight()))
    try:
        with conn.begin_nested():
            return conn.execute(delete(blobs).where(
                blobs.c.account == account, blobs.c.content_hash == content_hash, ~in_use)
                .returning(blobs.c.storage_key)).scalar()
    except IntegrityError:  # an upload committed an invoice on it meanwhile: it stays
        return None


# --- retention ----------------------------------------------------------------------------

class _days_ago(FunctionElement):
    """The database's now minus a number of days held in a column."""
    type = UTC()
    inherit_cache = True
    name = "days_ago"


@compiles(_days_ago, "postgresql")
def _pg_days_ago(element, compiler, **kw):
    days = compiler.process(element.clauses, **kw)
    return f"(timezone('UTC', statement_timestamp()) - make_interval(days => {days}))"


@compiles(_days_ago, "sqlite")
def _sqlite_days_ago(element, compiler, **kw):
    days = compiler.process(element.clauses, **kw)
    return f"strftime('%Y-%m-%d %H:%M:%f000', 'now', '-' || ({days}) || ' days')"


# --- whole accounts -------------------------------------------------------------------------

def bump_generation(conn: Connection) -> None:
    """Every process that caches keys forgets them within a second (http/auth.py)."""
    conn.execute(update(auth_state).where(auth_state.c.id == 1)
                 .values(generation=auth_state.c.generation + 1))


def account_exists(conn: Connection, account: str) -> bool:
    return bool(conn.execute(select(exists().where(accounts.c.name == account))).scalar())


class SqlDeletion:
    def __init__(self, conn: Connection):
        self.conn = conn

    def lock_invoice(self, account: str, invoice_id: str, *,
                     skip_locked: bool = False) -> LockedInvoice | None:
        """Locked, or None (also when `skip_locked` and another transaction holds it: a
        purge on another host)."""
        row = self.conn.execute(select(invoices.c.id, invoices.c.account, invoices.c.job_id,
                                       invoices.c.content_hash)
                                .where(invoices.c.account == account,
                                       invoices.c.id == invoice_id)
                                .with_for_update(skip_locked=skip_locked)).first()
        return LockedInvoice(row.id, row.account, row.job_id, row.content_hash) if row else None

    def delete_invoice(self, invoice: LockedInvoice) -> Deleted:
        conn, done = self.conn, Deleted()
        conn.execute(delete(invoice_corrections)
                     .where(invoice_corrections.c.invoice_id == invoice.id))
        retries = conn.execute(select(jobs.c.id)
                               .where(jobs.c.retry_of == invoice.id)).scalars().all()
        conn.execute(delete(invoices).where(invoices.c.id == invoice.id))
        results_used: set[str] = set()
        pending = [invoice.job_id, *retries]
        while pending:
            # Locked: a worker publishing this job right now commits first, and its result is
            # then seen (and deleted) here rather than left behind.
            job = conn.execute(select(jobs.c.id, jobs.c.leader_id, jobs.c.result_id)
                               .where(jobs.c.id == pending.pop(0)).with_for_update()).first()
            if job is None:
                continue
            if job.result_id:
                results_used.add(job.result_id)
            if _still_needed(conn, job.id):
                conn.execute(update(jobs)
                             .where(jobs.c.id == job.id, jobs.c.idempotency_key.is_not(None))
                             .values(idempotency_key=None, updated_at=db_now()))
                done.released.append(job.id)
                continue
            _end_calls_of(conn, job.id)
            conn.execute(delete(jobs).where(jobs.c.id == job.id))
            done.jobs += 1
            if job.leader_id:  # the job it followed may now serve nobody
                pending.append(job.leader_id)
        for result_id in results_used:
            _delete_result_if_unused(conn, invoice.account, result_id, done)
        done.storage_key = _forget_original(conn, invoice.account, invoice.content_hash)
        return done

    def set_retention_days(self, account: str, days: int | None) -> bool:
        return bool(self.conn.execute(update(accounts).where(accounts.c.name == account,
                                                             accounts.c.deleted_at.is_(None))
                                      .values(retention_days=days)).rowcount)

    def expired_invoices(self, batch: int) -> list[tuple[str, str]]:
        return [(r.account, r.id) for r in self.conn.execute(
            select(invoices.c.account, invoices.c.id)
            .select_from(invoices.join(accounts, accounts.c.name == invoices.c.account))
            .where(accounts.c.retention_days.is_not(None),
                   invoices.c.created_at < _days_ago(accounts.c.retention_days))
            .order_by(invoices.c.created_at).limit(batch))]

    def start_account_deletion(self, account: str) -> bool:
        conn = self.conn
        found = conn.execute(update(accounts).where(accounts.c.name == account)
                             .values(deleted_at=func.coalesce(accounts.c.deleted_at, db_now())))
        if not found.rowcount:
            return False
        conn.execute(update(api_keys).where(api_keys.c.account == account,
                                            api_keys.c.revoked_at.is_(None))
                     .values(revoked_at=db_now()))
        bump_generation(conn)
        return True

    def delete_account_batch(self, account: str, batch: int) -> int:
        """Children before the rows they refer to."""
        conn = self.conn
        # the endpoints' rows first, as deleting one endpoint does (adapters/db/webhooks.remove):
        # a delivery's outcome in flight is then recorded before this, or finds them gone
        conn.execute(select(webhook_endpoints.c.id)
                     .where(webhook_endpoints.c.account == account).with_for_update())
        deliveries = select(webhook_deliveries.c.id).where(webhook_deliveries.c.account == account)
        n = conn.execute(delete(webhook_attempts)
                         .where(webhook_attempts.c.delivery_id.in_(deliveries))).rowcount
        n += conn.execute(delete(webhook_deliveries)
                          .where(webhook_deliveries.c.account == account)).rowcount
        n += conn.execute(delete(webhook_endpoints)
                          .where(webhook_endpoints.c.account == account)).rowcount
        ids = conn.execute(select(invoices.c.id).where(invoices.c.account == account)
                           .limit(batch)).scalars().all()
        if ids:
            conn.execute(delete(invoice_corrections)
                         .where(invoice_corrections.c.invoice_id.in_(ids)))
            return n + conn.execute(delete(invoices).where(invoices.c.id.in_(ids))).rowcount
        conn.execute(update(jobs).where(jobs.c.account == account,
                                        or_(jobs.c.leader_id.is_not(None),
                                            jobs.c.result_id.is_not(None)))
                     .values(leader_id=None, result_id=None))
        job_ids = select(jobs.c.id).where(jobs.c.account == account).limit(batch)
        n += conn.execute(delete(jobs).where(jobs.c.id.in_(job_ids))).rowcount
        n += conn.execute(delete(cache_entries)
                          .where(cache_entries.c.account == account)).rowcount
        if n:
            return n
        result_ids = select(results.c.id).where(results.c.account == account).limit(batch)
        n += conn.execute(delete(results).where(results.c.id.in_(result_ids))).rowcount
        return n + conn.execute(delete(blobs).where(blobs.c.account == account)).rowcount

    def finish_account_deletion(self, account: str) -> bool:
        """Keys, sessions and the account row go."""
        conn = self.conn
        conn.execute(update(model_calls).where(model_calls.c.account == account)
                     .values(account=pseudonym(account)))
        keys = select(api_keys.c.id).where(api_keys.c.account == account)
        try:
            with conn.begin_nested():
                conn.execute(delete(dashboard_sessions)
                             .where(dashboard_sessions.c.key_id.in_(keys)))
                conn.execute(delete(api_keys).where(api_keys.c.account == account))
                conn.execute(delete(accounts).where(accounts.c.name == account))
            return True
        except IntegrityError:
            return False
