"""Retention of the engine's own rows: `ledgerline purge --older-than 30d`.

What goes, once older than the horizon:
- ledger rows (model_calls) of whole UTC days before it, once ended: the duplicate-work report
  for those days then shows nothing; the shadow comparison's rows (shadow_fields) of those days;
- finished jobs that no invoice and no other job refers to (today: jobs whose invoice was
  deleted, and replayed traffic), then results that no job and no cache entry refers to;
- originals (row and object) that no invoice and no job in flight uses, and objects in the store
  the database never recorded (an upload that died between storing and committing): these are
  recorded first and deleted by a later run once they stayed unused for the horizon.
- invoices older than their account's retention (`ledgerline accounts set-retention`), each
  deleted with what only it used (service_layer/deletion.py), first;
- webhook deliveries (and their log) that ended before the horizon, dashboard sessions that
  ran out, and objects left under an account that no longer exists.
What stays: other invoices and everything they show, cache entries and their results (they are
what makes repeat uploads free), accounts and keys.

Safe to run on several hosts at once and again after an interruption: every step is a small
conditional delete that skips rows another purge holds. An original is removed only while its
row is locked, and the invoices -> blobs foreign key refuses the removal of one that an upload
has just come to rely on (that upload then stores the file again).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from sqlalchemy import select

from ..adapters.db import lifecycle_retention as lifecycle_sql
from ..adapters.db import retention as sql
from ..adapters.db.deletion import account_exists
from ..adapters.db.clock import db_now
from ..adapters.db.engine import transaction
from ..ports.storage import parse_original_key
from .deletion import purge_expired

if TYPE_CHECKING:
    from ..bootstrap import Services

log = logging.getLogger(__name__)
BATCH = 1000
# Shorter horizons could remove an upload's original while that upload is still committing
# (requests last up to minutes); an hour is far beyond any request.
MIN_HORIZON = timedelta(hours=1)


@dataclass
class Purged:
    calls: int = 0
    jobs: int = 0
    results: int = 0
    originals: int = 0
    adopted: int = 0   # unrecorded objects now recorded, for a later run to delete
    shadow_fields: int = 0
    invoices: int = 0  # past their account's retention (accounts set-retention)
    deliveries: int = 0  # webhook deliveries that ended before the horizon, with their log
    sessions: int = 0  # dashboard sessions that ran out

    def as_dict(self) -> dict:
        return {"calls": self.calls, "jobs": self.jobs, "results": self.results,
                "originals": self.originals, "adopted_objects": self.adopted,
                "shadow_fields": self.shadow_fields, "invoices": self.invoices,
                "webhook_deliveries": self.deliveries, "sessions": self.sessions}


def purge(services: Services, older_than: timedelta, *, batch: int = BATCH) -> Purged:
    """Delete what the module docstring lists, older than `older_than` by the database's clock."""
    seconds = older_than.total_seconds()
    if seconds < 0:
        raise ValueError("the horizon must not be negative")
    done = Purged()
    # First the invoices past their account's retention: what only they used then goes
    # below (and most of it already with them).
    done.invoices = purge_expired(services)
    done.deliveries = _repeat(services, lifecycle_sql.purge_deliveries, seconds, batch)
    done.sessions = _repeat(services, lifecycle_sql.purge_sessions, seconds, batch)
    done.calls = _repeat(services, sql.purge_calls, seconds, batch)
    done.shadow_fields = _repeat(services, sql.purge_shadow_fields, seconds, batch)
    done.jobs = _repeat(services, sql.purge_jobs, seconds, batch)
    done.results = _repeat(services, sql.purge_results, seconds, batch)
    done.originals = _purge_originals(services, seconds, batch)
    done.adopted = _adopt_unrecorded(services, seconds)
    log.info("purged %s", done.as_dict())
    return done


def _repeat(services: Services, step, seconds: float, batch: int) -> int:
    total = 0
    while True:
        with transaction(services.engine, write=True) as conn:
            n = step(conn, seconds, batch)
        total += n
        if n < batch:
            return total


def _purge_originals(services: Services, seconds: float, batch: int) -> int:
    removed = 0
    while True:
        with transaction(services.engine, write=False) as conn:
            candidates = sql.unreferenced_originals(conn, seconds, batch)
        for account, content_hash in candidates:
            with transaction(services.engine, write=True) as conn:
                key = sql.forget_original(conn, account, content_hash, seconds)
                if key:  # the object goes while its row is still locked (see forget_original)
                    services.store.delete(key)
                    removed += 1
        if len(candidates) < batch:
            return removed


def _adopt_unrecorded(services: Services, seconds: float) -> int:
    adopted, page = 0, []
    cutoff = _db_now(services) - timedelta(seconds=seconds)
    for stored in services.store.list_originals():
        parsed = parse_original_key(stored.key)
        if parsed and stored.modified_at < cutoff:
            page.append((parsed, stored))
        if len(page) >= BATCH:
            adopted += _adopt(services, page)
            page = []
    return adopted + _adopt(services, page)


def _adopt(services: Services, page) -> int:
    if not page:
        return 0
    with transaction(services.engine, write=False) as conn:
        known = sql.known_originals(conn, [pair for pair, _ in page])
    adopted, orphaned = 0, []
    with transaction(services.engine, write=True) as conn:
        for (account, content_hash), stored in page:
            if (account, content_hash) not in known:
                if sql.adopt_original(conn, account, content_hash, stored.key, stored.size):
                    adopted += 1
                elif not account_exists(conn, account):
                    orphaned.append(stored.key)
    for key in orphaned:  # a deleted account's late upload: nobody can ever use it
        services.store.delete(key)
    return adopted


def _db_now(services: Services):
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(db_now())).scalar()
