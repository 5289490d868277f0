"""The job store port: arrival (create-or-get, the cache hit), claims (claim, renew, publish,
fail, release) and the call ledger, each used inside a transaction (ports/database.py).

The promises every implementation keeps (tests/contract holds them to it):

- A job is claimed by one worker at a time, in fair order (domain.jobs.fair_position), and
  each claim raises its fencing token; a job claimed MAX_ATTEMPTS times is failed
  `attempts_exhausted` instead of claimed again (domain.jobs.exhausted).
- Every state change a worker makes names the claim (owner and token) it holds, and changes
  nothing once the claim is gone (domain.jobs.may_publish): a worker that lost its lease can
  never publish. Every such write can be retried after a lost acknowledgement: it recognises
  that it already happened under its token.
- Times come from the store's clock, never a worker's.
- The call ledger records every model call before it starts, by the claim itself, so that no
  attempt reaches the model unrecorded.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from ..domain.identity import Caller
from ..domain.jobs import CacheOutcome, CallOutcome, Claim
from ..domain.providers import Agreement
from .extractor import Progress

ATTEMPTS_EXHAUSTED = "attempts_exhausted"
MAX_ERROR_MESSAGE = 2000  # characters of a failure's message that are kept


@dataclass(frozen=True)
class NewJob:
    account: str
    caller_id: str
    idempotency_key: str | None
    request_hash: str
    cache_key: str
    content_hash: str
    fresh: bool
    extractor_versions: str          # ExtractorVersions.label of the API that keyed it
    retry_of: str | None = None      # the invoice a retry job makes a new attempt for
    request_id: str | None = None    # the request that created it (logs.py)
    trace_context: str | None = None  # its W3C traceparent, where tracing is on (tracing.py)


@dataclass(frozen=True)
class KeyedJob:
    """The operation a caller's Idempotency-Key names."""
    id: str
    request_hash: str
    invoice_id: str  # its invoice, or the one it retries
    expired: bool  # older than the key's lifetime: the key names nothing any more


@dataclass(frozen=True)
class BeforeStoring:
    """What a keyed upload looks up before it writes its original, in one read."""
    keyed: KeyedJob | None  # the operation the caller's key names, if any
    blob_key: str | None    # where the file is stored already (Arrival.blob_key)


@dataclass(frozen=True)
class RetryTarget:
    job_id: str       # the invoice's own job
    status: str       # what a reader sees: its leader's status when it follows one


@dataclass(frozen=True)
class ServedHit:
    invoice_id: str
    job_id: str
    invoice: dict          # the invoice as a read shows it, but for the two JSON texts below
    document_json: str     # its extraction: the cached document exactly as stored
    duplicates_json: str   # its possible_duplicates


@dataclass(frozen=True)
class ClaimedJob:
    claim: Claim
    account: str
    cache_key: str
    content_hash: str
    storage_key: str | None
    attempts: int
    fresh: bool
    claimed_at: datetime  # the store's time: when this attempt (its extraction) started
    invoice_id: str | None = None  # the invoice the job was created with (its log lines)
    request_id: str | None = None  # where it came from (NewJob): its log lines and trace
    trace_context: str | None = None


@dataclass(frozen=True)
class Exhausted:
    """The claim found a job past its attempts and failed it instead (with its joiners)."""
    job_id: str


@dataclass(frozen=True)
class Call:
    """One row of the call ledger, as the worker knows it before writing it."""
    call_id: str
    operation: str
    job: ClaimedJob
    request_hash: str
    cost: Decimal | int  # the flat price, or 0 until a provider's progress says more
    provider: str | None = None
    model: str | None = None
    cost_basis: str | None = None


@dataclass(frozen=True)
class CallOpening:
    """A ledger row as a worker knows it before it claims: the id it made for it (once, so
    that a retried write adds nothing) and what the extractor's call costs up front
    (dispatch.opening)."""
    call_id: str
    operation: str
    cost: Decimal | int
    provider: str | None = None
    model: str | None = None
    cost_basis: str | None = None

    def of(self, job: ClaimedJob) -> Call:
        return Call(call_id=self.call_id, operation=self.operation, job=job,
                    request_hash=job.cache_key, cost=self.cost, provider=self.provider,
                    model=self.model, cost_basis=self.cost_basis)


class Arrival(Protocol):
    """Uploads and retries: an idempotent create-or-get of the caller's job and invoice."""

    def job_by_idempotency_key(self, account: str, caller_id: str, key: str,
                               ttl_seconds: float) -> KeyedJob | None: ...

    def before_storing(self, account: str, caller_id: str, key: str, content_hash: str,
                       ttl_seconds: float) -> BeforeStoring:
        """job_by_idempotency_key and blob_key together (PostgreSQL: one round trip)."""

    def forget_idempotency_key(self, job_id: str) -> None:
        """The key expired: free it for a new operation (the old job and invoice stay)."""

    def inflight_leader(self, account: str, cache_key: str, *,
                        joinable_only: bool) -> str | None:
        """The running or pending extraction for this key, if any. `joinable_only`: one an
        arrival may join, held until the arrival commits, so that an arrival never joins a
        failure that committed before it."""

    def cached_result(self, account: str, cache_key: str) -> str | None: ...

    def insert_job(self, job: NewJob, *, outcome: CacheOutcome, leader_id: str | None = None,
                   result_id: str | None = None, joinable: bool = False,
                   would_be: str | None = None, invoice_id: str | None = None) -> str:
        """The job: a hit when `result_id`, a join when `leader_id`, else work for a worker,
        of which the workers of other processes are told once the transaction commits; its
        id. With `invoice_id`, the caller's invoice of that id too, created at the job's
        time (as insert_invoice does)."""

    def insert_invoice(self, job: NewJob, job_id: str) -> str:
        """The caller's invoice, created at the same time as its job; its id."""

    def blob_key(self, account: str, content_hash: str) -> str | None:
        """Where the original is stored; None when it is not recorded, or recorded lost."""

    def record_blob(self, account: str, content_hash: str, storage_key: str,
                    size: int) -> bool:
        """Record a stored original, or a fresh write of one recorded lost; False when it was
        recorded already (and not lost)."""

    def mark_blob_lost(self, account: str, content_hash: str) -> str | None:
        """A worker found the stored object missing or other bytes than the upload's: the row
        (which invoices reference, so it stays) stops vouching for it, and the next upload of
        the file writes it again. The storage key when this marked it, the row held until
        the transaction ends (delete damaged bytes before committing: an upload repairing
        the row waits, and writes after); None when it was lost already or is gone."""

    def retry_target(self, invoice_id: str) -> RetryTarget | None:
        """The invoice's own job, held against a concurrent retry, and the status it shows."""

    def follow(self, job_id: str, worker_job_id: str) -> None:
        """Point an invoice's job at the job now doing its work."""

    def serve_hit(self, caller: Caller, job: NewJob) -> ServedHit | None:
        """Record the upload as a hit of the account's cache and answer it; None, with nothing
        written, when it is not one (no entry, work in flight, no recorded original, or the
        caller's key names an operation already). Raises Conflict when the original's record
        went away meanwhile."""


class Claims(Protocol):
    """A worker's side of a job: every write names the claim it holds."""

    def claim_and_start(self, owner: str, lease_seconds: float, extractor_versions: str,
                        opening: CallOpening) -> ClaimedJob | Exhausted | None:
        """Claim the next job in fair order that this worker's extractor can produce, with its
        fencing token raised and its call opened in the ledger (the calls of earlier claims
        still running marked abandoned). A job past its attempts is failed instead."""

    def release_owned(self, owner: str, call_id: str | None = None) -> int:
        """Hand back every job claimed under `owner`, its attempt refunded (a claim whose
        acknowledgement was lost), and end the call it opened, `call_id`, unstarted."""

    def renew(self, claim: Claim, lease_seconds: float) -> Claim | None:
        """The claim with its lease extended; None once it is not ours any more."""

    def publish_and_finish(self, job: ClaimedJob, call: Call, document: dict, *,
                           result_id: str, record_in_cache: bool,
                           progress: Progress | None = None) -> bool:
        """Store the result and complete the job if the claim still holds (or already did
        under it), and make it the cache's entry unless an extraction that started later
        holds that; end the call `published` or `discarded`. Whether it was published."""

    def fail(self, claim: Claim, code: str, message: str) -> bool:
        """A permanent failure (never cached), if the claim holds or already did this."""

    def release(self, claim: Claim, *, after_seconds: float = 0.0,
                error: tuple[str, str] | None = None, refund_attempt: bool = False) -> bool:
        """Back to the queue, claimable `after_seconds` later; `refund_attempt`: this claim
        never reached the model, so it does not count against the job's attempts."""


class Ledger(Protocol):
    """The call ledger: every model call, with what it costs, written as it goes."""

    def start_call(self, call: Call) -> None:
        """Written before the model is called; a retry of the same call adds nothing."""

    def record_progress(self, call: Call, progress: Progress) -> None:
        """What the provider may bill so far (a call that reuses an earlier attempt's
        idempotency token costs 0: the provider charged that attempt)."""

    def finish_call(self, call_id: str, outcome: CallOutcome, *, call: Call | None = None,
                    progress: Progress | None = None) -> None:
        """End the call; one that was not billed (CallOutcome.billed) costs nothing."""

    def record_agreement(self, call: Call, *, serving_provider: str, candidate_provider: str,
                         candidate_model: str, verdicts: dict[str, Agreement]) -> None:
        """One shadow comparison, a row per field; a retried write adds nothing."""
