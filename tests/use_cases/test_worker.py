"""The worker: retries and their backoff by the clock, failures that are final, work that never
reached a model, a lost lease, a database that goes away while a result is published, and a
shutdown that hands the job back."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from ledgerline.domain.jobs import MAX_ATTEMPTS, retry_delay
from ledgerline.extraction.errors import ExtractionError
from ledgerline.ports.database import StoreUnavailable
from ledgerline.ports.extractor import Cancelled, Refused, Throttled
from ledgerline.ports.storage import StorageUnavailable
from ledgerline.service_layer.worker import STORAGE_BACKOFF_SECONDS, Shutdown, Worker
from tests.faults import Faults
from tests.fakes import ControlledExtractor


def ledger(m) -> list[tuple[str, float]]:
    return [(call.outcome, float(call.cost)) for call in m.rows("calls")]


def status(m, upload) -> tuple[str, str | None]:
    job = m.job(upload.job_id)
    return job.status, job.error_code


def test_transient_failures_are_retried_after_their_backoff_up_to_the_attempts_cap(memory):
    failures = [ExtractionError("io", "hiccup", transient=True)] * (MAX_ATTEMPTS + 2)
    m = memory(ControlledExtractor(failures=failures))
    upload = m.upload(m.tenant("acme")["customer"], "flaky")
    worker = Worker(m.services)
    for attempt in range(1, MAX_ATTEMPTS):
        assert worker.run_once()
        assert status(m, upload) == ("pending", "io")
        m.clock.advance(retry_delay(attempt) - 0.01)
        assert not worker.run_once()  # not before its backoff
        m.clock.advance(0.02)
    assert worker.run_once()
    assert status(m, upload) == ("failed", "io")
    assert ledger(m) == [("failed", 0.004)] * MAX_ATTEMPTS
    assert len(m.extractor.calls) == MAX_ATTEMPTS


def test_a_permanent_failure_ends_the_job_after_one_call(app):
    m = app(ControlledExtractor(failures=[ExtractionError("pdf_encrypted", "a password")]))
    upload = m.upload(m.tenant("acme")["customer"], "locked")
    assert m.work() == 1
    assert status(m, upload) == ("failed", "pdf_encrypted")
    assert ledger(m) == [("failed", 0.004)]


def test_work_that_never_reached_a_model_costs_nothing(app):
    class Refusing(ControlledExtractor):
        def extract(self, path, content_hash, context=None):
            raise self.failures.pop(0)

    m = app(Refusing(failures=[Refused("pdf_too_large", "500 pages"),
                                  Cancelled(before_start=True)]))
    customer = m.tenant("acme")["customer"]
    refused = m.upload(customer, "big")
    Worker(m.services).run_once()
    handed_back = m.upload(customer, "later")
    Worker(m.services).run_once()
    assert status(m, refused) == ("failed", "pdf_too_large")
    assert m.job(handed_back.job_id).status == "pending"
    assert m.job(handed_back.job_id).attempts == 0  # it never started: not an attempt
    assert ledger(m) == [("refused", 0.0), ("unstarted", 0.0)]


def test_a_throttled_call_waits_the_providers_backoff_and_is_not_an_attempt(memory):
    m = memory(ControlledExtractor(failures=[Throttled("provider_throttled", "429",
                                                       transient=True)]))
    upload = m.upload(m.tenant("acme")["customer"], "busy")
    worker = Worker(m.services)
    assert worker.run_once()
    job = m.job(upload.job_id)
    assert (job.status, job.attempts, job.error_code) == ("pending", 0, "provider_throttled")
    assert job.run_after > m.clock.now() and worker._backoff > 0
    assert ledger(m) == [("throttled", 0.0)]
    m.clock.advance(worker._backoff + 0.01)
    assert worker.run_once() and status(m, upload) == ("completed", None)


def test_a_store_that_is_away_hands_the_job_back_and_pauses_the_worker(memory):
    m = memory()
    upload = m.upload(m.tenant("acme")["customer"], "unreachable")
    real = m.services.store

    class Away:
        def get_to_file(self, key, dest):
            raise StorageUnavailable("S3 did not answer")

    m.services.store = Away()
    worker = Worker(m.services)
    assert worker.run_once()
    job = m.job(upload.job_id)
    assert (job.status, job.attempts, job.error_code) == ("pending", 0, "storage_unavailable")
    assert worker._backoff == STORAGE_BACKOFF_SECONDS and ledger(m) == [("unstarted", 0.0)]
    m.services.store = real
    m.clock.advance(STORAGE_BACKOFF_SECONDS + 0.01)
    assert worker.run_once() and status(m, upload) == ("completed", None)


def test_a_worker_that_lost_its_lease_publishes_nothing_and_its_call_is_paid(memory):
    gate = threading.Event()
    m = memory(ControlledExtractor(gate=gate))
    upload = m.upload(m.tenant("acme")["customer"], "fenced")
    with ThreadPoolExecutor(1) as pool:
        stale = pool.submit(Worker(m.services, name="stale").run_once)
        assert m.extractor.started.wait(10)  # inside its model call, it stalls past its lease
        db, row = m.services.db, m.job(upload.job_id)
        db.tables.jobs[row.id] = replace(row, lease_expires_at=db.now())  # type: ignore
        m.services.extractor = ControlledExtractor(invoice_number="RESCUED")
        assert Worker(m.services, name="rescuer").run_once()
        gate.set()
        assert stale.result(10)
    assert [(c.worker, c.fencing_token, c.outcome) for c in m.rows("calls")] == [
        ("stale", 1, "discarded"), ("rescuer", 2, "published")]
    [result] = m.rows("results")
    assert result.id == m.job(upload.job_id).result_id and '"RESCUED"' in result.document


def test_a_publish_waits_out_a_database_outage_within_its_lease(memory):
    m = memory()
    upload = m.upload(m.tenant("acme")["customer"], "outage")
    outages = []

    def away_twice(real, *args, **kwargs):
        if len(outages) < 2:
            outages.append(m.clock.monotonic())
            raise StoreUnavailable("no answer")
        return real(*args, **kwargs)

    Faults.around(m.services).replace("claims.publish_and_finish", away_twice)
    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(Worker(m.services).run_once)
        m.clock.waiting(2)  # the worker's pause after the outage, and its lease keeper
        m.clock.advance(0.1)
        m.clock.waiting()  # its pause after the second: the backoff doubles
        m.clock.advance(0.2)
        assert done.result(10)
    assert outages == [0.0, pytest.approx(0.1)]
    assert status(m, upload) == ("completed", None) and ledger(m) == [("published", 0.004)]


def test_a_result_the_database_refuses_fails_the_job_and_never_loops(app):
    m = app()
    upload = m.upload(m.tenant("acme")["customer"], "refused")

    def refuse(real, *args, **kwargs):
        raise ValueError("value too long")

    Faults.around(m.services).replace("claims.publish_and_finish", refuse)
    assert m.work() == 1
    assert status(m, upload) == ("failed", "result_unstorable")
    assert ledger(m) == [("failed", 0.004)]


def test_a_shutdown_lets_the_job_finish_within_its_grace_then_hands_it_back(memory):
    gate = threading.Event()
    m = memory(ControlledExtractor(gate=gate))
    upload = m.upload(m.tenant("acme")["customer"], "shutdown")
    shutdown = Shutdown([m.extractor], grace=10, clock=m.clock)
    worker = threading.Thread(target=Worker(m.services).run, args=(shutdown.stop,))
    worker.start()
    assert m.extractor.started.wait(10)
    shutdown.request()  # no claim after this; the job in hand may finish for 10 s
    m.clock.advance(9.9)
    assert not m.extractor.cancelled.is_set()
    m.clock.advance(0.1)  # the grace is over: its extraction is cancelled
    assert m.extractor.cancelled.is_set()
    gate.set()
    worker.join(10)
    assert not worker.is_alive() and status(m, upload) == ("completed", None)
    shutdown.done()
