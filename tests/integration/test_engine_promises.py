"""The job engine's promises, on every backend: no paid retry loop, idempotent worker writes
after lost acknowledgements, the most recently started extraction stays current, a joiner never
inherits an earlier failure, a failed invoice can be retried on purpose, claims are fair."""
from __future__ import annotations

import hashlib
import threading
import time

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import DataError

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import (blobs, cache_entries, invoices, jobs, model_calls,
                                           results)
from ledgerline.domain.ids import new_id
from ledgerline.domain.jobs import MAX_ATTEMPTS
from ledgerline.extraction.errors import ExtractionError
from ledgerline.http.app import create_app
from ledgerline.ports.database import StoreUnavailable
from ledgerline.ports.jobs import Call, Exhausted
from ledgerline.service_layer import worker as worker_module
from ledgerline.service_layer.report import Days, duplicate_report
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.faults import Faults
from tests.fakes import VERSIONS, ControlledExtractor, pdf_bytes
from tests.integration.test_jobs_and_workers import claim, end_backoffs, expire_leases, ledger


class Env:
    def __init__(self, services, extractor):
        self.services, self.extractor = services, extractor
        self.tenant = make_tenant(services, "acme")
        self.client = create_app(services).test_client()

    def upload(self, tag, role="customer", account="acme", **headers):
        keys = self.tenant.keys
        return self.client.post(f"/v1/accounts/{account}/invoices", data=pdf_bytes(tag),
                                headers={"Authorization": f"Bearer {keys[role]}",
                                         "Content-Type": "application/pdf", **headers})

    def get(self, invoice_id, role="customer"):
        return self.client.get(f"/v1/accounts/acme/invoices/{invoice_id}",
                               headers={"Authorization": f"Bearer {self.tenant.keys[role]}"}).json

    def retry(self, invoice_id, role="customer", **headers):
        return self.client.post(f"/v1/accounts/acme/invoices/{invoice_id}/retry",
                                headers={"Authorization": f"Bearer {self.tenant.keys[role]}",
                                         **headers})

    def work(self):
        while Worker(self.services, name="test-worker").run_once():
            pass

    def scalar(self, query):
        with transaction(self.services.engine, write=False) as conn:
            return conn.execute(query).scalar()


@pytest.fixture
def env(make_services):
    extractor = ControlledExtractor()
    return Env(make_services(extractor=extractor), extractor)


# --- 1. no paid retry loop ------------------------------------------------------------

def test_a_job_whose_worker_keeps_vanishing_fails_after_its_attempts(env):
    lead = env.upload("dies")
    joined = env.upload("dies", role="supplier")
    assert joined.headers["Ledgerline-Cache"] == "joined"
    for attempt in range(1, MAX_ATTEMPTS + 1):  # each claim's worker dies mid-call
        held = claim(env.services, f"w{attempt}")
        assert held.attempts == attempt
        with env.services.db.transaction(write=True) as tx:
            tx.ledger.start_call(Call(new_id("call"), "extract_invoice", held, held.cache_key, 1))
        expire_leases(env.services)
    assert isinstance(claim(env.services, "w-last"), Exhausted)
    assert claim(env.services, "w-after") is None
    for invoice, role in ((lead, "customer"), (joined, "supplier")):
        got = env.get(invoice.json["id"], role)
        assert got["status"] == "failed" and got["error"]["code"] == "attempts_exhausted"
    assert [c.outcome for c in ledger(env.services)] == ["abandoned"] * MAX_ATTEMPTS
    again = env.upload("dies")  # a new arrival starts new work, it does not join the failure
    assert again.headers["Ledgerline-Cache"] == "miss"


def test_transient_failures_stop_after_the_attempts_cap(make_services):
    failures = [ExtractionError("io", "hiccup", transient=True)] * (MAX_ATTEMPTS + 2)
    env = Env(make_services(extractor=ControlledExtractor(failures=failures)), None)
    invoice = env.upload("flaky").json["id"]
    for _ in range(MAX_ATTEMPTS):
        assert Worker(env.services).run_once()
        end_backoffs(env.services)
    assert env.get(invoice)["status"] == "failed" and env.get(invoice)["error"]["code"] == "io"
    assert [c.outcome for c in ledger(env.services)] == ["failed"] * MAX_ATTEMPTS


def test_an_unusable_document_fails_the_job_after_one_call(make_services):
    class Broken(ControlledExtractor):
        def extract(self, path, content_hash, context=None):
            super().extract(path, content_hash)
            return {"source": "text_layer", "fields": "not an object"}

    env = Env(make_services(extractor=Broken()), None)
    invoice = env.upload("broken").json["id"]
    env.work()
    assert env.get(invoice)["error"]["code"] == "invalid_document"
    assert [c.outcome for c in ledger(env.services)] == ["failed"]


def test_a_result_the_database_refuses_fails_the_job_and_never_loops(env):
    def refuse(real, *args, **kwargs):
        raise DataError("INSERT", {}, Exception("value too long"))

    Faults.around(env.services).replace("claims.publish_and_finish", refuse)
    invoice = env.upload("refused").json["id"]
    env.work()
    got = env.get(invoice)
    assert got["status"] == "failed" and got["error"]["code"] == "result_unstorable"
    assert [c.outcome for c in ledger(env.services)] == ["failed"]
    assert claim(env.services, "again") is None


def test_a_bug_in_the_worker_fails_the_job_and_ends_its_call_once(env, monkeypatch):
    def crash(*args, **kwargs):
        raise KeyError("surprise")

    monkeypatch.setattr(worker_module, "conform", crash)
    invoice = env.upload("bug").json["id"]
    env.work()
    assert env.get(invoice)["error"]["code"] == "extraction_error"
    assert [c.outcome for c in ledger(env.services)] == ["failed"]


def test_work_that_never_reached_a_model_costs_nothing_and_is_reported_apart(make_services):
    from ledgerline.adapters.sandbox import Cancelled, Refused

    class Refusing(ControlledExtractor):
        def extract(self, path, content_hash, context=None):
            raise self.failures.pop(0)

    extractor = Refusing(failures=[Refused("pdf_too_large", "500 pages"),
                                   Cancelled(before_start=True)])
    env = Env(make_services(extractor=extractor), None)
    refused = env.upload("big").json["id"]
    Worker(env.services).run_once()
    assert env.get(refused)["error"]["code"] == "pdf_too_large"
    handed_back = env.upload("later").json["id"]
    Worker(env.services).run_once()
    assert env.get(handed_back)["status"] == "pending"
    calls = ledger(env.services)
    assert [(c.outcome, float(c.cost)) for c in calls] == [("refused", 0.0), ("unstarted", 0.0)]
    day = calls[0].started_at.date()
    [report] = duplicate_report(env.services.engine, env.services.settings, Days(day, day))
    [op] = report["operations"]
    assert (op["calls"], op["cost"], op["unbilled_calls"]) == (0, 0.0, 2)


# --- 4. lost acknowledgements ---------------------------------------------------------

def test_a_publish_whose_acknowledgement_was_lost_leaves_the_ledger_exact(env):
    """The publish (the call's end is the same write) commits, then raises as a dropped
    connection would; the worker retries it and recognises its own committed result."""
    invoice = env.upload("acks").json["id"]
    faults = Faults.around(env.services)
    publishes = []

    def publish(real, *args, **kwargs):
        publishes.append(real(*args, **kwargs))
        return publishes[-1]

    faults.replace("claims.publish_and_finish", publish)
    faults.lose_acknowledgement("claims.publish_and_finish")
    assert Worker(env.services, name="w").run_once()
    assert publishes == [True, True]  # the publish, and its retry that found it done
    calls = ledger(env.services)
    assert [(c.outcome, c.fencing_token) for c in calls] == [("published", 1)]
    assert env.get(invoice)["status"] == "completed"
    assert env.scalar(select(func.count()).select_from(results)) == 1
    assert env.scalar(select(func.count()).select_from(cache_entries)) == 1
    assert len(env.extractor.calls) == 1


def test_a_claim_whose_acknowledgement_was_lost_is_handed_back(env):
    env.upload("claim-ack")
    worker = Worker(env.services, name="unsure")
    Faults.around(env.services).lose_acknowledgement("claims.claim_and_start")
    with pytest.raises(StoreUnavailable):
        worker.run_once()
    assert worker.run_once()  # hands its unseen claim back, then claims it properly
    # The unseen claim's call never reached the model: it is ended unstarted, at no cost.
    assert [(c.outcome, float(c.cost)) for c in ledger(env.services)] == [
        ("unstarted", 0.0), ("published", 0.004)]
    assert env.scalar(select(jobs.c.attempts)) == 1


# --- 6. the most recently started extraction is current --------------------------------

def test_a_slow_miss_that_publishes_last_does_not_replace_a_fresh_extraction(make_services):
    gate = threading.Event()

    class FirstIsSlow(ControlledExtractor):
        def extract(self, path, content_hash, context=None):
            if not self.calls:
                self.calls.append(content_hash)
                self.started.set()
                assert gate.wait(30)
                from tests.fakes import document
                return document(content_hash, "SLOW-OLD")
            return super().extract(path, content_hash)

    extractor = FirstIsSlow(invoice_number="FRESH")
    env = Env(make_services(extractor=extractor), extractor)
    env.upload("race")
    slow = threading.Thread(target=Worker(env.services, name="slow").run_once)
    slow.start()
    assert extractor.started.wait(10)
    time.sleep(0.05)  # the fresh extraction starts strictly later
    fresh = env.upload("race", **{"Cache-Control": "no-cache"})
    assert Worker(env.services, name="fresh").run_once()
    gate.set()
    slow.join()
    hit = env.upload("race", role="supplier")
    assert hit.headers["Ledgerline-Cache"] == "hit"
    assert hit.json["extraction"]["fields"]["invoice_number"]["value"] == "FRESH"
    assert env.get(fresh.json["id"])["extraction"]["fields"]["invoice_number"]["value"] == "FRESH"


# --- 7. a joiner never inherits an earlier failure ---------------------------------------

def test_a_failure_committed_while_an_arrival_joins_is_not_inherited(make_services):
    extractor = ControlledExtractor()
    env = Env(make_services(extractor=extractor), extractor)
    env.upload("j")
    held = claim(env.services, "w")
    paused, failed_at, joined_at = threading.Event(), {}, {}
    db = env.services.db

    def slow_leader_lookup(real, *args, **kwargs):
        leader = real(*args, **kwargs)
        paused.set()
        time.sleep(0.5)  # the leader's failure commits meanwhile, if nothing holds it back
        return leader

    def fail_leader():
        assert paused.wait(10)
        with db.transaction(write=True) as tx:
            tx.claims.fail(held.claim, "pdf_malformed", "broken")
        failed_at["t"] = time.monotonic()

    Faults.around(env.services).replace("arrival.inflight_leader", slow_leader_lookup)
    failer = threading.Thread(target=fail_leader)
    failer.start()
    arrival = env.upload("j", role="supplier")
    joined_at["t"] = time.monotonic()
    failer.join()
    if arrival.headers["Ledgerline-Cache"] == "joined":  # it joined work still in flight ...
        assert failed_at["t"] >= joined_at["t"] - 0.05  # ... whose failure came after it
    else:
        assert arrival.headers["Ledgerline-Cache"] == "miss"


# --- 8. a failed invoice can be retried on purpose ---------------------------------------

def test_a_failed_invoice_is_retried_on_purpose_and_idempotently(make_services):
    extractor = ControlledExtractor(failures=[ExtractionError("pdf_malformed", "broken xref")])
    env = Env(make_services(extractor=extractor), extractor)
    invoice = env.upload("retry-me", role="supplier").json["id"]
    joined = env.upload("retry-me").json["id"]
    env.work()
    assert env.get(invoice, "supplier")["status"] == "failed"

    assert env.retry(invoice, "dashboard").status_code == 403
    assert env.retry(invoice, "supplier2").status_code == 404
    first = env.retry(invoice, "supplier", **{"Idempotency-Key": '"again-1"'})
    assert first.status_code == 202, first.json
    assert first.json["id"] == invoice and first.json["status"] == "pending"
    assert first.headers["Ledgerline-Cache"] == "miss"
    replay = env.retry(invoice, "supplier", **{"Idempotency-Key": '"again-1"'})
    assert replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true"
    assert env.retry(invoice, "customer").status_code == 409  # under way: not failed now
    env.work()
    done = env.get(invoice, "supplier")
    assert done["status"] == "completed" and done["error"] is None
    assert env.get(joined)["status"] == "failed"  # the other caller's upload keeps its failure
    conflict = env.retry(invoice, "supplier")
    assert conflict.status_code == 409 and conflict.json["code"] == "invoice_not_failed"
    reused = env.retry(joined, "customer", **{"Idempotency-Key": '"again-1"'})
    assert reused.status_code in (201, 202)  # keys are per caller: the customer's is new
    assert reused.headers["Ledgerline-Cache"] == "hit"  # served by the retried extraction
    assert env.get(joined)["status"] == "completed"
    assert len(extractor.calls) == 2
    day = ledger(env.services)[0].started_at.date()
    [report] = duplicate_report(env.services.engine, env.services.settings, Days(day, day))
    assert (report["requests"]["total"], report["requests"]["retries"]) == (2, 2)


# --- 9. fair claims ----------------------------------------------------------------------

def test_one_accounts_backlog_does_not_starve_another(make_services):
    env = Env(make_services(extractor=ControlledExtractor()), None)
    other = make_tenant(env.services, "globex")
    for i in range(20):
        env.upload(f"backlog-{i}")
    first = claim(env.services, "w")
    assert first.account == "acme"
    env.client.post("/v1/accounts/globex/invoices", data=pdf_bytes("one"), headers={
        "Authorization": f"Bearer {other.keys['customer']}", "Content-Type": "application/pdf"})
    assert claim(env.services, "w").account == "globex"  # next, not after acme's backlog
    assert {claim(env.services, "w").account for _ in range(5)} == {"acme"}


def test_two_backlogs_alternate(make_services):
    env = Env(make_services(extractor=ControlledExtractor()), None)
    other = make_tenant(env.services, "globex")
    for i in range(6):
        env.upload(f"a-{i}")
        env.client.post("/v1/accounts/globex/invoices", data=pdf_bytes(f"g-{i}"), headers={
            "Authorization": f"Bearer {other.keys['customer']}",
            "Content-Type": "application/pdf"})
    order = [claim(env.services, "w").account for _ in range(12)]
    assert all(order[i] != order[i + 1] for i in range(0, 12, 2)), order


def test_invoice_and_job_share_their_database_time(env):
    invoice = env.upload("time").json
    with transaction(env.services.engine, write=False) as conn:
        row = conn.execute(select(invoices.c.created_at, jobs.c.created_at.label("job_at"))
                           .join(jobs, jobs.c.id == invoices.c.job_id)).one()
    assert row.created_at == row.job_at
    assert invoice["created_at"].startswith(str(row.created_at.date()))


def test_versions_and_digest_are_bound_to_the_job_and_the_document(env):
    invoice = env.upload("v").json["id"]
    assert env.scalar(select(jobs.c.extractor_versions)) == VERSIONS.label
    env.work()
    versions = env.get(invoice)["extraction"]["versions"]
    assert versions["config"] == VERSIONS.model_config_digest
    assert env.scalar(select(model_calls.c.request_hash)) == env.scalar(select(jobs.c.cache_key))


def test_an_attempt_whose_original_is_gone_is_ledgered_unstarted_at_no_cost(env):
    """The claim opens the call before the original is fetched; a fetch that finds nothing
    ends it `unstarted` (cost 0, reported apart) and fails the job once."""
    invoice = env.upload("gone").json["id"]
    with transaction(env.services.engine, write=True) as conn:
        key = conn.execute(select(blobs.c.storage_key)).scalar()
    env.services.store.delete(key)
    env.work()
    assert env.get(invoice)["error"]["code"] == "original_missing"
    assert [(c.outcome, float(c.cost)) for c in ledger(env.services)] == [("unstarted", 0.0)]
    assert env.extractor.calls == []


def test_an_original_whose_stored_bytes_were_damaged_is_refused_and_never_extracted(
        env, tmp_path):
    """The fetch hashes what the store hands back: other bytes under the original's key fail
    the job at once, unbilled, without a model ever seeing them."""
    invoice = env.upload("damaged").json["id"]
    with transaction(env.services.engine, write=True) as conn:
        key = conn.execute(select(blobs.c.storage_key)).scalar()
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(pdf_bytes("something else"))
    env.services.store.put_file(key, str(damaged), hashlib.sha256(damaged.read_bytes()).digest())
    env.work()
    failed = env.get(invoice)
    assert (failed["status"], failed["error"]["code"]) == ("failed", "original_corrupt")
    assert "content hash" in failed["error"]["message"]
    assert [(c.outcome, float(c.cost)) for c in ledger(env.services)] == [("unstarted", 0.0)]
    assert env.extractor.calls == []


def test_a_damaged_original_is_repaired_by_uploading_the_file_again(env, tmp_path):
    """The failure makes the stored original's row stop vouching for it and deletes the wrong
    bytes: the same file uploaded again is stored afresh, and its job extracts it, billed
    once."""
    first = env.upload("repaired").json["id"]
    key = env.scalar(select(blobs.c.storage_key))
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(pdf_bytes("something else"))
    env.services.store.put_file(key, str(damaged), hashlib.sha256(damaged.read_bytes()).digest())
    env.work()
    assert env.get(first)["error"]["code"] == "original_corrupt"
    assert not env.services.store.exists(key)  # nobody downloads the wrong bytes
    again = env.upload("repaired", role="supplier")
    assert again.status_code == 202 and again.headers["Ledgerline-Cache"] == "miss"
    env.work()
    assert env.get(again.json["id"], "supplier")["status"] == "completed"
    assert len(env.extractor.calls) == 1
    assert sorted((c.outcome, float(c.cost) > 0) for c in ledger(env.services)) == [
        ("published", True), ("unstarted", False)]
    file = env.client.get(f"/v1/accounts/acme/invoices/{first}/file",
                          headers={"Authorization": f"Bearer {env.tenant.keys['customer']}"})
    assert file.status_code == 200 and file.data == pdf_bytes("repaired")


def test_a_missing_original_is_stored_again_by_the_next_upload_of_the_file(env):
    first = env.upload("vanished").json["id"]
    env.services.store.delete(env.scalar(select(blobs.c.storage_key)))
    env.work()
    assert env.get(first)["error"]["code"] == "original_missing"
    again = env.upload("vanished")
    env.work()
    assert env.get(again.json["id"])["status"] == "completed"
    assert len(env.extractor.calls) == 1


def test_an_upload_whose_original_was_purged_meanwhile_stores_it_again(env):
    """The invoices -> blobs foreign key turns the race into a second write, never a dangling
    record."""
    first = env.upload("purged").json["id"]
    services, removed = env.services, {}

    def look_then_lose(real, account, content_hash):
        found = real(account, content_hash)
        if found is not None and not removed:  # it trusted the row; now a purge removes it
            with transaction(services.engine, write=True) as conn:
                conn.execute(invoices.delete())
                conn.execute(jobs.delete())
                key = conn.execute(blobs.delete().returning(blobs.c.storage_key)).scalar()
            services.store.delete(key)
            removed["key"] = key
        return found

    Faults.around(services).replace("arrival.blob_key", look_then_lose)
    second = env.upload("purged", role="supplier")
    assert second.status_code == 202 and second.json["id"] != first
    assert env.services.store.exists(removed["key"])
    env.work()
    assert env.get(second.json["id"], "supplier")["status"] == "completed"
