"""The webhook outbox: events written in the transaction that changes the invoice, and the
queue delivery workers claim them from.

An event becomes one delivery row per endpoint of the account subscribed to its type, in one
INSERT … SELECT inside the caller's transaction: the event exists exactly when the change it
reports committed, and an account without endpoints pays one indexed read that inserts
nothing. Claims, renewals and outcomes work like the job table's (adapters/db/claims.py): one
conditional statement each, times from the database's clock, and a fencing token, so that a
worker that lost its lease changes nothing.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Connection, and_, case, func, literal, or_, select, update

from ...domain.webhooks import (
    CANCELLED,
    DELIVERED,
    DELIVERING,
    FAILED,
    PENDING,
    PING,
    decayed_usage,
    event_id,
    ping_event_id,
)
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
#
# A claim takes an endpoint first, then its next due delivery. An endpoint has at most one
# delivery in flight (`busy_until`, the lease of that delivery), so a slow or failing receiver
# holds one delivery thread at a time. The endpoint claimed is that of the account that used
# the least delivery time lately (`usage_seconds`, the seconds its attempts took, halved every
# USAGE_HALF_LIFE_SECONDS), then its endpoint that used least, then the one served longest ago
# (`claimed_at`): a receiver that answers at once is never queued behind one that takes the
# whole timeout, which waits its turn, and accounts alike take turns. Each claim reads every
# idle endpoint with something due (an index probe each), never the deliveries waiting behind.

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
    secrets: tuple[str, ...]  # the endpoint's secret, and a rotated one still in its grace
    payload: str | None  # the body, once the first attempt made it


def _due(now):
    """A delivery to attempt now: pending and due, or in flight under an expired lease."""
    return (d.c.status.in_([PENDING, DELIVERING]), d.c.next_attempt_at <= now,
            or_(d.c.status == PENDING, d.c.lease_expires_at <= now))


_MATE = e.alias("mate")  # another endpoint of the account; made once (see db/duplicates.py)


@functools.cache
def _next_endpoint():
    """The idle endpoint with a due delivery that comes first, built once: every delivery
    thread asks twice a second, webhooks or none, and building the statement each time cost
    more than running it."""
    now, mate = db_now(), _MATE
    account_usage = (select(func.sum(mate.c.usage_seconds))
                     .where(mate.c.account == e.c.account).scalar_subquery())
    has_due = (select(d.c.id).where(d.c.endpoint_id == e.c.id, *_due(now),
                                    or_(e.c.disabled_at.is_(None), d.c.type == PING))
               .exists())
    return (select(e.c.id, e.c.url, e.c.disabled_at, e.c.secret, e.c.previous_secret,
                   (e.c.previous_secret_until > now).label("previous_signs"),
                   e.c.usage_seconds, e.c.claimed_at)
            .where(or_(e.c.busy_until.is_(None), e.c.busy_until <= now), has_due)
            .order_by(account_usage, e.c.usage_seconds, e.c.claimed_at.asc().nulls_first(), e.c.id)
            .limit(1).with_for_update(skip_locked=True, of=e))


@functools.cache
def _any_due():
    """Whether any delivery is due at all, built once: the question every delivery thread
    asks twice a second, whose answer is nearly always no."""
    return select(literal(1)).where(*_due(db_now())).limit(1)


def any_due(conn: Connection) -> bool:
    """Whether a claim could find anything: a delivery pending and due, or one whose lease
    ran out (an endpoint busy or disabled may still hold it back). A read, in one round
    trip outside a write transaction, of the deliverable rows' own index: an idle delivery
    thread then neither opens a write transaction (BEGIN and COMMIT; SQLite's write lock)
    nor takes a row lock to find nothing."""
    return conn.execute(_any_due()).first() is not None


def claim(conn: Connection, owner: str, lease_seconds: float) -> Claimed | None:
    """The next due delivery of the next idle endpoint in fair order (a disabled endpoint
    gets only its pings), claimed with its fencing token raised; the endpoint is busy for the
    lease. SKIP LOCKED on PostgreSQL, SQLite's single writer elsewhere."""
    endpoint = conn.execute(_next_endpoint()).first()
    now = db_now()
    if endpoint is None:
        return None
    due = [d.c.endpoint_id == endpoint.id, *_due(now)]
    if endpoint.disabled_at is not None:
        due.append(d.c.type == PING)
    candidate = (select(d.c.id).where(*due).order_by(d.c.next_attempt_at, d.c.id).limit(1)
                 .with_for_update(skip_locked=True).scalar_subquery())
    row = conn.execute(
        update(d).where(d.c.id == candidate)
        .values(status=DELIVERING, lease_owner=owner, lease_expires_at=db_now_plus(lease_seconds),
                fencing_token=d.c.fencing_token + 1, attempts=d.c.attempts + 1,
                first_attempt_at=func.coalesce(d.c.first_attempt_at, now))
        .returning(d.c.id, d.c.endpoint_id, d.c.event_id, d.c.account, d.c.type,
                   d.c.invoice_id, d.c.detail, d.c.occurred_at, d.c.attempts,
                   d.c.fencing_token, d.c.payload, now.label("now"))).first()
    if row is None:
        return None
    since = (row.now - endpoint.claimed_at).total_seconds() if endpoint.claimed_at else 0.0
    conn.execute(update(e).where(e.c.id == endpoint.id).values(
        claimed_at=row.now, busy_until=db_now_plus(lease_seconds),
        usage_seconds=decayed_usage(endpoint.usage_seconds, since)))
    secrets = (endpoint.secret,) + ((endpoint.previous_secret,)
                                    if endpoint.previous_signs and endpoint.previous_secret else ())
    return Claimed(row.id, row.endpoint_id, row.event_id, row.account, row.type, row.invoice_id,
                   row.detail, row.occurred_at, row.attempts, owner, row.fencing_token,
                   row.now, endpoint.url, secrets, row.payload)


def keep_payload(conn: Connection, claimed: Claimed, body: str) -> Claimed:
    """The body of this delivery's every attempt, made at its first."""
    conn.execute(update(d).where(_fenced(claimed)).values(payload=body))
    return replace(claimed, payload=body)


def ping(conn: Connection, account: str, endpoint_id: str) -> str:
    """A test event for one endpoint, due now; its event id."""
    event = ping_event_id()
    conn.execute(d.insert().values(
        id=f"{endpoint_id}:{event}", endpoint_id=endpoint_id, event_id=event, account=account,
        type=PING, invoice_id="", detail=None, occurred_at=db_now(), status=PENDING,
        attempts=0, next_attempt_at=db_now(), fencing_token=0))
    return event


def _fenced(claimed: Claimed):
    return and_(d.c.id == claimed.id, d.c.status == DELIVERING,
                d.c.lease_owner == claimed.owner, d.c.fencing_token == claimed.token)


@dataclass(frozen=True)
class Attempt:
    started_at: datetime   # database time at the claim
    duration_ms: int
    outcome: str           # domain.webhooks.OUTCOMES
    status_code: int | None
    error: str | None
    response_excerpt: str | None


def _endpoint_still_there(conn: Connection, claimed: Claimed) -> bool:
    """Lock the endpoint's row for this outcome (PostgreSQL; SQLite's writer is single), so
    that deleting the endpoint waits for the outcome or the outcome finds it gone: the attempt
    of a deleted endpoint is recorded nowhere."""
    return conn.execute(select(e.c.id).where(e.c.id == claimed.endpoint_id)
                        .with_for_update()).first() is not None


def log_attempt(conn: Connection, claimed: Claimed, attempt: Attempt) -> None:
    """Every attempt enters the delivery log, even one whose lease was lost meanwhile: the
    receiver saw it."""
    conn.execute(webhook_attempts.insert().values(
        delivery_id=claimed.id, attempt=claimed.attempt, started_at=attempt.started_at,
        duration_ms=attempt.duration_ms, status_code=attempt.status_code,
        error=_clip(attempt.error), response_excerpt=_clip(attempt.response_excerpt),
        outcome=attempt.outcome))


def _release(conn: Connection, claimed: Claimed, attempt: Attempt, done) -> bool:
    """`done`, the fenced update of the delivery; the endpoint is free again if it held, and
    the attempt's time is added to what it used."""
    if not done:
        return False
    conn.execute(update(e).where(e.c.id == claimed.endpoint_id).values(
        busy_until=None, usage_seconds=e.c.usage_seconds + attempt.duration_ms / 1000))
    return True


def delivered(conn: Connection, claimed: Claimed, attempt: Attempt) -> str | None:
    """The delivery is delivered; returns its status (None: lease lost, CANCELLED: the
    endpoint was deleted meanwhile)."""
    if not _endpoint_still_there(conn, claimed):
        return CANCELLED
    log_attempt(conn, claimed, attempt)
    done = conn.execute(update(d).where(_fenced(claimed)).values(
        status=DELIVERED, delivered_at=db_now(), lease_owner=None, lease_expires_at=None,
        last_status_code=attempt.status_code, last_error=None)).rowcount
    if claimed.type != PING:  # a ping says nothing of the endpoint's deliveries
        conn.execute(update(e).where(e.c.id == claimed.endpoint_id,
                                     e.c.failing_since.is_not(None))
                     .values(failing_since=None))
    return DELIVERED if _release(conn, claimed, attempt, done) else None


def failed(conn: Connection, claimed: Claimed, attempt: Attempt, *, retry_in: float,
           give_up_after: float, disable_after: float) -> str | None:
    """Schedule the next attempt, or give the delivery up once its first attempt is older
    than `give_up_after` seconds (a ping: at once); an endpoint whose deliveries kept failing
    for `disable_after` seconds is disabled with a reason. Returns the delivery's new status
    (None: lease lost; CANCELLED: the endpoint was deleted meanwhile)."""
    if not _endpoint_still_there(conn, claimed):
        return CANCELLED
    log_attempt(conn, claimed, attempt)
    gives_up = (literal(True) if claimed.type == PING
                else d.c.first_attempt_at < db_now_plus(-give_up_after))
    status = conn.execute(update(d).where(_fenced(claimed)).values(
        status=case((gives_up, FAILED), else_=PENDING),
        next_attempt_at=db_now_plus(retry_in), lease_owner=None, lease_expires_at=None,
        last_status_code=attempt.status_code, last_error=_clip(attempt.error))
        .returning(d.c.status)).scalar()
    _release(conn, claimed, attempt, status is not None)
    if claimed.type == PING:
        return status
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
