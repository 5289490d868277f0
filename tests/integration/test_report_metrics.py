"""Prometheus metrics on /metrics: counters from the upload path and the worker, queue
gauges read from the database, and counters summed across processes under gunicorn."""
from __future__ import annotations

import subprocess
import sys

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select, update

from ledgerline.adapters.db.clock import db_now_plus
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import invoices, jobs
from ledgerline.domain.cache import CacheMode
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes

# The metrics token; queue gauges read afresh on every scrape, so each test sees its changes.
EDGE = dict(metrics_token="metrics-token", metrics_snapshot_seconds=0)


def scrape(client) -> dict:
    resp = client.get("/metrics", headers={"Authorization": f"Bearer {EDGE['metrics_token']}"})
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    values = {}
    for family in text_string_to_metric_families(resp.get_data(as_text=True)):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return values


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def env(make_services):
    services = make_services(extractor=ControlledExtractor(), **EDGE)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()

    def upload(tag, **headers):
        return client.post("/v1/accounts/acme/invoices", data=pdf_bytes(tag), headers={
            "Authorization": f"Bearer {tenant.keys['customer']}",
            "Content-Type": "application/pdf", **headers})

    return services, client, upload


def test_uploads_cache_outcomes_and_model_calls_are_counted(env):
    services, client, upload = env
    before = scrape(client)
    assert upload("a", **{"Idempotency-Key": "k1"}).headers["Ledgerline-Cache"] == "miss"
    assert upload("a").headers["Ledgerline-Cache"] == "joined"
    assert upload("a", **{"Idempotency-Key": "k1"}).headers["Idempotent-Replayed"] == "true"
    while Worker(services).run_once():
        pass
    assert upload("a").headers["Ledgerline-Cache"] == "hit"
    assert upload("a", **{"Cache-Control": "no-cache"}).headers["Ledgerline-Cache"] == "bypass"
    while Worker(services).run_once():
        pass
    after = scrape(client)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    for outcome in ("miss", "joined", "hit", "bypass", "replayed"):
        assert delta("ledgerline_uploads_total", outcome=outcome) == 1, outcome
    for result in ("miss", "joined", "hit", "bypass"):
        assert delta("ledgerline_cache_total", result=result) == 1, result
    assert delta("ledgerline_cache_total", result="replayed") == 0
    assert delta("ledgerline_model_calls_started_total") == 2
    assert delta("ledgerline_model_calls_total", outcome="published") == 2
    assert delta("ledgerline_model_cost_usd_total") == pytest.approx(0.008)
    assert delta("ledgerline_extraction_seconds_count") == 2


def test_shadow_mode_counts_would_be_hits(make_services):
    services = make_services(extractor=ControlledExtractor(), cache_mode=CacheMode.SHADOW,
                             **EDGE)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    before = scrape(client)
    for _ in range(2):
        resp = client.post("/v1/accounts/acme/invoices", data=pdf_bytes("s"), headers={
            "Authorization": f"Bearer {tenant.keys['customer']}",
            "Content-Type": "application/pdf"})
        assert resp.headers["Ledgerline-Cache"] == "miss"
    after = scrape(client)
    key = ("ledgerline_cache_would_be_total", (("result", "joined"),))
    assert after.get(key, 0) - before.get(key, 0) == 1


def test_queue_depth_and_the_oldest_waiting_job_come_from_the_database(env):
    services, client, upload = env
    assert value(scrape(client), "ledgerline_queue_depth") == 0
    first = upload("q1").json["id"]
    upload("q2")
    upload("q2")  # joins q2: waits on its leader, not in the queue
    with transaction(services.engine, write=True) as conn:  # q1 arrived 100 s ago
        job_id = conn.execute(select(invoices.c.job_id).where(invoices.c.id == first)).scalar()
        conn.execute(update(jobs).where(jobs.c.id == job_id)
                     .values(created_at=db_now_plus(-100)))
    samples = scrape(client)
    assert value(samples, "ledgerline_queue_depth") == 2
    assert value(samples, "ledgerline_queue_oldest_pending_age_seconds") == pytest.approx(100,
                                                                                          abs=2)
    assert value(samples, "ledgerline_jobs_running") == 0
    assert value(samples, "ledgerline_leases_expired") == 0


def test_counters_are_summed_across_processes(tmp_path):
    """Under gunicorn every process counts in its own files; a scrape adds them up."""
    env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    count = ("from ledgerline import metrics; metrics.UPLOADS.labels('hit').inc(3); "
             "metrics.PUBLISHES_REJECTED.inc()")
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count], env=env, check=True)
    out = subprocess.run([sys.executable, "-c", "from ledgerline import metrics; "
                          "print(metrics.render()[0].decode())"],
                         env=env, check=True, capture_output=True, text=True).stdout
    assert 'ledgerline_uploads_total{outcome="hit"} 6.0' in out
    assert "ledgerline_publishes_rejected_total 2.0" in out
