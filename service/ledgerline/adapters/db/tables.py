"""The schema, as SQLAlchemy Core tables. Alembic migrations create it; nothing else does."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (BigInteger, Boolean, Column, Float, ForeignKey, ForeignKeyConstraint,
                        Index, Integer, MetaData, Numeric, String, Table, Text, UniqueConstraint,
                        func, text)
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
    # Invoices older than this many days are deleted by `ledgerline purge`; NULL: kept.
    Column("retention_days", Integer, nullable=True),
    # Set when `ledgerline accounts delete` starts: its keys no longer work, and a run that
    # was interrupted is finished by the next one.
    Column("deleted_at", UTC, nullable=True),
)

api_keys = Table(
    "api_keys", metadata,
    Column("id", String(32), primary_key=True),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=True),
    Column("name", String(200), nullable=True),
    Column("created_at", UTC, nullable=False),
    Column("expires_at", UTC, nullable=True),   # database time; NULL: never
    Column("revoked_at", UTC, nullable=True),
    Column("replaced_by", String(32), nullable=True),  # the key `keys rotate` made
    # The secret's first characters (accounts.KEY_PREFIX_CHARS): public enough to tell which
    # key a failure was about, never enough to use it. NULL for keys older than 0010.
    Column("prefix", String(16), nullable=True),
    Column("last_used_at", UTC, nullable=True),  # database time, written at most once a minute
    # The caller this key speaks for: the first key of its rotations (NULL: itself).
    Column("principal_id", String(32), nullable=True),
    Index(None, "prefix"),
)

# One row (id 1). `generation` grows with every revocation, rotation and account deletion, so
# that a process caching keys knows, from one tiny read a second, when to forget them all
# (http/auth.py). `session_secret` signs dashboard session cookies in every process.
auth_state = Table(
    "auth_state", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("generation", BigInteger, nullable=False),
    Column("session_secret", String(64), nullable=False),
)

# Dashboard sign-ins: the cookie holds a signed random id whose SHA-256 is the key here;
# signing out deletes the row, and a revoked operator key ends its sessions with it.
dashboard_sessions = Table(
    "dashboard_sessions", metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("key_id", String(32), ForeignKey("api_keys.id"), nullable=False),
    Column("created_at", UTC, nullable=False),
    Column("expires_at", UTC, nullable=False),
    Index(None, "key_id"),
)

# Originals, one per (account, bytes): a second upload of the same file writes nothing.
blobs = Table(
    "blobs", metadata,
    Column("account", String(63), ForeignKey("accounts.name"), primary_key=True),
    Column("content_hash", String(80), primary_key=True),
    Column("storage_key", String(300), nullable=False),
    Column("size", Integer, nullable=False),
    Column("stored_at", UTC, nullable=False),
    # A worker found the object missing or not the uploaded bytes: the row no longer vouches
    # for it, and the next upload of the file stores it again (Arrival.mark_blob_lost).
    Column("lost_at", UTC, nullable=True),
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
    # domain.duplicates.seller_key of seller_name: the business-duplicate lookup and the
    # seller filter compare it as stored, so SQL never folds case (SQLite's lower() is
    # ASCII-only) and the rule is the same on both backends.
    Column("seller_key", String(300)),
    Column("review_required", Boolean),  # the document's review.required, for ?review=
    Column("created_at", UTC, nullable=False),
    # domain.duplicates.number_key of invoice_number, for the duplicate flag of lists and
    # exports (adapters/db/duplicates.py), compared as stored like seller_key.
    Column("number_key", String(200)),
    Index(None, "account", "cache_key"),
    Index(None, "account", "seller_key"),
    # The same bill: the same seller and number, or the same seller, issue date and gross.
    Index(None, "account", "seller_key", "number_key"),
    Index(None, "account", "seller_key", "issue_date"),
)

# The exact result cache: (account, cache key) -> current result.
cache_entries = Table(
    "cache_entries", metadata,
    Column("account", String(63), ForeignKey("accounts.name"), primary_key=True),
    Column("cache_key", String(64), primary_key=True),
    Column("result_id", String(32), ForeignKey("results.id"), nullable=False),
    Column("updated_at", UTC, nullable=False),
    Index(None, "result_id"),  # the retention purge: is a result still referenced?
    # When the extraction behind result_id started (database time): a publish replaces the
    # entry only with an extraction that started later (domain.cache.supersedes).
    Column("started_at", UTC, nullable=True),
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
    # unique index below makes "one in-flight extraction per key" atomic on every backend.
    Column("inflight_key", String(64), nullable=True),
    Column("result_id", String(32), ForeignKey("results.id"), nullable=True),
    Column("lease_owner", String(120), nullable=True),
    Column("lease_expires_at", UTC, nullable=True),
    Column("fencing_token", Integer, nullable=False, default=0),
    Column("attempts", Integer, nullable=False, default=0),
    Column("run_after", UTC, nullable=False),
    # The extractor versions and configuration digest the job was keyed with
    # (ExtractorVersions.label): only a worker running exactly these may claim it.
    Column("extractor_versions", String(300), nullable=True),
    # Fair order between accounts (domain.jobs.fair_position): claims take the lowest first.
    Column("fair_position", BigInteger, nullable=False, default=0, server_default=text("0")),
    # Database time at which the current attempt was claimed.
    Column("claimed_at", UTC, nullable=True),
    # A job made by POST .../invoices/{id}/retry: the invoice it retries.
    Column("retry_of", String(32), nullable=True),
    Column("error_code", String(40), nullable=True),
    Column("error_message", Text, nullable=True),
    # The upload that created the job: its request id and W3C traceparent, carried into the
    # worker's log lines and trace for the job.
    Column("request_id", String(128), nullable=True),
    Column("trace_context", String(128), nullable=True),
    Column("created_at", UTC, nullable=False),
    Column("updated_at", UTC, nullable=False),
    Column("finished_at", UTC, nullable=True),
    UniqueConstraint("account", "caller_id", "idempotency_key"),
    # SQLite's, from its first migration, inline in the table (migration 0013).
    UniqueConstraint("account", "inflight_key").ddl_if(dialect="sqlite"),
    Index(None, "created_at", "outcome", "would_be"),  # the duplicate-work report
    Index(None, "result_id"),  # the retention purge: is a result still referenced?
)
# Only work in flight is indexed for the queue: finished and joined jobs (nearly all of the
# history) never enter these partial indexes, so a claim costs the same at any history size.
IN_FLIGHT = text("status IN ('pending', 'running') AND leader_id IS NULL")
Index("ix_jobs_queue", jobs.c.extractor_versions, jobs.c.fair_position, jobs.c.created_at,
      postgresql_where=IN_FLIGHT, sqlite_where=IN_FLIGHT)
# One account's work in flight. `account IS NOT NULL` is true of every row, and implied by the
# lookups that name an account, but not by the claim, which names none: so the claim's plan
# (a prepared statement's, often made while the queue is empty and every path looks alike)
# can only read the queue in order from ix_jobs_queue, never scan one of these and sort the
# whole queue at every claim (migration 0012).
ACCOUNT_IN_FLIGHT = text("status IN ('pending', 'running') AND leader_id IS NULL "
                         "AND account IS NOT NULL")
Index("ix_jobs_account_in_flight_position", jobs.c.account, jobs.c.fair_position,
      postgresql_where=ACCOUNT_IN_FLIGHT, sqlite_where=ACCOUNT_IN_FLIGHT)
Index("ix_jobs_account_in_flight_cache_key", jobs.c.account, jobs.c.cache_key,
      postgresql_where=ACCOUNT_IN_FLIGHT, sqlite_where=ACCOUNT_IN_FLIGHT)
JOINED = text("leader_id IS NOT NULL")
Index("ix_jobs_joined_leader_id", jobs.c.leader_id, postgresql_where=JOINED,
      sqlite_where=JOINED)
# One extraction in flight per key, on PostgreSQL over the keys of work in flight only (the
# uniqueness is the same: NULLs never collide). Indexing every past job's NULL made each
# claim's new row version cost more the longer the history: it landed among the account's
# thousands of NULL entries (migration 0013). The lookups name a key, which implies the
# predicate. SQLite keeps the constraint above: dropping it would mean rebuilding the table.
IN_FLIGHT_KEY = text("inflight_key IS NOT NULL")
Index("uq_jobs_account_inflight_key_in_flight", jobs.c.account, jobs.c.inflight_key, unique=True,
      postgresql_where=IN_FLIGHT_KEY).ddl_if(dialect="postgresql")

invoices = Table(
    "invoices", metadata,
    Column("id", String(32), primary_key=True),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=False),
    Column("uploaded_by", String(32), ForeignKey("api_keys.id"), nullable=False),
    Column("job_id", String(32), ForeignKey("jobs.id"), nullable=False, unique=True),
    Column("content_hash", String(80), nullable=False),
    Column("created_at", UTC, nullable=False),
    # Corrections belong to the invoice, never to the cached result: `corrections` is the
    # current overlay ({"fields": {name: value}, "line_items": [...]}), `version` counts the
    # entries of its history (invoice_corrections), and once `corrected_at` is set the
    # summary columns below hold the invoice's own values (corrected or not) for filters,
    # CSV and the duplicate lookup.
    Column("version", Integer, nullable=False, default=0, server_default=text("0")),
    Column("corrected_at", UTC, nullable=True),
    Column("corrections", Text, nullable=True),
    Column("invoice_number", String(200)),
    Column("issue_date", String(10)),
    Column("seller_name", String(300)),
    Column("gross_total", String(40)),
    Column("currency", String(3)),
    Column("seller_key", String(300)),
    Column("review_resolved_at", UTC, nullable=True),
    Column("review_resolved_by", String(32), nullable=True),
    # Once corrected, the invoice's own: its checks run again on the corrected values
    # (domain.rechecks), and whether they ask for review.
    Column("number_key", String(200)),
    Column("review_required", Boolean, nullable=True),
    # Every invoice's original is recorded: a purge can never delete one still in use, and an
    # upload that trusted a row a purge has just removed fails instead of pointing at nothing.
    ForeignKeyConstraint(["account", "content_hash"], ["blobs.account", "blobs.content_hash"],
                         name="fk_invoices_account_blobs"),
    Index(None, "account", "created_at", "id"),
    Index(None, "account", "uploaded_by", "created_at", "id"),
    Index(None, "account", "content_hash", "created_at", "id"),  # the same file, oldest first
    Index(None, "account", "seller_key"),
    Index(None, "account", "seller_key", "number_key"),
    Index(None, "account", "seller_key", "issue_date"),
)

# The audit trail of an invoice: one row per correction or review resolution, with its author
# and, for each change, the value before and after.
invoice_corrections = Table(
    "invoice_corrections", metadata,
    Column("id", String(32), primary_key=True),
    Column("account", String(63), nullable=False),
    Column("invoice_id", String(32), ForeignKey("invoices.id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("kind", String(16), nullable=False),       # correction | review
    Column("author_key_id", String(32), nullable=False),
    Column("author_role", String(16), nullable=False),
    Column("author_name", String(200), nullable=True),
    Column("reason", Text, nullable=True),
    Column("changes", Text, nullable=False),          # JSON: [{field, previous, value}]
    Column("created_at", UTC, nullable=False),
    UniqueConstraint("invoice_id", "version"),
)

# Webhook endpoints of an account; `events` is the subscribed types, space-separated.
webhook_endpoints = Table(
    "webhook_endpoints", metadata,
    Column("id", String(32), primary_key=True),
    Column("account", String(63), ForeignKey("accounts.name"), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("events", String(200), nullable=False),
    Column("secret", String(100), nullable=False),    # whsec_…, needed to sign every delivery
    Column("created_by", String(32), nullable=False),
    Column("created_at", UTC, nullable=False),
    Column("failing_since", UTC, nullable=True),      # first failure of the current streak
    Column("disabled_at", UTC, nullable=True),
    Column("disabled_reason", Text, nullable=True),
    Column("claimed_at", UTC, nullable=True),         # last claim of one of its deliveries
    # seconds its attempts took, halved every domain.webhooks.USAGE_HALF_LIFE_SECONDS since
    # claimed_at: claims go to the account, then the endpoint, that used least
    Column("usage_seconds", Float, nullable=False, server_default=text("0")),
    Column("busy_until", UTC, nullable=True),         # the lease of its delivery in flight
    Column("previous_secret", String(100), nullable=True),  # a rotated secret, signing until
    Column("previous_secret_until", UTC, nullable=True),
    Index(None, "account"),
)

# The transactional outbox: one row per (endpoint, event), written in the transaction that
# changes the invoice, then claimed under a lease by delivery workers, like jobs.
# `event_id` is the stable webhook-id receivers deduplicate on.
webhook_deliveries = Table(
    "webhook_deliveries", metadata,
    Column("id", String(160), primary_key=True),     # endpoint id ":" event id
    Column("endpoint_id", String(32), ForeignKey("webhook_endpoints.id"), nullable=False),
    Column("event_id", String(120), nullable=False),
    Column("account", String(63), nullable=False),
    Column("type", String(40), nullable=False),
    Column("invoice_id", String(32), nullable=False),  # "" for an event of no invoice (ping)
    Column("detail", String(64), nullable=True),      # error code (failed), version (corrected)
    Column("occurred_at", UTC, nullable=False),
    Column("status", String(16), nullable=False),     # pending | delivering | delivered | failed
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", UTC, nullable=False),
    Column("first_attempt_at", UTC, nullable=True),
    Column("lease_owner", String(120), nullable=True),
    Column("lease_expires_at", UTC, nullable=True),
    Column("fencing_token", Integer, nullable=False, default=0),
    Column("delivered_at", UTC, nullable=True),
    Column("last_status_code", Integer, nullable=True),
    Column("last_error", String(500), nullable=True),
    Column("payload", Text, nullable=True),          # the body of every attempt, from the first
    Index(None, "endpoint_id", "occurred_at"),
)
DELIVERABLE = text("status IN ('pending', 'delivering')")
Index("ix_webhook_deliveries_endpoint_queue", webhook_deliveries.c.endpoint_id,
      webhook_deliveries.c.next_attempt_at,
      postgresql_where=DELIVERABLE, sqlite_where=DELIVERABLE)

# The delivery log: every attempt, with what the receiver answered.
webhook_attempts = Table(
    "webhook_attempts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("delivery_id", String(160), ForeignKey("webhook_deliveries.id"), nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("started_at", UTC, nullable=False),
    Column("duration_ms", Integer, nullable=False),
    Column("status_code", Integer, nullable=True),
    Column("error", String(500), nullable=True),
    Column("response_excerpt", String(500), nullable=True),
    Column("outcome", String(32), nullable=True),     # domain.webhooks.OUTCOMES
    Index(None, "delivery_id"),
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
    # Made by the worker before the first try, so that a retried write never adds a row.
    Column("call_id", String(40), nullable=True),
    # domain.jobs.CallOutcome: running | published | discarded | failed | abandoned |
    # cancelled | refused | unstarted (the last two never reached the model and cost 0)
    Column("outcome", String(16), nullable=False),
    Column("cost", Numeric(12, 6), nullable=False),
    Column("worker", String(120), nullable=False),
    Column("fencing_token", Integer, nullable=False),
    # The provider behind the call (NULL: written before providers, the rules) and what it
    # counted: the ids it gave (its idempotency token, its job, its latest answer), the
    # requests it may bill, tokens and pages. cost_basis: flat | estimate | usage.
    Column("provider", String(16), nullable=True),
    Column("model", String(120), nullable=True),
    Column("client_token", String(64), nullable=True),
    Column("provider_job_id", String(64), nullable=True),
    Column("provider_request_id", String(200), nullable=True),
    Column("provider_requests", Integer, nullable=False, default=0, server_default=text("0")),
    Column("input_tokens", BigInteger, nullable=False, default=0, server_default=text("0")),
    Column("output_tokens", BigInteger, nullable=False, default=0, server_default=text("0")),
    Column("pages", Integer, nullable=False, default=0, server_default=text("0")),
    Column("cost_basis", String(8), nullable=True),
    Index(None, "job_id"),
    Index("uq_model_calls_call_id", "call_id", unique=True),
)

# The shadow comparison: per field of each candidate run, how it agreed with the served result.
shadow_fields = Table(
    "shadow_fields", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("call_id", String(40), nullable=False),
    Column("job_id", String(32), nullable=False),
    Column("account", String(63), nullable=False),
    Column("started_at", UTC, nullable=False),
    Column("serving_provider", String(16), nullable=False),
    Column("candidate_provider", String(16), nullable=False),
    Column("candidate_model", String(120), nullable=False),
    Column("field", String(40), nullable=False),
    Column("agreement", String(16), nullable=False),  # domain.providers.Agreement
    UniqueConstraint("call_id", "field"),
)
Index("ix_shadow_fields_day", func.date(shadow_fields.c.started_at),
      shadow_fields.c.candidate_provider, shadow_fields.c.field, shadow_fields.c.agreement)
# The duplicate-work report reads a day's calls in this order, from the index alone.
Index("ix_model_calls_day_hash_outcome", func.date(model_calls.c.started_at),
      model_calls.c.operation, model_calls.c.request_hash, model_calls.c.started_at,
      model_calls.c.id, model_calls.c.finished_at, model_calls.c.cost, model_calls.c.outcome)


def built_on(dialect: str):
    """Alembic's ``include_object`` for a database of `dialect`: a constraint or index the
    tables build on another dialect only (``ddl_if``) is not compared there (alembic ignores
    ``ddl_if``, and would propose swapping one dialect's object for the other's)."""
    def include(obj, name, type_, reflected, compare_to) -> bool:
        only = getattr(obj, "_ddl_if", None)
        return reflected or only is None or only.dialect in (None, dialect)
    return include
