"""The in-memory store's tables: one dict per table of the SQL schema (adapters/db/tables.py)
that the ports touch, of frozen rows, so that a transaction's snapshot is a shallow copy of
each dict and a rollback puts the copies back.

Columns keep their SQL names and meanings; JSON columns stay JSON text, as SQL stores them, so
that what a read returns went through the same encoding.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal

Now = Callable[[], datetime]  # the store's clock


@dataclass(frozen=True)
class AccountRow:
    name: str
    created_at: datetime
    retention_days: int | None = None
    deleted_at: datetime | None = None


@dataclass(frozen=True)
class KeyRow:
    id: str
    role: str
    account: str | None
    name: str | None
    revoked_at: datetime | None = None


@dataclass(frozen=True)
class BlobRow:
    account: str
    content_hash: str
    storage_key: str
    size: int
    stored_at: datetime
    lost_at: datetime | None = None


@dataclass(frozen=True)
class ResultRow:
    id: str
    account: str
    cache_key: str
    content_hash: str
    job_id: str
    document: str  # JSON
    invoice_number: str | None
    issue_date: str | None
    seller_name: str | None
    gross_total: str | None
    currency: str | None
    seller_key: str | None
    number_key: str | None
    review_required: bool
    created_at: datetime


@dataclass(frozen=True)
class CacheEntryRow:
    account: str
    cache_key: str
    result_id: str
    updated_at: datetime
    started_at: datetime | None


@dataclass(frozen=True)
class JobRow:
    id: str
    seq: int  # insertion order: the tie-break a SQL table's physical order would be
    account: str
    caller_id: str
    idempotency_key: str | None
    request_hash: str
    cache_key: str
    content_hash: str
    status: str
    outcome: str
    would_be: str | None
    fresh: bool
    leader_id: str | None
    inflight_key: str | None
    result_id: str | None
    fencing_token: int
    attempts: int
    extractor_versions: str
    fair_position: int
    retry_of: str | None
    run_after: datetime
    created_at: datetime
    updated_at: datetime
    request_id: str | None = None
    trace_context: str | None = None
    finished_at: datetime | None = None
    claimed_at: datetime | None = None
    lease_owner: str | None = None
    lease_expires_at: datetime | None = None
    error_code: str | None = None
    error_message: str | None = None


@dataclass(frozen=True)
class InvoiceRow:
    id: str
    account: str
    uploaded_by: str
    job_id: str
    content_hash: str
    created_at: datetime
    version: int = 0
    corrected_at: datetime | None = None
    corrections: str | None = None  # JSON: the overlay
    invoice_number: str | None = None
    issue_date: str | None = None
    seller_name: str | None = None
    gross_total: str | None = None
    currency: str | None = None
    seller_key: str | None = None
    number_key: str | None = None
    review_required: bool | None = None  # once corrected: whether its checks ask for review
    review_resolved_at: datetime | None = None
    review_resolved_by: str | None = None


@dataclass(frozen=True)
class CorrectionRow:
    id: str
    account: str
    invoice_id: str
    version: int
    kind: str
    author_key_id: str
    author_role: str
    author_name: str | None
    reason: str | None
    changes: str  # JSON
    created_at: datetime


@dataclass(frozen=True)
class CallRow:
    id: int
    call_id: str
    operation: str
    account: str
    job_id: str
    request_hash: str
    started_at: datetime
    outcome: str
    cost: Decimal
    worker: str
    fencing_token: int
    provider: str | None
    model: str | None
    cost_basis: str | None
    finished_at: datetime | None = None
    client_token: str | None = None
    provider_job_id: str | None = None
    provider_request_id: str | None = None
    provider_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    pages: int = 0


@dataclass(frozen=True)
class ShadowFieldRow:
    call_id: str
    job_id: str
    account: str
    started_at: datetime
    serving_provider: str
    candidate_provider: str
    candidate_model: str
    field: str
    agreement: str


@dataclass(frozen=True)
class EventRow:
    """A webhook event as written: for the account's subscribers (the in-memory store keeps
    every one, having no endpoints to match it with)."""
    event_id: str
    account: str
    type: str
    invoice_id: str
    detail: str | None
    occurred_at: datetime


class Tables:
    """Every table, keyed by its primary key."""

    def __init__(self) -> None:
        self.accounts: dict[str, AccountRow] = {}
        self.keys: dict[str, KeyRow] = {}
        self.blobs: dict[tuple[str, str], BlobRow] = {}
        self.results: dict[str, ResultRow] = {}
        self.cache_entries: dict[tuple[str, str], CacheEntryRow] = {}
        self.jobs: dict[str, JobRow] = {}
        self.invoices: dict[str, InvoiceRow] = {}
        self.corrections: dict[str, CorrectionRow] = {}
        self.calls: dict[str, CallRow] = {}  # by call_id
        self.shadow_fields: dict[tuple[str, str], ShadowFieldRow] = {}
        self.events: dict[str, EventRow] = {}
        self.sequence = 0  # ids of ordered rows (calls, jobs)

    def snapshot(self) -> dict:
        return {name: dict(table) if isinstance(table, dict) else table
                for name, table in vars(self).items()}

    def restore(self, snapshot: dict) -> None:
        vars(self).update(snapshot)

    def next(self) -> int:
        self.sequence += 1
        return self.sequence


def columns(row: object) -> dict:
    """A row's columns by name."""
    return {f.name: getattr(row, f.name) for f in fields(row)}  # type: ignore[arg-type]
