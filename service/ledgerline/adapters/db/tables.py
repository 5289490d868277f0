"""The schema, as SQLAlchemy Core tables. Alembic migrations create it; nothing else does."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (Boolean, Column, ForeignKey, Index, Integer, MetaData, Numeric,
                        String, Table, Text, UniqueConstraint, func)
from sqlalchemy.types import DateTime, TypeDecorator

metadata = MetaData(naming_convention={
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})


class UTC(TypeDecorator):
    """Aware UTC datetimes in Python, naive UTC in the database (SQLite has no zones)."""
    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if isinstance(value, str):  # raw SQLite text, e.g. from an aggregate
            value = datetime.fromisoformat(value)
        return value.replace(tzinfo=timezone.utc) if value is not None else None


accounts = Table(
    "accounts", metadata,
    Column("name", String(63), primary_key=True),
    Column("created_at", UTC, nullable=False),
)

api_keys = Table(
    "api_keys", metadata,
    Column("id", String(32), primary_key=True),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=True),
    Column("name", String(200), nullable=True),
    Column("created_at", UTC, nullable=False),
)

# Originals, one per (account, bytes): a second upload of the same file writes nothing.
blobs = Table(
    "blobs", metadata,
    Column("account", String(63), ForeignKey("accounts.name"), primary_key=True),
    Column("content_hash", String(80), primary_key=True),
    Column("storage_key", String(300), nullable=False),
    Column("size", Integer, nullable=False),
    Column("stored_at", UTC, nullable=False),
)

results = Table(
    "results", metadata,
    Column("id", String(32), primary_key=True),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=False),
    Column("cache_key", String(64), nullable=False),
    Column("content_hash", String(80), nullable=False),
    Column("job_id", String(32), nullable=False),
    Column("document", Text, nullable=False),
    # Copies of a few fields, for list filters that need an index rather than JSON.
    Column("invoice_number", String(200)),
    Column("issue_date", String(10)),
    Column("seller_name", String(300)),
    Column("gross_total", String(40)),
    Column("currency", String(3)),
    Column("created_at", UTC, nullable=False),
    Index(None, "account", "cache_key"),
)

# The exact result cache: (account, cache key) -> current result.
cache_entries = Table(
    "cache_entries", metadata,
    Column("account", String(63), ForeignKey("accounts.name"), primary_key=True),
    Column("cache_key", String(64), primary_key=True),
    Column("result_id", String(32), ForeignKey("results.id"), nullable=False),
    Column("updated_at", UTC, nullable=False),
)

# One durable record per intended operation.
jobs = Table(
    "jobs", metadata,
    Column("id", String(32), primary_key=True),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=False),
    Column("caller_id", String(32), ForeignKey("api_keys.id"), nullable=False),
    Column("idempotency_key", String(255), nullable=True),
    Column("request_hash", String(64), nullable=False),
    Column("cache_key", String(64), nullable=False),
    Column("content_hash", String(80), nullable=False),
    Column("status", String(16), nullable=False),
    Column("outcome", String(8), nullable=False),        # hit | miss | joined | bypass
    Column("would_be", String(8), nullable=True),        # shadow mode: hit | joined
    Column("fresh", Boolean, nullable=False, default=False),
    # A joined job does no work of its own: its status and result are its leader's.
    Column("leader_id", String(32), ForeignKey("jobs.id"), nullable=True),
    # Set to the cache key while a joinable extraction is in flight, NULL otherwise; the
    # unique constraint makes "one in-flight extraction per key" atomic on every backend.
    Column("inflight_key", String(64), nullable=True),
    Column("result_id", String(32), ForeignKey("results.id"), nullable=True),
    Column("lease_owner", String(120), nullable=True),
    Column("lease_expires_at", UTC, nullable=True),
    Column("fencing_token", Integer, nullable=False, default=0),
    Column("attempts", Integer, nullable=False, default=0),
    Column("run_after", UTC, nullable=False),
    Column("error_code", String(40), nullable=True),
    Column("error_message", Text, nullable=True),
    Column("created_at", UTC, nullable=False),
    Column("updated_at", UTC, nullable=False),
    Column("finished_at", UTC, nullable=True),
    UniqueConstraint("account", "caller_id", "idempotency_key"),
    UniqueConstraint("account", "inflight_key"),
    Index(None, "status", "run_after"),
    Index(None, "account", "cache_key", "status"),
    Index(None, "leader_id"),
    Index(None, "created_at"),
    Index(None, "created_at", "outcome", "would_be"),  # the duplicate-work report
)

invoices = Table(
    "invoices", metadata,
    Column("id", String(32), primary_key=True),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=False),
    Column("uploaded_by", String(32), ForeignKey("api_keys.id"), nullable=False),
    Column("job_id", String(32), ForeignKey("jobs.id"), nullable=False, unique=True),
    Column("content_hash", String(80), nullable=False),
    Column("created_at", UTC, nullable=False),
    Index(None, "account", "created_at", "id"),
    Index(None, "account", "uploaded_by", "created_at", "id"),
)

# Every model call, written when it starts, including calls whose result is discarded.
model_calls = Table(
    "model_calls", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("operation", String(40), nullable=False),
    Column("account", String(63), nullable=False),
    Column("job_id", String(32), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("started_at", UTC, nullable=False),
    Column("finished_at", UTC, nullable=True),
    # running | published | discarded | failed | abandoned (its worker vanished) | cancelled
    Column("outcome", String(16), nullable=False),
    Column("cost", Numeric(12, 6), nullable=False),
    Column("worker", String(120), nullable=False),
    Column("fencing_token", Integer, nullable=False),
    Index(None, "operation", "started_at"),
    Index(None, "request_hash", "started_at"),
)
# The duplicate-work report reads a day's calls in this order, from the index alone.
Index("ix_model_calls_day_hash", func.date(model_calls.c.started_at), model_calls.c.operation,
      model_calls.c.request_hash, model_calls.c.started_at, model_calls.c.id,
      model_calls.c.finished_at, model_calls.c.cost)
