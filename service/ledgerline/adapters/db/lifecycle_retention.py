"""SQL of the purge's lifecycle steps: finished webhook deliveries and dashboard sessions.

Like adapters/db/retention.py: at most `batch` rows a statement, SKIP LOCKED on PostgreSQL, so
purges on several hosts share the work, and every step can run again.
"""
from __future__ import annotations

from sqlalchemy import Connection, delete, select

from ...domain.webhooks import DELIVERED, FAILED
from .clock import db_now, db_now_plus
from .tables import dashboard_sessions, webhook_attempts, webhook_deliveries

d = webhook_deliveries


def purge_deliveries(conn: Connection, horizon_seconds: float, batch: int) -> int:
    """Deliveries delivered or given up before the horizon, with their attempts."""
    chosen = conn.execute(select(d.c.id)
                          .where(d.c.status.in_([DELIVERED, FAILED]),
                                 d.c.occurred_at < db_now_plus(-horizon_seconds))
                          .limit(batch).with_for_update(skip_locked=True)).scalars().all()
    if not chosen:
        return 0
    conn.execute(delete(webhook_attempts).where(webhook_attempts.c.delivery_id.in_(chosen)))
    return conn.execute(delete(d).where(d.c.id.in_(chosen))).rowcount


def purge_sessions(conn: Connection, horizon_seconds: float, batch: int) -> int:
    """Dashboard sessions that ran out (whatever the horizon: they can never be used)."""
    ids = (select(dashboard_sessions.c.id_hash)
           .where(dashboard_sessions.c.expires_at < db_now())
           .limit(batch).with_for_update(skip_locked=True)).scalar_subquery()
    return conn.execute(delete(dashboard_sessions)
                        .where(dashboard_sessions.c.id_hash.in_(ids))).rowcount
