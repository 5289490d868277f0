"""Upload: authorise, spool and hash; then either a cache hit, recorded and answered at once
(Arrival.serve_hit: one statement on PostgreSQL; no object write, the original is stored
already), or store the original and create-or-get the job.

The order matters for crash safety: the original is durably stored before the database
record that points at it is committed, so a record never names a missing object.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, BinaryIO

from .. import metrics
from ..domain.cache import CacheKey, RetryRequest, UploadRequest
from ..domain.errors import (Forbidden, IdempotencyKeyReused, InvoiceNotFailed, NotFound,
                             SpoolUnavailable, Unavailable)
from ..domain.identity import Caller
from ..domain.ids import new_id
from ..domain.jobs import CacheOutcome, JobStatus, Replay, decide_replay
from ..logs import current_request_id
from ..ports.database import Conflict, StoreUnavailable, Transaction
from ..ports.jobs import KeyedJob, NewJob, ServedHit
from ..ports.storage import StorageUnavailable, original_key
from ..tracing import current_traceparent
from .local_disk import WriteFailed
from .spool import Spooled, spool

if TYPE_CHECKING:
    from ..adapters.job_endings import Watching
    from ..bootstrap import Services


@dataclass(frozen=True)
class Upload:
    invoice_id: str
    job_id: str
    outcome: CacheOutcome | None  # None for an idempotent replay
    replayed: bool
    would_be: str | None = None   # shadow mode: what the cache would have done
    shown: ServedHit | None = None  # a hit's answer, made by the statement that recorded it
    # The job doing the invoice's work (its own, or the one in flight it joined), when the
    # upload made the decision: a `Prefer: wait` then needs no read to know what to wait for.
    work_job_id: str | None = None
    # That job's end, watched since before the upload committed (asked for with `watch`): a
    # wait for it needs no look at its status first. The caller closes it.
    watching: Watching | None = None


def upload(services: Services, caller: Caller, account: str, body: BinaryIO, *,
           idempotency_key: str | None, fresh: bool, declared_size: int | None = None,
           watch: bool = False) -> Upload:
    """`declared_size`: the Content-Length; a body that ends short of it is refused whole.
    `watch`: an upload that decides its job starts watching that job's end before it commits
    (`Upload.watching`, for `Prefer: wait`)."""
    authorise_upload(caller, account)
    try:
        spooled = spool(body, services.settings.max_upload_bytes, services.settings.spool_dir,
                        expected_size=declared_size)
        try:
            accepted = _accept(services, caller, account, spooled, idempotency_key, fresh,
                               watch)
        finally:
            spooled.discard()
    except SpoolUnavailable as exc:
        cause = exc.__cause__
        services.local_disk.failed(cause.why if isinstance(cause, WriteFailed) else exc.detail)
        raise
    if accepted.outcome in (CacheOutcome.MISS, CacheOutcome.BYPASS):
        services.work_available.set()  # an embedded worker in this process starts at once
    return metrics.count_upload(accepted)


def authorise_upload(caller: Caller, account: str) -> None:
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")
    if not caller.can_upload():
        raise Forbidden(f"the {caller.role.value} role may not upload invoices")


def _accept(services: Services, caller: Caller, account: str, spooled: Spooled,
            idempotency_key: str | None, fresh: bool, watch: bool = False) -> Upload:
    request = UploadRequest(account=account, content_hash=spooled.content_hash, fresh=fresh)
    key = CacheKey(account=account, content_hash=spooled.content_hash,
                   versions=services.extractor.versions)
    new_job = NewJob(
        account=account, caller_id=caller.principal, idempotency_key=idempotency_key,
        request_hash=request.request_hash, cache_key=key.digest,
        content_hash=spooled.content_hash, fresh=fresh,
        extractor_versions=services.extractor.versions.label, **_origin())
    try:
        if services.settings.cache_mode.serves_results and not fresh:
            hit = _serve_hit(services, caller, new_job)
            if hit:
                return hit
        known = None
        if idempotency_key:
            # Fast path for retries: no second write of the original. Where the file is
            # stored is read with the key: one round trip.
            with services.db.transaction(write=False) as tx:
                known = tx.arrival.before_storing(account, caller.principal, idempotency_key,
                                                  spooled.content_hash,
                                                  services.settings.idempotency_key_ttl)
            replay = _replayed(known.keyed, new_job)
            if replay:
                return replay
        for attempt in range(ORIGINAL_RETRIES):
            stored = known.blob_key is not None if known and attempt == 0 else None
            try:
                return _submit(services, new_job,
                               _store_original(services, account, spooled, stored=stored),
                               key_was_free=known is None or known.keyed is None, watch=watch)
            except OriginalGone:
                # A purge or a deletion removed the original between our look and our
                # insert (the invoices -> blobs foreign key, or the object's absence, said
                # so): store the file again and record it.
                continue
        raise Unavailable("the original kept disappearing while it was stored; retry")
    except StoreUnavailable as exc:
        raise Unavailable("the database is unavailable; nothing was accepted") from exc


def _origin() -> dict:
    """The request that creates a job, stored with it: the worker's log lines for the job name
    its request id, and its trace continues the request's (logs.py, tracing.py)."""
    return dict(request_id=current_request_id(), trace_context=current_traceparent())


def _serve_hit(services: Services, caller: Caller, job: NewJob) -> Upload | None:
    """The common case first: a hit recorded and answered in one round trip on PostgreSQL.
    None when the upload is anything else; nothing was written then, and the general path
    decides it from the start."""
    try:
        with services.db.hit_transaction() as tx:
            served = tx.arrival.serve_hit(caller, job)
    except Conflict:
        return None  # the original's row went away meanwhile: the general path stores it again
    if served is None:
        return None
    return Upload(served.invoice_id, served.job_id, CacheOutcome.HIT, False, shown=served)


ORIGINAL_RETRIES = 3


class OriginalGone(Exception):
    """The blob row an upload relied on was deleted before the upload committed."""


def _replay(tx: Transaction, job: NewJob, ttl_seconds: float) -> Upload | None:
    """Inside a write transaction: the operation under the caller's key, if any, replayed (or
    a reused key refused).

    A key older than LEDGERLINE_IDEMPOTENCY_KEY_TTL names nothing any more: the same key then
    starts a new operation, and the old job lets go of it here."""
    if job.idempotency_key is None:
        return None  # no key names no operation
    found = tx.arrival.job_by_idempotency_key(job.account, job.caller_id, job.idempotency_key,
                                              ttl_seconds)
    if found is not None and found.expired:
        tx.arrival.forget_idempotency_key(found.id)
    return _replayed(found, job)


def _replayed(found: KeyedJob | None, job: NewJob) -> Upload | None:
    """The replay of the operation `found` under the caller's key; None when there is none
    (or it expired); a reused key refused."""
    if found is None or found.expired:
        return None
    if decide_replay(found.request_hash, job.request_hash) is Replay.KEY_REUSED:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was already used with a different request; use a new key")
    return Upload(invoice_id=found.invoice_id, job_id=found.id, outcome=None, replayed=True)


def _store_original(services: Services, account: str, spooled: Spooled, *,
                    stored: bool | None = None) -> tuple[str, int] | None:
    """Write the original unless the database already knows it is stored (and no worker
    found it missing or damaged since: then this write repairs it). `stored`: whether it
    does, when just read; None: look.

    Returns (storage key, size) of a newly written original, to be recorded with the job;
    None when it was already there (a repeat upload costs no object write).
    """
    if stored is None:
        with services.db.transaction(write=False) as tx:
            stored = tx.arrival.blob_key(account, spooled.content_hash) is not None
    if stored:
        return None
    services.db.let_go()  # no pooled connection is held while the object store works
    key = original_key(account, spooled.content_hash)
    try:
        services.store.put_file(key, spooled.source(), spooled.sha256())
    except StorageUnavailable as exc:
        raise Unavailable("storage is unavailable; nothing was accepted") from exc
    return key, spooled.size


CONTENTION_RETRIES = 8


def _submit(services: Services, job: NewJob, new_blob: tuple[str, int] | None, *,
            key_was_free: bool = False, watch: bool = False) -> Upload:
    """Create-or-get, atomically. A unique constraint decides every race; the loser retries.

    `key_was_free`: no job held the caller's key a moment ago, so the first attempt does not
    look for it again: should another request take the key meanwhile, the job's insert breaks
    the key's unique constraint, and the retry looks and replays.

    `watch`: the job doing the work is watched from inside the transaction, before it commits.
    Until then no worker can end it: its own job is not yet visible, and a job in flight it
    joins is held by the join's lock (FOR SHARE; SQLite's write lock)."""
    if watch:
        services.job_endings.listen()  # never inside the transaction: see listen()
    for attempt in range(CONTENTION_RETRIES):
        watching = None
        try:
            with services.db.transaction(write=True) as tx:
                done = _submit_once(services, tx, job, new_blob,
                                    look_up_key=not (key_was_free and attempt == 0))
                if watch and done.work_job_id and done.outcome is not CacheOutcome.HIT:
                    watching = services.job_endings.start_watching(done.work_job_id)
            return replace(done, watching=watching) if watching else done
        except BaseException as exc:
            if watching is not None:
                watching.close()
            if not isinstance(exc, Conflict):
                raise
            if new_blob is None and _original_gone(services, job):
                raise OriginalGone(job.content_hash) from None
            services.clock.sleep(0.005 * attempt)
    raise Unavailable("could not record the upload under contention; retry with the same key")


def _original_gone(services: Services, job: NewJob) -> bool:
    with services.db.transaction(write=False) as tx:
        return tx.arrival.blob_key(job.account, job.content_hash) is None


def _submit_once(services: Services, tx: Transaction, job: NewJob,
                 new_blob: tuple[str, int] | None, *, look_up_key: bool) -> Upload:
    if job.idempotency_key and look_up_key:
        replay = _replay(tx, job, services.settings.idempotency_key_ttl)
        if replay:
            return replay
    if new_blob and tx.arrival.record_blob(job.account, job.content_hash, *new_blob):
        # A deletion of the file's last invoice may have removed the object we wrote before
        # our row could exist (it deletes the object while it holds the row, and our insert
        # waited for it): look before pointing an invoice at it.
        if not services.store.exists(new_blob[0]):
            raise OriginalGone(job.content_hash)
    invoice_id = new_id("inv")
    decision = _decide(services, tx, job, invoice_id=invoice_id)
    if decision.outcome is CacheOutcome.HIT:
        tx.events.invoice_event(job.account, invoice_id, "invoice.completed", decision.job_id)
    return Upload(invoice_id, decision.job_id, decision.outcome, False, decision.would_be,
                  work_job_id=decision.leader_id or decision.job_id)


@dataclass(frozen=True)
class Decision:
    outcome: CacheOutcome       # what the job attached to: hit, joined, miss or bypass
    job_id: str
    would_be: str | None        # shadow mode: what the cache would have done
    leader_id: str | None       # the job in flight it joined


def _decide(services: Services, tx: Transaction, job: NewJob, *,
            recorded_as: CacheOutcome | None = None, invoice_id: str | None = None) -> Decision:
    """Insert the job as a cache hit, a join or new work, as the cache mode allows.

    `recorded_as`: the outcome stored instead (a retry is stored as one whatever it attached
    to, so that the report never counts it as an upload). `invoice_id`: the caller's new
    invoice, inserted with the job.
    """
    mode = services.settings.cache_mode

    def insert(outcome: CacheOutcome, would_be: str | None = None, leader_id: str | None = None,
               result_id: str | None = None, joinable: bool = False) -> Decision:
        job_id = tx.arrival.insert_job(job, outcome=recorded_as or outcome, would_be=would_be,
                                       leader_id=leader_id, result_id=result_id,
                                       joinable=joinable, invoice_id=invoice_id)
        return Decision(outcome, job_id, would_be, leader_id)

    if job.fresh:
        return insert(CacheOutcome.BYPASS)

    # In-flight first, then finished results: a leader that completes between the two
    # reads has already written its cache entry, so nothing slips through both.
    would_be = None
    leader = tx.arrival.inflight_leader(job.account, job.cache_key,
                                        joinable_only=mode.joins_in_flight)
    if leader:
        if mode.joins_in_flight:
            return insert(CacheOutcome.JOINED, leader_id=leader)
        would_be = CacheOutcome.JOINED.value
    if mode.records_results:
        result_id = tx.arrival.cached_result(job.account, job.cache_key)
        if result_id:
            if mode.serves_results:
                return insert(CacheOutcome.HIT, result_id=result_id)
            would_be = would_be or CacheOutcome.HIT.value
    return insert(CacheOutcome.MISS, would_be=would_be, joinable=mode.joins_in_flight)


# --- a new attempt for a failed invoice ------------------------------------------------

@dataclass(frozen=True)
class Retry:
    invoice_id: str
    replayed: bool
    outcome: CacheOutcome | None  # hit, joined or miss: what the new attempt attached to


def retry(services: Services, caller: Caller, account: str, invoice_id: str, *,
          idempotency_key: str | None) -> Retry:
    """POST .../invoices/{id}/retry: a new attempt for a failed invoice.

    The invoice's own job then follows the new attempt (its `leader_id`), so every reader of the
    invoice sees the attempt's status and result; uploads that had joined the failed work keep
    their failure. The new attempt is served from the cache, joins identical work in flight, or
    becomes new work, exactly as an upload would. Idempotent under the caller's key; an invoice
    that did not fail (or whose retry is already under way) is refused with 409.
    """
    authorise_upload(caller, account)
    request = RetryRequest(account=account, invoice_id=invoice_id)
    try:
        with services.db.transaction(write=False) as tx:
            invoice = tx.invoices.get(caller, account, invoice_id)
        if invoice is None:
            raise NotFound("no such invoice")
        key = CacheKey(account=account, content_hash=invoice["content_hash"],
                       versions=services.extractor.versions)
        job = NewJob(
            account=account, caller_id=caller.principal, idempotency_key=idempotency_key,
            request_hash=request.request_hash, cache_key=key.digest,
            content_hash=invoice["content_hash"], fresh=False,
            extractor_versions=services.extractor.versions.label, retry_of=invoice_id,
            **_origin())
        with services.db.transaction(write=True) as tx:
            done = _retry_once(services, tx, job, invoice_id)
    except (StoreUnavailable, Conflict) as exc:
        raise Unavailable("the database is unavailable; nothing was changed") from exc
    if done.outcome is CacheOutcome.MISS:
        services.work_available.set()
    return done


def _retry_once(services: Services, tx: Transaction, job: NewJob, invoice_id: str) -> Retry:
    if job.idempotency_key:
        replay = _replay(tx, job, services.settings.idempotency_key_ttl)
        if replay:
            return Retry(replay.invoice_id, True, None)
    target = tx.arrival.retry_target(invoice_id)
    if target is None:  # deleted since we read it
        raise NotFound("no such invoice")
    if target.status != JobStatus.FAILED.value:
        raise InvoiceNotFailed(f"invoice {invoice_id} is {target.status}; only a failed "
                               "invoice can be retried")
    decision = _decide(services, tx, job, recorded_as=CacheOutcome.RETRY)
    tx.arrival.follow(target.job_id, decision.leader_id or decision.job_id)
    if decision.outcome is CacheOutcome.HIT:
        tx.events.invoice_event(job.account, invoice_id, "invoice.completed", decision.job_id)
    return Retry(invoice_id, False, decision.outcome)
