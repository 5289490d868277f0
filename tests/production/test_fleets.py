"""Fleets as they really run: a rolling deploy with API and workers on different extractor
configurations, hosts whose clocks are minutes off, and one account's backlog beside another's
single upload. Real gunicorn and worker processes on PostgreSQL + S3."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ledgerline.extraction import model_config_digest
from tests.production.cluster import owner_pid, text_layer_pdfs, variant, wait_for
from tests.production.conftest import LEASE_SECONDS

pytestmark = [pytest.mark.integration, pytest.mark.slow]

WITH_XML, WITHOUT_XML = {"LEDGERLINE_EMBEDDED_XML": "1"}, {"LEDGERLINE_EMBEDDED_XML": "0"}
SKEW_SHIM = Path(__file__).resolve().parent / "clock_skew"
SKEW_SECONDS = 600


def digest_of(env: dict) -> str:
    return model_config_digest(use_embedded_xml=env["LEDGERLINE_EMBEDDED_XML"] == "1")


def configs_of_results(production) -> list[tuple[str, str]]:
    """(config digest in the stored document, versions the job was keyed with) per result."""
    rows = production.sql("SELECT r.document, j.extractor_versions FROM results r "
                          "JOIN jobs j ON j.id = r.job_id")
    return [(json.loads(r.document)["versions"]["config"], r.extractor_versions) for r in rows]


def test_a_rolling_deploy_never_serves_a_result_made_under_another_configuration(production):
    files = [p.read_bytes() for p in text_layer_pdfs(embedded_xml=True)[:4]]
    production.start_api(2, env=WITH_XML)
    other = production.start_worker(env=WITHOUT_XML)  # a worker of the other configuration
    first = [production.upload(f).json()["id"] for f in files]
    time.sleep(2 * float(LEASE_SECONDS))
    assert production.scalar("SELECT count(*) FROM model_calls") == 0  # it claims none of them
    production.start_worker(env=WITH_XML)
    production.wait_all_finished(timeout=90)
    assert all(production.get(f"/v1/accounts/acme/invoices/{i}").json()["status"] == "completed"
               for i in first)

    # The API moves to the other configuration: its uploads of the same files are new work
    # (another cache key), made by the worker of that configuration, and then its hits.
    production.api.terminate()
    production.start_api(2, env=WITHOUT_XML)
    second = [production.upload(f, Prefer="wait=60") for f in files]
    assert {r.headers["Ledgerline-Cache"] for r in second} == {"miss"}
    hits = [production.upload(f, role="supplier") for f in files]
    assert {r.headers["Ledgerline-Cache"] for r in hits} == {"hit"}
    for response in second + hits:
        assert response.json()["extraction"]["versions"]["config"] == digest_of(WITHOUT_XML)
    for config, versions in configs_of_results(production):
        assert versions.endswith("/" + config)  # made under the configuration it was keyed with
    workers = {owner_pid(c.worker) for c in production.model_calls()}
    assert other.pid in workers and len(workers) == 2
    assert len(production.model_calls()) == 2 * len(files)


def skewed(seconds: int) -> dict:
    path = os.pathsep.join(p for p in (str(SKEW_SHIM), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, "LEDGERLINE_TEST_CLOCK_SKEW_SECONDS": str(seconds)}


def test_hosts_with_skewed_clocks_neither_steal_leases_nor_hide_new_work(production, long_pdf):
    ahead, behind = skewed(SKEW_SECONDS), skewed(-SKEW_SECONDS)
    probe = subprocess.run([sys.executable, "-c", "from datetime import datetime, timezone; "
                            "print(datetime.now(timezone.utc).timestamp())"],
                           env={**os.environ, **ahead}, capture_output=True, text=True)
    assert float(probe.stdout) - time.time() > SKEW_SECONDS - 30  # the skew is real

    # An API whose clock is ten minutes behind: its uploads must be claimable at once.
    production.start_api(1, env=behind)
    healthy = production.start_worker()
    response = production.upload(long_pdf)
    job = production.job_of(response.json()["id"])
    assert production.wait_for_owner(job.id, timeout=15) == healthy.pid

    # A worker whose clock is ten minutes ahead must not take the healthy worker's lease.
    thief = production.start_worker(env=ahead)
    small = production.upload(variant(text_layer_pdfs()[0].read_bytes(), "skew"))
    done = production.wait_for_job(job.id, "completed", timeout=120)
    assert done.fencing_token == 1 and done.attempts == 1
    calls = production.sql("SELECT worker, outcome FROM model_calls WHERE job_id = :id",
                           id=job.id)
    assert [(owner_pid(c.worker), c.outcome) for c in calls] == [(healthy.pid, "published")]
    production.wait_all_finished(timeout=60)
    small_job = production.job_of(small.json()["id"])
    assert small_job.status == "completed" and small_job.fencing_token == 1
    assert thief.alive()


def test_one_accounts_backlog_does_not_starve_another_accounts_upload(production, long_pdf):
    production.start_api(2)
    production.start_worker()
    other = production.create_tenant("globex")
    backlog = [production.upload(variant(long_pdf, f"b-{i}")) for i in range(100)]
    assert all(r.status_code == 202 for r in backlog)
    # How long one of the backlog's jobs takes, from the first that finished.
    first = wait_for(lambda: production.sql(
        "SELECT started_at, finished_at FROM model_calls WHERE finished_at IS NOT NULL "
        "ORDER BY id LIMIT 1"), "a backlog job to finish", timeout=120)[0]
    one_job = (first.finished_at - first.started_at).total_seconds()

    uploaded = production.scalar("SELECT timezone('UTC', statement_timestamp())")
    single = production.upload(variant(long_pdf, "a-1"), account="globex", keys=other)
    mine = production.job_of(single.json()["id"])
    began = wait_for(lambda: production.scalar(
        "SELECT started_at FROM model_calls WHERE job_id = :id", id=mine.id),
        "the other account's job to start", timeout=10 * one_job + 30)
    waited = (began - uploaded).total_seconds()
    print(f"one backlog job takes {one_job:.1f} s; the other account's job waited {waited:.1f} s")
    assert waited <= 1.5 * one_job + 2, (waited, one_job)
    done_before = production.scalar(
        "SELECT count(*) FROM model_calls WHERE account = 'acme' AND started_at < :t", t=began)
    pending = production.scalar("SELECT count(*) FROM jobs WHERE account = 'acme' "
                                "AND status = 'pending'")
    assert pending > 50, (done_before, pending)  # it did not wait for the backlog
