"""S3 or PostgreSQL going away under a running cluster: refusals are clean 503s with nothing
recorded, readiness says so, and everything resumes by itself when the server is back.

These tests stop and start servers, so they get their own (not the session's)."""
from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.conftest import migrated_postgres, s3_with_bucket
from tests.e2e.service import SPAWNED_OCR
from tests.production.cluster import cluster, text_layer_pdfs, variant, wait_for
from tests.production.conftest import LEASE_SECONDS

pytestmark = [pytest.mark.integration, pytest.mark.slow]

BUCKET = "ledgerline-outage"
TEMPLATE = "outage_template"


@pytest.fixture(scope="module")
def own_pg():
    with migrated_postgres(TEMPLATE) as pg:
        yield pg


@pytest.fixture(scope="module")
def own_s3():
    with s3_with_bucket(BUCKET) as s3:
        yield s3


@pytest.fixture
def outage_cluster(own_pg, own_s3, tmp_path):
    with cluster(own_pg, own_s3, BUCKET, tmp_path / "cluster", template=TEMPLATE,
                 LEDGERLINE_LEASE_SECONDS=LEASE_SECONDS, **SPAWNED_OCR) as c:
        c.create_tenant()
        yield c
        if not own_s3.is_running():
            own_s3.start()
        if not own_pg.is_running():
            own_pg.start()


def counts(c) -> tuple:
    return tuple(c.scalar(f"SELECT count(*) FROM {table}")
                 for table in ("jobs", "invoices", "blobs", "model_calls"))


def readyz(c) -> requests.Response:
    return requests.get(f"{c.base}/readyz", timeout=10)


def timed(fn):
    started = time.monotonic()
    result = fn()
    return result, time.monotonic() - started



def test_s3_down_refuses_uploads_with_503_and_service_resumes_when_it_returns(
        outage_cluster, own_s3):
    c = outage_cluster
    c.start_api(2)
    worker = c.start_worker()
    pdfs = [p.read_bytes() for p in text_layer_pdfs()[:4]]
    assert c.upload(pdfs[0], Prefer="wait=30").status_code == 201
    # A job accepted just before the outage, whose original the worker must still fetch.
    worker.signal(signal.SIGSTOP)
    accepted = c.upload(pdfs[1])
    assert accepted.status_code == 202
    api_pids = c.api_pids()
    before = counts(c)

    own_s3.stop()
    worker.signal(signal.SIGCONT)
    refusals = [timed(lambda i=i: c.upload(variant(pdfs[2], f"outage-{i}"),
                                           **{"Idempotency-Key": f'"outage-{i}"'}))
                for i in range(4)]
    ready, ready_took = timed(lambda: readyz(c))

    for response, took in refusals:
        assert response.status_code == 503, response.text
        assert response.headers["Content-Type"] == "application/problem+json"
        assert took < 5, f"a refusal took {took:.1f}s"
    assert ready.status_code == 503 and ready.json()["checks"]["storage"] != "ok"
    assert ready_took < 5
    assert counts(c)[:3] == before[:3]  # nothing recorded for any refused upload

    time.sleep(2 * float(LEASE_SECONDS))  # the worker meets the outage too, and must not give up
    own_s3.start()
    wait_for(lambda: readyz(c).status_code == 200, "readiness after S3 returned")
    retry = c.upload(variant(pdfs[2], "outage-0"), Prefer="wait=30",
                     **{"Idempotency-Key": '"outage-0"'})
    assert retry.status_code == 201, retry.text  # accepted now, not a replay of a refusal
    assert c.api_pids() == api_pids  # no process was restarted
    c.wait_all_finished(timeout=60)
    assert c.scalar("SELECT status FROM jobs j JOIN invoices i ON i.job_id = j.id "
                    "WHERE i.id = :id", id=accepted.json()["id"]) == "completed"
    assert worker.alive()
    assert c.orphans() == []


def test_postgres_restarted_mid_load_every_accepted_job_completes(outage_cluster, own_pg,
                                                                   long_pdf):
    c = outage_cluster
    c.start_api(2)
    workers = [c.start_worker(), c.start_worker()]
    api_pids = c.api_pids()
    # A long extraction in progress when the database goes: its worker must ride it out.
    long_job = c.job_of(c.upload(long_pdf).json()["id"]).id
    c.wait_for_owner(long_job)
    wait_for(lambda: c.sql("SELECT 1 FROM model_calls WHERE job_id = :id", id=long_job),
               "the long extraction to start")
    sources = [p.read_bytes() for p in text_layer_pdfs()[:8]]
    total = 40
    answers: dict[int, list] = {i: [] for i in range(total)}
    restarted = threading.Event()

    def client(i: int) -> None:
        """Upload with a key; on 503 or a dropped connection retry with the same key."""
        time.sleep(i * 0.1)
        body = variant(sources[i % len(sources)], f"pg-{i}")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                response = c.upload(body, timeout=30, **{"Idempotency-Key": f'"pg-{i}"'})
            except requests.ConnectionError as exc:
                answers[i].append(exc)
            else:
                answers[i].append(response.status_code)
                if response.status_code < 300:
                    return
            time.sleep(0.25)

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(client, i) for i in range(total)]
        time.sleep(1.5)
        own_pg.stop("immediate")  # a crash: recovery runs when it starts again
        time.sleep(1.0)
        down = readyz(c)
        own_pg.start()
        restarted.set()
        for future in futures:
            future.result()

    assert down.status_code == 503 and down.json()["checks"]["database"] != "ok"
    statuses = [a for history in answers.values() for a in history]
    assert all(history and history[-1] in (200, 201, 202) for history in answers.values()), answers
    refused = [a for a in statuses if not isinstance(a, int) or a >= 300]
    assert refused, "no upload met the outage; nothing was tested"
    assert all(a == 503 for a in refused if isinstance(a, int)), refused  # never a 500
    assert c.api_pids() == api_pids and all(w.alive() for w in workers)

    c.wait_all_finished(timeout=120)
    assert c.scalar("SELECT count(*) FROM jobs WHERE status <> 'completed'") == 0
    assert c.scalar("SELECT count(*) FROM invoices") == total + 1
    published = c.scalar("SELECT count(*) FROM model_calls WHERE outcome = 'published'")
    leaders = c.scalar("SELECT count(*) FROM jobs WHERE outcome = 'miss'")
    assert published == leaders == total + 1
    assert c.scalar("SELECT count(*) FROM model_calls WHERE job_id = :id AND outcome = "
                    "'published'", id=long_job) == 1
    assert readyz(c).status_code == 200
    assert c.orphans() == []


def test_a_hung_s3_turns_into_503_within_seconds(outage_cluster, own_s3):
    """A store that accepts connections but never answers (paused, overloaded, half-dead)."""
    c = outage_cluster
    c.start_api(1)
    pdf = text_layer_pdfs()[3].read_bytes()
    before = counts(c)
    pid = own_s3._proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        ready, ready_took = timed(lambda: readyz(c))
        refused, refused_took = timed(lambda: c.upload(variant(pdf, "hung"), timeout=60))
    finally:
        os.kill(pid, signal.SIGCONT)
    print(f"hung S3: /readyz answered in {ready_took:.1f}s, an upload in {refused_took:.1f}s")
    assert ready.status_code == 503 and ready_took < 8, ready_took
    assert refused.status_code == 503 and refused_took < 30, refused_took
    assert counts(c) == before
    wait_for(lambda: readyz(c).status_code == 200, "readiness after S3 resumed")
    assert c.upload(variant(pdf, "hung")).status_code == 202  # accepted again (no worker here)


def postgres_pids(pg) -> list[int]:
    """The postmaster and every backend: all of them must stop for the server to hang."""
    master = int((pg.data_dir / "postmaster.pid").read_text().split()[0])
    from tests.production.cluster import children

    return [master, *children(master)]


def test_a_hung_postgres_turns_into_503_within_seconds_and_no_lease_keeper_hangs(
        own_pg, own_s3, tmp_path, long_pdf):
    """A server alive to TCP that answers nothing (SIGSTOP): the client's own deadline ends
    every wait, requests get 503, and a worker whose lease cannot be renewed stops its work."""
    with cluster(own_pg, own_s3, BUCKET, tmp_path / "cluster", template=TEMPLATE,
                 LEDGERLINE_LEASE_SECONDS=LEASE_SECONDS, LEDGERLINE_DB_TIMEOUT_SECONDS="1",
                 **SPAWNED_OCR) as c:
        c.create_tenant()
        c.start_api(1)
        worker = c.start_worker()
        job = c.job_of(c.upload(long_pdf).json()["id"])
        c.wait_for_owner(job.id)
        wait_for(lambda: c.sql("SELECT 1 FROM model_calls WHERE job_id = :id", id=job.id),
                 "the extraction to start")
        stopped = postgres_pids(own_pg)
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        try:
            ready, ready_took = timed(lambda: readyz(c))
            refused, refused_took = timed(lambda: c.upload(variant(long_pdf, "hung"), timeout=60))
            # The keeper cannot renew; once the lease would have run out it stops the work.
            wait_for(lambda: "lease lost" in worker.log(), "the worker to give its lease up",
                     timeout=float(LEASE_SECONDS) + 15)
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
        print(f"hung PostgreSQL: /readyz in {ready_took:.1f}s, an upload in {refused_took:.1f}s")
        assert ready.status_code == 503 and ready_took < 8, ready_took
        assert refused.status_code == 503 and refused_took < 15, refused_took
        done = c.wait_for_job(job.id, "completed", timeout=120)
        assert done.fencing_token >= 2  # taken over after the lease ran out
        assert c.scalar("SELECT count(*) FROM model_calls WHERE job_id = :id AND outcome = "
                        "'published'", id=job.id) == 1
        assert worker.alive()
        wait_for(lambda: readyz(c).status_code == 200, "readiness after PostgreSQL resumed")
