"""The webhook outbox: events written in the transaction that changes the invoice, and the
queue delivery workers claim them from.

An event becomes one delivery row per endpoint of the account subscribed to its type, in one
INSERT … SELECT inside the caller's transaction: the event exists exactly when the change it
reports committed, and an account without endpoints pays one indexed read that inserts
nothing. Claims, renewals and outcomes work like the job table's (adapters/db/jobs.py): one
conditional statement each, times from the database's clock, and a fencing token, so that a
worker that lost its lease changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, and_, case, func, literal, or_, select, update

from ...domain.webhooks import DELIVERED, DELIVERING, FAILED, PENDING, event_id
from .clock import db_now, db_now_plus
from .tables import invoices, jobs, webhook_attempts, webhook_deliveries, webhook_endpoints

d, e = webhook_deliveries, webhook_endpoints
_COLUMNS = ["id", "endpoint_id", "event_id", "account", "type", "invoice_id", "detail",
            "occurred_at", "status", "attempts", "next_attempt_at", "fencing_token"]
MAX_ERROR = 500


def _subscribed(event_type: str):
    # `events` is space-separated: pad it so that each type matches only as a whole word.
    return (literal(" ") + e.c.events + literal(" ")).contains(f" {event_type} ",
                                                              autoescape=True)


def _rows(event: object, event_type: str, account, invoice_id, detail: str | None):
    return [e.c.id + literal(":") + event, e.c.id, event, account, literal(event_type),
            invoice_id, literal(detail), db_now(), literal(PENDING), literal(0), db_now(),
            literal(0)]


def invoice_event(conn: Connection, account: str, invoice_id: str, event_type: str,
                  discriminator: str, detail: str | None = None) -> None:
    """One event about one invoice, for every subscribed endpoint of its account."""
    event = event_id(invoice_id, event_type, discriminator)
    conn.execute(invoice_event_insert(literal(account), literal(invoice_id), event_type,
                                      literal(event), detail))


def invoice_event_insert(account, invoice_id, event_type: str, event, detail: str | None = None,
                         *, only_if=None):
    """invoice_event's INSERT, for a statement of its own or a CTE of a larger one (which
    names the condition, `only_if`, under which the event happened). `account`, `invoice_id`
    and `event` (domain.webhooks.event_id) are SQL expressions: literals or bound parameters."""
    rows = (select(*_rows(event, event_type, account, invoice_id, detail))
            .where(e.c.account == account, _subscribed(event_type)))
    if only_if is not None:
        rows = rows.where(only_if)
    return d.insert().from_select(_COLUMNS, rows)


def job_event(conn: Connection, job_id: str, event_type: str, detail: str | None = None) -> None:
    """A job ended: one event for every invoice that shows its status (its own, the uploads
    joined to it, an invoice whose retry it is)."""
    conn.execute(job_event_insert(job_id, event_type, detail))


def job_event_insert(job_id, event_type: str, detail: str | None = None, *, when=None):
    """job_event's INSERT, for a statement that ends the job itself (a data-modifying CTE on
    PostgreSQL): `job_id` may be a SQL expression (a bound parameter, a scalar subquery of
    that statement's CTE), `when` a condition the statement decides by."""
    shown_by = invoices.c.job_id.in_(
        select(jobs.c.id).where(or_(jobs.c.id == job_id, jobs.c.leader_id == job_id)))
    if isinstance(job_id, str):
        event = invoices.c.id + literal(event_id("", event_type, job_id))
    else:  # event_id(invoice, type, job) computed in SQL: the name, a dot, the job
        event = invoices.c.id + literal(event_id("", event_type, "") + ".") + job_id
    rows = (select(*_rows(event, event_type, invoices.c.account, invoices.c.id, detail))
            .select_from(invoices.join(e, e.c.account == invoices.c.account))
            .where(shown_by, _subscribed(event_type)))
    if when is not None:
        rows = rows.where(when)
    return d.insert().from_select(_COLUMNS, rows)


# --- delivery workers ----------------------------------------------------------------------

@dataclass(frozen=True)
class Claimed:
    id: str
    endpoint_id: str
    event_id: str
    account: str
    type: str
    invoice_id: str
    detail: str | None
    occurred_at: datetime
    attempt: int
    owner: str
    token: int
    now: datetime        # the database's time at the claim: the signature's timestamp
    url: str
    secret: str


def claim(conn: Connection, owner: str, lease_seconds: float) -> Claimed | None:
    """The next due delivery of an enabled endpoint, or one whose lease ran out; in one
    statement, with its fencing token raised (SKIP LOCKED on PostgreSQL, SQLite's single
    writer elsewhere)."""
    now = db_now()
    candidate = (
        select(d.c.id).select_from(d.join(e, e.c.id == d.c.endpoint_id))
        .where(d.c.status.in_([PENDING, DELIVERING]), e.c.disabled_at.is_(None),
               or_(and_(d.c.status == PENDING, d.c.next_attempt_at <= now),
                   and_(d.c.status == DELIVERING, d.c.lease_expires_at <= now)))
        .order_by(d.c.next_attempt_at).limit(1)
        .with_for_update(skip_locked=True, of=d).scalar_subquery())
    row = conn.execute(
        update(d).where(d.c.id == candidate)
        .values(status=DELIVERING, lease_owner=owner, lease_expires_at=db_now_plus(lease_seconds),
                fencing_token=d.c.fencing_token + 1, attempts=d.c.attempts + 1,
                first_attempt_at=func.coalesce(d.c.first_attempt_at, now))
        .returning(d.c.id, d.c.endpoint_id, d.c.event_id, d.c.account, d.c.type,
                   d.c.invoice_id, d.c.detail, d.c.occurred_at, d.c.attempts,
                   d.c.fencing_token, now.label("now"))).first()
    if row is None:
        return None
    endpoint = conn.execute(select(e.c.url, e.c.secret).where(e.c.id == row.endpoint_id)).first()
    return Claimed(row.id, row.endpoint_id, row.event_id, row.account, row.type, row.invoice_id,
                   row.detail, row.occurred_at, row.attempts, owner, row.fencing_token,
                   row.now, endpoint.url, endpoint.secret)


def _fenced(claimed: Claimed):
    return and_(d.c.id == claimed.id, d.c.status == DELIVERING,
                d.c.lease_owner == claimed.owner, d.c.fencing_token == claimed.token)


@dataclass(frozen=True)
class Attempt:
    started_at: datetime   # database time at the claim
    duration_ms: int
    status_code: int | None
    error: str | None
    response_excerpt: str | None


def log_attempt(conn: Connection, claimed: Claimed, attempt: Attempt) -> None:
    """Every attempt enters the delivery log, even one whose lease was lost meanwhile: the
    receiver saw it."""
    conn.execute(webhook_attempts.insert().values(
        delivery_id=claimed.id, attempt=claimed.attempt, started_at=attempt.started_at,
        duration_ms=attempt.duration_ms, status_code=attempt.status_code,
        error=_clip(attempt.error), response_excerpt=_clip(attempt.response_excerpt)))


def delivered(conn: Connection, claimed: Claimed, attempt: Attempt) -> bool:
    log_attempt(conn, claimed, attempt)
    done = conn.execute(update(d).where(_fenced(claimed)).values(
        status=DELIVERED, delivered_at=db_now(), lease_owner=None, lease_expires_at=None,
        last_status_code=attempt.status_code, last_error=None)).rowcount
    conn.execute(update(e).where(e.c.id == claimed.endpoint_id, e.c.failing_since.is_not(None))
                 .values(failing_since=None))
    return bool(done)


def failed(conn: Connection, claimed: Claimed, attempt: Attempt, *, retry_in: float,
           give_up_after: float, disable_after: float) -> str | None:
    """Schedule the next attempt, or give the delivery up once its first attempt is older
    than `give_up_after` seconds; an endpoint that kept failing for `disable_after` seconds
    is disabled with a reason. Returns the delivery's new status (None: lease lost)."""
    log_attempt(conn, claimed, attempt)
    gives_up = d.c.first_attempt_at < db_now_plus(-give_up_after)
    status = conn.execute(update(d).where(_fenced(claimed)).values(
        status=case((gives_up, FAILED), else_=PENDING),
        next_attempt_at=db_now_plus(retry_in), lease_owner=None, lease_expires_at=None,
        last_status_code=attempt.status_code, last_error=_clip(attempt.error))
        .returning(d.c.status)).scalar()
    conn.execute(update(e).where(e.c.id == claimed.endpoint_id, e.c.failing_since.is_(None))
                 .values(failing_since=db_now()))
    conn.execute(update(e).where(e.c.id == claimed.endpoint_id, e.c.disabled_at.is_(None),
                                 e.c.failing_since < db_now_plus(-disable_after))
                 .values(disabled_at=db_now(),
                         disabled_reason=_clip("every delivery failed for "
                                               f"{disable_after / 86400:g} days; last: "
                                               f"{attempt.error or attempt.status_code}")))
    return status


def _clip(text: str | None) -> str | None:
    return text[:MAX_ERROR] if text else text
