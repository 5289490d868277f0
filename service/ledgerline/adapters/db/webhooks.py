"""SQL of webhook endpoints, their delivery log and replays (the queue is outbox.py)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, and_, delete, or_, select, update

from ...domain.ids import new_id
from ...domain.webhooks import DELIVERING, PENDING, Registration
from .clock import db_now, db_now_plus
from .tables import webhook_attempts, webhook_deliveries, webhook_endpoints

d, e = webhook_deliveries, webhook_endpoints


def _time(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def _endpoint_view(row) -> dict:
    return {"id": row.id, "url": row.url, "events": row.events.split(),
            "created_at": _time(row.created_at),
            "status": "disabled" if row.disabled_at else "enabled",
            "disabled_at": _time(row.disabled_at), "disabled_reason": row.disabled_reason,
            "failing_since": _time(row.failing_since),
            "previous_secret_expires_at": _time(row.previous_secret_until)
            if row.previous_secret else None}


def create(conn: Connection, account: str, created_by: str, reg: Registration,
           secret: str) -> dict:
    endpoint_id = new_id("whk")
    conn.execute(e.insert().values(id=endpoint_id, account=account, url=reg.url,
                                   events=" ".join(reg.events), secret=secret,
                                   created_by=created_by, created_at=db_now()))
    return get(conn, account, endpoint_id)


def get(conn: Connection, account: str, endpoint_id: str) -> dict | None:
    row = conn.execute(select(e).where(e.c.account == account, e.c.id == endpoint_id)).first()
    return _endpoint_view(row) if row else None


def list_all(conn: Connection, account: str) -> list[dict]:
    rows = conn.execute(select(e).where(e.c.account == account)
                        .order_by(e.c.created_at, e.c.id)).all()
    return [_endpoint_view(r) for r in rows]


def registration(conn: Connection, account: str, endpoint_id: str) -> Registration | None:
    row = conn.execute(select(e.c.url, e.c.events)
                       .where(e.c.account == account, e.c.id == endpoint_id)).first()
    return Registration(row.url, tuple(row.events.split())) if row else None


def change(conn: Connection, account: str, endpoint_id: str, reg: Registration) -> dict | None:
    """The endpoint with a new URL or events; deliveries not yet made go to the new URL."""
    conn.execute(update(e).where(e.c.account == account, e.c.id == endpoint_id)
                 .values(url=reg.url, events=" ".join(reg.events)))
    return get(conn, account, endpoint_id)


def rotate_secret(conn: Connection, account: str, endpoint_id: str, secret: str,
                  grace_seconds: float) -> dict | None:
    """`secret` signs from now on; the one it replaces signs beside it for `grace_seconds`
    (a secret replaced before goes at once)."""
    keep = grace_seconds > 0
    done = conn.execute(update(e).where(e.c.account == account, e.c.id == endpoint_id).values(
        previous_secret=e.c.secret if keep else None,
        previous_secret_until=db_now_plus(grace_seconds) if keep else None,
        secret=secret)).rowcount
    return get(conn, account, endpoint_id) if done else None


def remove(conn: Connection, account: str, endpoint_id: str) -> bool:
    """The endpoint, its deliveries and their log. The endpoint's row is locked first: the
    outcome of a delivery in flight (outbox.delivered, outbox.failed) waits, then finds it
    gone and records nothing."""
    locked = conn.execute(select(e.c.id).where(e.c.account == account, e.c.id == endpoint_id)
                          .with_for_update()).first()
    if locked is None:
        return False
    of_endpoint = select(d.c.id).where(d.c.endpoint_id == endpoint_id)
    conn.execute(delete(webhook_attempts).where(webhook_attempts.c.delivery_id.in_(of_endpoint)))
    conn.execute(delete(d).where(d.c.endpoint_id == endpoint_id))
    conn.execute(delete(e).where(e.c.id == endpoint_id))
    return True


def deliveries(conn: Connection, endpoint_id: str, *, status: str | None,
               after: tuple[datetime, str] | None, limit: int) -> list[dict]:
    """The delivery log, newest event first, each delivery with its attempts."""
    conds = [d.c.endpoint_id == endpoint_id]
    if status:
        conds.append(d.c.status == status)
    if after:
        ts, last = after
        conds.append(or_(d.c.occurred_at < ts, and_(d.c.occurred_at == ts, d.c.event_id < last)))
    rows = conn.execute(select(d).where(*conds)
                        .order_by(d.c.occurred_at.desc(), d.c.event_id.desc())
                        .limit(limit)).all()
    attempts: dict[str, list] = {r.id: [] for r in rows}
    if rows:
        for a in conn.execute(select(webhook_attempts)
                              .where(webhook_attempts.c.delivery_id.in_(list(attempts)))
                              .order_by(webhook_attempts.c.id)):
            attempts[a.delivery_id].append({
                "attempt": a.attempt, "at": _time(a.started_at), "duration_ms": a.duration_ms,
                "outcome": a.outcome, "status_code": a.status_code, "error": a.error,
                "response_excerpt": a.response_excerpt})
    return [{"event_id": r.event_id, "type": r.type, "invoice_id": r.invoice_id or None,
             "occurred_at": _time(r.occurred_at), "status": r.status, "attempts": r.attempts,
             "next_attempt_at": _time(r.next_attempt_at) if r.status == PENDING else None,
             "delivered_at": _time(r.delivered_at), "last_status_code": r.last_status_code,
             "last_error": r.last_error, "log": attempts[r.id]} for r in rows]


def replay(conn: Connection, endpoint_id: str, *, since: datetime | None,
           event_ids: list[str] | None) -> int:
    """Send these deliveries again, now, with the same webhook-id, and enable the endpoint
    again (a customer replaying says the receiver works). Deliveries in flight are left to
    their attempt."""
    conds = [d.c.endpoint_id == endpoint_id, d.c.status != DELIVERING]
    if since is not None:
        conds.append(d.c.occurred_at >= since)
    if event_ids is not None:
        conds.append(d.c.event_id.in_(event_ids))
    count = conn.execute(update(d).where(*conds).values(
        status=PENDING, next_attempt_at=db_now(), first_attempt_at=None, attempts=0,
        delivered_at=None)).rowcount
    conn.execute(update(e).where(e.c.id == endpoint_id).values(
        disabled_at=None, disabled_reason=None, failing_since=None))
    return count
