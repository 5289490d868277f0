"""Arrival: create-or-get of the caller's job and invoice, and the cache hit recorded at once."""
from __future__ import annotations

import json

import pytest

from ledgerline.domain.jobs import CacheOutcome
from ledgerline.ports.database import Conflict
from tests.contract.steps import (arrive, claim, completed, content_hash, new_job, publish,
                                  read, upload)


def test_the_callers_key_names_its_operation_until_it_expires_or_is_forgotten(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    job_id, invoice_id = upload(store, customer, "keyed", key="k-1")
    with store.db.transaction(write=False) as tx:
        found = tx.arrival.job_by_idempotency_key("acme", customer.key_id, "k-1", 3600)
        expired = tx.arrival.job_by_idempotency_key("acme", customer.key_id, "k-1", -1)
        assert tx.arrival.job_by_idempotency_key("acme", callers["supplier"].key_id, "k-1",
                                                 3600) is None
    assert (found.id, found.invoice_id, found.expired) == (job_id, invoice_id, False)
    assert found.request_hash == new_job(customer, "keyed", key="k-1").request_hash
    assert expired.expired
    with store.db.transaction(write=True) as tx:
        tx.arrival.forget_idempotency_key(job_id)
    with store.db.transaction(write=False) as tx:
        assert tx.arrival.job_by_idempotency_key("acme", customer.key_id, "k-1", 3600) is None


def test_before_storing_reads_the_keys_operation_and_the_stored_original_at_once(store):
    customer = store.tenant("acme")["customer"]
    job_id, invoice_id = upload(store, customer, "keyed", key="k-1")
    with store.db.transaction(write=False) as tx:
        both = tx.arrival.before_storing("acme", customer.key_id, "k-1",
                                         content_hash("keyed"), 3600)
        expired = tx.arrival.before_storing("acme", customer.key_id, "k-1",
                                            content_hash("keyed"), -1)
        neither = tx.arrival.before_storing("acme", customer.key_id, "k-2",
                                            content_hash("new"), 3600)
        stored_only = tx.arrival.before_storing("acme", customer.key_id, "k-2",
                                                content_hash("keyed"), 3600)
    assert (both.keyed.id, both.keyed.invoice_id, both.keyed.expired) == (job_id, invoice_id,
                                                                          False)
    assert both.blob_key == f"objects/{content_hash('keyed')}"
    assert expired.keyed.expired
    assert (neither.keyed, neither.blob_key) == (None, None)
    assert stored_only.keyed is None and stored_only.blob_key == both.blob_key


def test_a_rotated_key_finds_its_predecessors_idempotency_keys(store):
    acme = store.tenant("acme")
    supplier, rotated = acme["supplier"], acme["supplier_rotated"]
    job_id, _ = upload(store, supplier, "keyed", key="k-1")
    again = new_job(rotated, "keyed", key="k-1")
    assert again.caller_id == supplier.key_id
    with store.db.transaction(write=False) as tx:
        found = tx.arrival.job_by_idempotency_key("acme", again.caller_id, "k-1", 3600)
    assert found.id == job_id and found.request_hash == again.request_hash


def test_a_key_names_one_operation_and_a_second_is_refused_whole(store):
    customer = store.tenant("acme")["customer"]
    upload(store, customer, "first", key="same")
    with pytest.raises(Conflict):
        upload(store, customer, "second", key="same")
    with store.db.transaction(write=False) as tx:  # nothing of the refused one stayed
        assert tx.arrival.blob_key("acme", content_hash("second")) is None


def test_one_joinable_extraction_per_key_and_arrivals_join_it(store):
    callers = store.tenant("acme")
    leader, _ = upload(store, callers["customer"], "same")
    with pytest.raises(Conflict):
        upload(store, callers["supplier"], "same")
    job = new_job(callers["supplier"], "same")
    with store.db.transaction(write=True) as tx:
        assert tx.arrival.inflight_leader("acme", job.cache_key, joinable_only=True) == leader
        assert tx.arrival.inflight_leader("acme", job.cache_key, joinable_only=False) == leader
        assert tx.arrival.cached_result("acme", job.cache_key) is None
    joined, invoice = arrive(store, job, joinable=False, leader_id=leader,
                             outcome=CacheOutcome.JOINED)
    with store.db.transaction(write=False) as tx:
        progress = tx.invoices.progress(callers["supplier"], "acme", invoice)
    assert joined != leader and (progress.status, progress.work_job_id) == ("pending", leader)


def test_an_invoice_needs_its_original_recorded(store):
    customer = store.tenant("acme")["customer"]
    job = new_job(customer, "unrecorded")
    with pytest.raises(Conflict), store.db.transaction(write=True) as tx:
        tx.arrival.insert_invoice(job, tx.arrival.insert_job(job, outcome=CacheOutcome.MISS))
    with store.db.transaction(write=True) as tx:
        assert tx.arrival.record_blob("acme", job.content_hash, "objects/x", 10)
        assert not tx.arrival.record_blob("acme", job.content_hash, "objects/y", 10)
        assert tx.arrival.blob_key("acme", job.content_hash) == "objects/x"


def test_an_original_recorded_lost_is_written_again_by_the_next_upload(store):
    """The row stays for the invoice that references it, but no longer vouches for the
    object: the next upload writes the file and its record repairs the row."""
    customer = store.tenant("acme")["customer"]
    _, invoice = upload(store, customer, "lost")
    lost = content_hash("lost")
    with store.db.transaction(write=True) as tx:
        key = tx.arrival.blob_key("acme", lost)
        assert key is not None
        assert tx.arrival.mark_blob_lost("acme", lost) == key
        assert tx.arrival.mark_blob_lost("acme", lost) is None  # marked once: deleted once
        assert tx.arrival.mark_blob_lost("acme", content_hash("never stored")) is None
    with store.db.transaction(write=False) as tx:
        assert tx.arrival.blob_key("acme", lost) is None
    assert read(store, customer, invoice) is not None
    with store.db.transaction(write=True) as tx:
        assert tx.arrival.record_blob("acme", lost, "objects/again", 20)
        assert not tx.arrival.record_blob("acme", lost, "objects/other", 20)
        assert tx.arrival.blob_key("acme", lost) == "objects/again"
    assert [(b["storage_key"], b["size"], b["lost_at"]) for b in store.rows("blobs")] == [
        ("objects/again", 20, None)]


def test_a_hit_is_recorded_and_answered_as_a_read_shows_it(store):
    callers = store.tenant("acme")
    _, first = completed(store, callers["customer"], "cached", "HIT-1")
    job = new_job(callers["supplier"], "cached")
    with store.db.hit_transaction() as tx:
        served = tx.arrival.serve_hit(callers["supplier"], job)
    assert served is not None
    shown = read(store, callers["supplier"], served.invoice_id)
    assert served.invoice == {k: v for k, v in shown.items()
                              if k not in ("extraction", "possible_duplicates")}
    assert json.loads(served.document_json) == shown["extraction"]
    assert json.loads(served.duplicates_json) == shown["possible_duplicates"] == []
    customer_view = read(store, callers["customer"], served.invoice_id)  # sees both uploads
    assert customer_view["possible_duplicates"] == [{"id": first, "matched_on": ["content_hash"]}]
    assert customer_view["status"] == "completed"


def test_no_hit_without_an_entry_with_work_in_flight_or_under_a_used_key(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    with store.db.hit_transaction() as tx:
        assert tx.arrival.serve_hit(customer, new_job(customer, "never")) is None
    completed(store, customer, "busy")
    arrive(store, new_job(callers["supplier"], "busy", fresh=True), joinable=False,
           outcome=CacheOutcome.BYPASS)  # a fresh extraction in flight: nobody joins it
    with store.db.hit_transaction() as tx:
        assert tx.arrival.serve_hit(customer, new_job(customer, "busy")) is not None
    upload(store, callers["supplier2"], "keyed", key="k")
    completed_keyed = new_job(callers["supplier2"], "busy", key="k")  # the key names "keyed"
    before = len(store.rows("jobs"))
    with store.db.hit_transaction() as tx:
        assert tx.arrival.serve_hit(callers["supplier2"], completed_keyed) is None
    assert len(store.rows("jobs")) == before


def test_a_hit_waits_for_work_in_flight_on_its_key(store):
    callers = store.tenant("acme")
    completed(store, callers["customer"], "again")
    upload(store, callers["supplier"], "again")  # joinable work on the same key, in flight
    with store.db.hit_transaction() as tx:
        assert tx.arrival.serve_hit(callers["customer"],
                                    new_job(callers["customer"], "again")) is None


def test_a_retry_targets_the_invoices_own_job_and_follows_the_new_attempt(store):
    customer = store.tenant("acme")["customer"]
    job_id, invoice = upload(store, customer, "retry")
    job, _ = claim(store, "w")
    with store.db.transaction(write=True) as tx:
        assert tx.claims.fail(job.claim, "pdf_malformed", "broken")
    with store.db.transaction(write=True) as tx:
        target = tx.arrival.retry_target(invoice)
        assert (target.job_id, target.status) == (job_id, "failed")
        attempt = tx.arrival.insert_job(new_job(customer, "retry", retry_of=invoice),
                                        outcome=CacheOutcome.RETRY, joinable=True)
        tx.arrival.follow(job_id, attempt)
    with store.db.transaction(write=False) as tx:
        assert tx.arrival.retry_target(invoice).status == "pending"
        assert tx.invoices.progress(customer, "acme", invoice).work_job_id == attempt
    retried, opened = claim(store, "w2")
    assert retried.claim.job_id == attempt and publish(store, retried, opened, "AGAIN")
    shown = read(store, customer, invoice)
    assert shown["status"] == "completed" and shown["error"] is None
    assert shown["extraction"]["fields"]["invoice_number"]["value"] == "AGAIN"
