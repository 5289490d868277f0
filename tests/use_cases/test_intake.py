"""Intake's decisions: the cache modes, joins and hits (`_decide`), idempotent replays, and
what an outage or a race in the store makes of an upload."""
from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import blake3
import pytest

from ledgerline.domain.cache import CacheMode
from ledgerline.domain.errors import (Forbidden, IdempotencyKeyReused, InvoiceNotFailed,
                                      NotFound, Unavailable)
from ledgerline.domain.jobs import CacheOutcome
from ledgerline.extraction.errors import ExtractionError
from ledgerline.ports.database import Conflict, StoreUnavailable
from ledgerline.ports.storage import original_key
from ledgerline.service_layer import intake
from tests.contract.steps import new_job
from tests.faults import Faults
from tests.fakes import ControlledExtractor, pdf_bytes

MISS, JOINED, HIT, BYPASS = (CacheOutcome.MISS, CacheOutcome.JOINED, CacheOutcome.HIT,
                             CacheOutcome.BYPASS)


def decide(m, caller, tag: str, **kw) -> intake.Decision:
    """`_decide` on the job an upload of pdf_bytes(tag) would make."""
    digest = "blake3:" + blake3.blake3(pdf_bytes(tag)).hexdigest()
    with m.services.db.transaction(write=True) as tx:
        job = new_job(caller, tag, digest=digest, **kw)
        tx.arrival.record_blob(job.account, job.content_hash, "objects/x", 1)
        decision = intake._decide(m.services, tx, job)
        tx.arrival.insert_invoice(job, decision.job_id)
    return decision


@pytest.mark.parametrize("mode, in_flight, cached, expected", [
    (CacheMode.ON, False, False, (MISS, None)),
    (CacheMode.ON, True, False, (JOINED, None)),
    (CacheMode.ON, False, True, (HIT, None)),
    (CacheMode.OFF, False, True, (MISS, None)),          # results are neither served nor kept
    (CacheMode.OFF, True, False, (JOINED, None)),        # but identical work in flight is joined
    (CacheMode.SHADOW, True, False, (MISS, "joined")),   # shadow: only what would have been
    (CacheMode.SHADOW, False, True, (MISS, "hit")),
    (CacheMode.SHADOW, True, True, (MISS, "joined")),
])
def test_the_cache_mode_decides_what_an_upload_attaches_to(app, mode, in_flight, cached,
                                                          expected):
    m = app(cache_mode=mode)
    callers = m.tenant("acme")
    if cached:
        m.upload(callers["customer"], "doc")
        m.work()
    if in_flight:
        m.upload(callers["supplier2"], "doc")
    decision = decide(m, callers["supplier"], "doc")
    assert (decision.outcome, decision.would_be) == expected
    job = m.job(decision.job_id)
    assert (job.outcome, job.would_be) == (expected[0].value, expected[1])
    assert (decision.leader_id is not None) == (expected[0] is JOINED)
    assert job.status == ("completed" if expected[0] is HIT else "pending")


def test_a_fresh_upload_bypasses_the_cache_and_work_in_flight(app):
    m = app()
    callers = m.tenant("acme")
    m.upload(callers["customer"], "doc")
    decision = decide(m, callers["supplier"], "doc", fresh=True)
    assert (decision.outcome, decision.leader_id) == (BYPASS, None)
    assert m.job(decision.job_id).inflight_key is None  # nobody joins a fresh extraction


def test_identical_uploads_make_one_model_call_and_a_hit_writes_no_object(app):
    m = app()
    callers = m.tenant("acme")
    first = m.upload(callers["customer"], "same")
    joined = m.upload(callers["supplier"], "same")
    assert (first.outcome, joined.outcome) == (MISS, JOINED)
    assert m.services.work_available.is_set()
    assert m.work() == 1 and len(m.extractor.calls) == 1
    objects = m.originals()
    hit = m.upload(callers["supplier2"], "same")
    assert hit.outcome is HIT and hit.shown is not None
    assert hit.shown.invoice["status"] == "completed"
    assert m.originals() == objects
    assert len(m.extractor.calls) == 1


def test_a_replay_answers_the_first_operation_and_a_reused_key_is_refused(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    first = m.upload(customer, "keyed", key="k-1")
    again = m.upload(customer, "keyed", key="k-1")
    assert again.replayed and (again.invoice_id, again.job_id) == (first.invoice_id,
                                                                   first.job_id)
    with pytest.raises(IdempotencyKeyReused):
        m.upload(customer, "other bytes", key="k-1")


def test_a_key_taken_between_its_look_and_the_write_is_replayed(app):
    """The write transaction trusts the look before the original's write that no job held
    the key; another upload under it that commits in between wins by the key's constraint."""
    m = app()
    customer = m.tenant("acme")["customer"]
    store, put_file, meanwhile = m.services.store, m.services.store.put_file, []

    def another_upload_first(key, path, sha256):
        if not meanwhile:
            meanwhile.append(None)  # the other upload's own write goes straight through
            meanwhile[0] = m.upload(customer, "keyed", key="k-1")
        return put_file(key, path, sha256)

    store.put_file = another_upload_first
    ours = m.upload(customer, "keyed", key="k-1")
    [theirs] = meanwhile
    assert not theirs.replayed and ours.replayed
    assert (ours.invoice_id, ours.job_id) == (theirs.invoice_id, theirs.job_id)
    assert len(m.rows("jobs")) == 1 and len(m.rows("invoices")) == 1


def test_a_key_past_its_lifetime_starts_a_new_operation(memory):
    m = memory(idempotency_key_ttl=3600)
    customer = m.tenant("acme")["customer"]
    first = m.upload(customer, "keyed", key="k-1")
    m.clock.advance(3601)
    second = m.upload(customer, "other bytes", key="k-1")
    assert not second.replayed and second.invoice_id != first.invoice_id
    assert m.job(first.job_id).idempotency_key is None  # the old job let go of it


def test_only_uploaders_upload_and_only_into_their_account(app):
    m = app()
    acme, globex = m.tenant("acme"), m.tenant("globex")
    with pytest.raises(Forbidden):
        m.upload(acme["dashboard"], "no")
    with pytest.raises(NotFound):
        m.upload(globex["customer"], "no", account="acme")
    assert m.rows("jobs") == []


def test_a_database_outage_accepts_nothing(app):
    m = app()
    customer = m.tenant("acme")["customer"]

    def away(real, *args, **kwargs):
        raise StoreUnavailable("the database did not answer")

    Faults.around(m.services).replace("arrival.insert_job", away)
    with pytest.raises(Unavailable, match="nothing was accepted"):
        m.upload(customer, "lost")
    assert m.rows("jobs") == [] and m.rows("invoices") == []


def test_a_lost_race_is_decided_again_after_a_short_pause(memory):
    m = memory()
    customer = m.tenant("acme")["customer"]
    races = []

    def lose_twice(real, *args, **kwargs):
        if len(races) < 2:
            races.append(m.clock.monotonic())
            raise Conflict("another writer won")
        return real(*args, **kwargs)

    Faults.around(m.services).replace("arrival.insert_job", lose_twice)
    with ThreadPoolExecutor(1) as pool:
        upload = pool.submit(m.upload, customer, "contended")
        m.clock.waiting()  # the pause after the second race lost (the first costs none)
        m.clock.advance(0.005)
        assert upload.result(10).outcome is MISS
    assert races == [0.0, 0.0] and len(m.rows("jobs")) == 1


def test_an_original_purged_between_its_look_and_the_insert_is_stored_again(memory):
    m = memory()
    callers = m.tenant("acme")
    m.upload(callers["customer"], "purged")
    [invoice] = m.rows("invoices")
    key = original_key("acme", invoice.content_hash)
    looks = []

    def purged_after_the_look(real, account, content_hash):
        found = real(account, content_hash)
        if not looks:  # it trusted the row; now a purge removes the file's every trace
            tables = m.services.db.tables  # type: ignore[attr-defined]
            tables.invoices.clear(), tables.jobs.clear(), tables.blobs.clear()
            m.services.store.delete(key)
        looks.append(found)
        return found

    Faults.around(m.services).replace("arrival.blob_key", purged_after_the_look)
    second = m.upload(callers["supplier"], "purged")
    assert second.outcome is MISS and m.services.store.exists(key)
    assert looks[:2] == [key, None]  # trusted, then found gone: stored again


def test_a_failed_invoice_is_retried_on_purpose_and_idempotently(app):
    extractor = ControlledExtractor(failures=[ExtractionError("pdf_malformed", "broken")])
    m = app(extractor)
    supplier = m.tenant("acme")["supplier"]
    failed = m.upload(supplier, "retry-me")
    m.work()
    first = intake.retry(m.services, supplier, "acme", failed.invoice_id, idempotency_key="r")
    replay = intake.retry(m.services, supplier, "acme", failed.invoice_id, idempotency_key="r")
    assert (first.outcome, first.replayed, replay.replayed) == (MISS, False, True)
    with pytest.raises(InvoiceNotFailed):
        intake.retry(m.services, supplier, "acme", failed.invoice_id, idempotency_key=None)
    m.work()
    with m.services.db.transaction(write=False) as tx:
        shown = tx.invoices.get(supplier, "acme", failed.invoice_id)
    assert shown["status"] == "completed" and shown["error"] is None


def test_an_upload_is_spooled_hashed_and_stored_under_its_content_address(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    intake.upload(m.services, customer, "acme", io.BytesIO(pdf_bytes("addressed")),
                  idempotency_key=None, fresh=False)
    [blob] = m.rows("blobs")
    assert blob.content_hash == "blake3:" + blake3.blake3(pdf_bytes("addressed")).hexdigest()
    assert blob.storage_key == original_key("acme", blob.content_hash)
    assert m.services.store.exists(blob.storage_key)
    assert blob.size == len(pdf_bytes("addressed"))
