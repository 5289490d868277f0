"""The steps the contract tests take through the port, each one transaction, as a use case
would take it."""
from __future__ import annotations

import time

from ledgerline.domain.cache import CacheKey, UploadRequest
from ledgerline.domain.identity import Caller
from ledgerline.domain.ids import new_id
from ledgerline.domain.jobs import CacheOutcome
from ledgerline.ports.jobs import CallOpening, ClaimedJob, NewJob
from tests.fakes import VERSIONS, document

LEASE = 30.0
GONE = -1.0  # a lease that ran out as it was taken: the next claim may take the job over
PRICE = 1
CLOCK_TICK = 0.002  # seconds: twice SQLite's clock resolution


def content_hash(tag: str) -> str:
    import hashlib

    return "blake3:" + hashlib.sha256(tag.encode()).hexdigest()


def new_job(caller: Caller, tag: str, *, key: str | None = None, fresh: bool = False,
            versions=VERSIONS, retry_of: str | None = None, digest: str | None = None,
            request_id: str | None = None, trace_context: str | None = None) -> NewJob:
    """The job of an upload of the file `tag` names (or whose content hash is `digest`), made
    by request `request_id` in trace `trace_context`."""
    account = caller.account or ""
    digest = digest or content_hash(tag)
    return NewJob(account=account, caller_id=caller.principal, idempotency_key=key,
                  request_hash=UploadRequest(account, digest, fresh).request_hash,
                  cache_key=CacheKey(account, digest, versions).digest, content_hash=digest,
                  fresh=fresh, extractor_versions=versions.label, retry_of=retry_of,
                  request_id=request_id, trace_context=trace_context)


def arrive(store, job: NewJob, *, joinable: bool = True, leader_id: str | None = None,
           result_id: str | None = None,
           outcome: CacheOutcome = CacheOutcome.MISS) -> tuple[str, str]:
    """An upload of `job`'s file: its original recorded, its job and invoice; their ids."""
    with store.db.transaction(write=True) as tx:
        tx.arrival.record_blob(job.account, job.content_hash, f"objects/{job.content_hash}", 1)
        job_id = tx.arrival.insert_job(job, outcome=outcome, joinable=joinable,
                                       leader_id=leader_id, result_id=result_id)
        ids = job_id, tx.arrival.insert_invoice(job, job_id)
    # SQLite's clock counts milliseconds, and an upload takes less: uploads a test makes one
    # after the other are stamped one after the other, so "newest first" has one answer.
    time.sleep(CLOCK_TICK)
    return ids


def upload(store, caller: Caller, tag: str, **kw) -> tuple[str, str]:
    return arrive(store, new_job(caller, tag, **kw))


def opening() -> CallOpening:
    return CallOpening(new_id("call"), "extract_invoice", PRICE, provider="rules",
                       model="test-m1", cost_basis="flat")


def claim(store, owner: str, lease: float = LEASE, versions=VERSIONS):
    with store.db.transaction(write=True, single_statement=True) as tx:
        opened = opening()
        job = tx.claims.claim_and_start(owner, lease, versions.label, opened)
    return (job, opened) if isinstance(job, ClaimedJob) else (job, None)


def publish(store, job: ClaimedJob, opened: CallOpening, number: str = "INV-1", *,
            result_id: str | None = None, record_in_cache: bool = True, progress=None,
            review: bool = False, values: dict | None = None) -> bool:
    """Publish the extraction of invoice `number`, asking for review when `review`, with
    other `values` of fields than tests.fakes.document's."""
    extracted = document(job.content_hash, number)
    extracted["review"]["required"] = review
    for name, value in (values or {}).items():
        extracted["fields"][name]["value"] = value
    with store.db.transaction(write=True, single_statement=True) as tx:
        return tx.claims.publish_and_finish(
            job, opened.of(job), extracted, result_id=result_id or new_id("res"),
            record_in_cache=record_in_cache, progress=progress)


def read(store, caller: Caller, invoice_id: str) -> dict | None:
    with store.db.transaction(write=False) as tx:
        return tx.invoices.get(caller, caller.account or "", invoice_id)


def completed(store, caller: Caller, tag: str, number: str = "INV-1", *,
              review: bool = False, values: dict | None = None) -> tuple[str, str]:
    """An uploaded invoice whose extraction published (and became the cache's entry)."""
    job_id, invoice_id = upload(store, caller, tag)
    job, opened = claim(store, "w")
    assert job.claim.job_id == job_id and publish(store, job, opened, number, review=review,
                                                  values=values)
    return job_id, invoice_id
