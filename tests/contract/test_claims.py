"""Claims: one worker at a time, in fair order, fenced by a token raised at every claim; a
worker that lost its claim changes nothing; every write can be retried."""
from __future__ import annotations

from ledgerline.domain.ids import new_id
from ledgerline.domain.jobs import MAX_ATTEMPTS, CacheOutcome
from ledgerline.ports.jobs import ATTEMPTS_EXHAUSTED, ClaimedJob, Exhausted
from tests.contract.steps import GONE, LEASE, arrive, claim, new_job, publish, read, upload
from tests.fakes import VERSIONS


def outcomes(store) -> list[tuple[str, int]]:
    return [(call["outcome"], call["fencing_token"]) for call in store.rows("calls")]


def test_a_claim_raises_the_token_opens_the_call_and_holds_the_job(store):
    customer = store.tenant("acme")["customer"]
    job_id, _ = upload(store, customer, "one")
    job, opened = claim(store, "w1")
    assert isinstance(job, ClaimedJob) and job.claim.job_id == job_id
    assert (job.claim.owner, job.claim.token, job.attempts) == ("w1", 1, 1)
    assert job.storage_key == f"objects/{job.content_hash}"
    [call] = store.rows("calls")
    assert (call["call_id"], call["worker"], call["outcome"], float(call["cost"])) == (
        opened.call_id, "w1", "running", 1.0)
    assert claim(store, "w2") == (None, None)  # held


def test_a_claim_tells_where_the_job_came_from(store):
    """Its invoice, and the request id and trace context of the upload that made it, for the
    attempt's log line and trace; a retry's invoice is the one it retries."""
    customer = store.tenant("acme")["customer"]
    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    _, invoice = arrive(store, new_job(customer, "traced", request_id="req-1",
                                       trace_context=traceparent))
    job, _ = claim(store, "w1")
    assert (job.invoice_id, job.request_id, job.trace_context) == (invoice, "req-1", traceparent)
    with store.db.transaction(write=True) as tx:
        tx.claims.fail(job.claim, "pdf_encrypted", "a password")
        retry_id = tx.arrival.insert_job(new_job(customer, "traced", retry_of=invoice,
                                                 request_id="req-2"),
                                         outcome=CacheOutcome.RETRY, joinable=True)
    job, _ = claim(store, "w1")
    assert (job.claim.job_id, job.invoice_id, job.request_id, job.trace_context) == (
        retry_id, invoice, "req-2", None)


def test_a_worker_claims_only_jobs_keyed_with_its_own_extractor(store):
    upload(store, store.tenant("acme")["customer"], "mine")
    other = VERSIONS.__class__(**{**VERSIONS.__dict__, "model_config_digest": "other"})
    assert claim(store, "w-other", versions=other) == (None, None)
    assert isinstance(claim(store, "w-same")[0], ClaimedJob)


def test_claims_alternate_between_accounts_with_backlogs(store):
    acme, globex = store.tenant("acme")["customer"], store.tenant("globex")["customer"]
    for i in range(3):
        upload(store, acme, f"a-{i}")
    for i in range(3):
        upload(store, globex, f"g-{i}")
    order = [claim(store, "w")[0].account for _ in range(6)]
    assert order == ["acme", "globex"] * 3


def test_a_lease_that_ran_out_is_taken_over_and_the_old_call_abandoned(store):
    upload(store, store.tenant("acme")["customer"], "taken")
    first, _ = claim(store, "w1", lease=GONE)
    second, opened = claim(store, "w2")
    assert second.claim.job_id == first.claim.job_id and second.claim.token == 2
    assert outcomes(store) == [("abandoned", 1), ("running", 2)]
    with store.db.transaction(write=True) as tx:  # the first worker wakes up: nothing is its
        assert tx.claims.renew(first.claim, LEASE) is None
        assert not tx.claims.fail(first.claim, "late", "too late")
        assert not tx.claims.release(first.claim)
    assert not publish(store, first, opened.__class__(new_id("call"), "extract_invoice", 1))
    assert publish(store, second, opened, "RESCUED")


def test_a_job_claimed_max_attempts_times_fails_instead_with_its_joiners(store):
    callers = store.tenant("acme")
    _, invoice = upload(store, callers["customer"], "dies")
    for attempt in range(1, MAX_ATTEMPTS + 1):
        job, _ = claim(store, f"w{attempt}", lease=GONE)
        assert job.attempts == attempt
    exhausted, _ = claim(store, "w-last")
    assert isinstance(exhausted, Exhausted)
    assert claim(store, "w-after") == (None, None)
    shown = read(store, callers["customer"], invoice)
    assert shown["status"] == "failed" and shown["error"]["code"] == ATTEMPTS_EXHAUSTED
    assert [o for o, _ in outcomes(store)] == ["abandoned"] * MAX_ATTEMPTS


def test_renewal_extends_the_lease_by_the_stores_clock(store):
    upload(store, store.tenant("acme")["customer"], "renew")
    job, _ = claim(store, "w1", lease=5)
    with store.db.transaction(write=True) as tx:
        renewed = tx.claims.renew(job.claim, LEASE)
    assert renewed.job_id == job.claim.job_id and renewed.expires_at > job.claim.expires_at


def test_a_publish_completes_the_job_caches_it_and_ends_the_call_once(store):
    customer = store.tenant("acme")["customer"]
    _, invoice = upload(store, customer, "done")
    job, opened = claim(store, "w1")
    result_id = new_id("res")
    assert publish(store, job, opened, "DONE-1", result_id=result_id)
    assert publish(store, job, opened, "DONE-1", result_id=result_id)  # a retry: recognised
    shown = read(store, customer, invoice)
    assert shown["status"] == "completed"
    assert shown["extraction"]["fields"]["invoice_number"]["value"] == "DONE-1"
    assert [r["id"] for r in store.rows("results")] == [result_id]
    assert [e["result_id"] for e in store.rows("cache_entries")] == [result_id]
    assert outcomes(store) == [("published", 1)]
    with store.db.transaction(write=True) as tx:  # the job is over: nothing else ends it
        assert tx.claims.renew(job.claim, LEASE) is None
        assert not tx.claims.fail(job.claim, "late", "late")


def test_a_refused_publish_leaves_no_trace_and_its_call_is_discarded(store):
    customer = store.tenant("acme")["customer"]
    _, invoice = upload(store, customer, "stale")
    stale, stale_call = claim(store, "stale", lease=GONE)
    rescuer, rescuer_call = claim(store, "rescuer")
    assert not publish(store, stale, stale_call, "STALE")
    assert store.rows("results") == [] and store.rows("cache_entries") == []
    assert publish(store, rescuer, rescuer_call, "RESCUED")
    assert outcomes(store) == [("discarded", 1), ("published", 2)]
    shown = read(store, customer, invoice)
    assert shown["extraction"]["fields"]["invoice_number"]["value"] == "RESCUED"


def test_the_cache_keeps_the_extraction_that_started_last(store):
    callers = store.tenant("acme")
    upload(store, callers["customer"], "race")
    slow, slow_call = claim(store, "slow")  # started first ...
    arrive(store, new_job(callers["supplier"], "race", fresh=True), joinable=False,
           outcome=CacheOutcome.BYPASS)
    fresh, fresh_call = claim(store, "fresh")  # ... this one later, and publishes first
    assert publish(store, fresh, fresh_call, "FRESH")
    assert publish(store, slow, slow_call, "SLOW-OLD")
    [entry] = store.rows("cache_entries")
    [fresh_result] = [r for r in store.rows("results") if r["job_id"] == fresh.claim.job_id]
    assert entry["result_id"] == fresh_result["id"]


def test_a_failure_is_final_is_not_cached_and_can_be_retried_as_a_write(store):
    customer = store.tenant("acme")["customer"]
    _, invoice = upload(store, customer, "bad")
    job, _ = claim(store, "w1")
    with store.db.transaction(write=True) as tx:
        assert tx.claims.fail(job.claim, "pdf_malformed", "x" * 5000)
    with store.db.transaction(write=True) as tx:
        assert tx.claims.fail(job.claim, "pdf_malformed", "x" * 5000)  # a retried write
    error = read(store, customer, invoice)["error"]
    assert error["code"] == "pdf_malformed" and len(error["message"]) == 2000
    assert store.rows("cache_entries") == []
    assert claim(store, "w2") == (None, None)


def test_a_job_handed_back_waits_its_delay_and_a_refund_returns_the_attempt(store):
    upload(store, store.tenant("acme")["customer"], "back")
    job, _ = claim(store, "w1")
    with store.db.transaction(write=True) as tx:
        assert tx.claims.release(job.claim, after_seconds=3600, error=("io", "hiccup"),
                                 refund_attempt=True)
    assert claim(store, "w2") == (None, None)  # not before its delay
    [row] = store.rows("jobs")
    assert (row["status"], row["attempts"], row["error_code"]) == ("pending", 0, "io")
    with store.db.transaction(write=True) as tx:
        assert tx.claims.release(job.claim, after_seconds=3600)  # recognised as done


def test_claims_whose_acknowledgement_was_lost_are_handed_back_unstarted(store):
    upload(store, store.tenant("acme")["customer"], "unsure")
    _, opened = claim(store, "unsure")
    with store.db.transaction(write=True) as tx:
        assert tx.claims.release_owned("unsure", opened.call_id) == 1
    [row] = store.rows("jobs")
    assert (row["status"], row["attempts"]) == ("pending", 0)
    [call] = store.rows("calls")
    assert (call["outcome"], float(call["cost"])) == ("unstarted", 0.0)
    again, _ = claim(store, "sure")
    assert again.claim.token == 2 and again.attempts == 1
