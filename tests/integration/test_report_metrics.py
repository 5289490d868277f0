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
from ledgerline.adapters.db.tables import invoices, jobs, webhook_deliveries
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


def test_queue_depth_and_the_oldest_job_of_each_state_come_from_the_database(env):
    services, client, upload = env
    assert value(scrape(client), "ledgerline_queue_depth", state="pending") == 0
    first = upload("q1").json["id"]
    second = upload("q2").json["id"]
    upload("q2")  # joins q2: waits on its leader, not in the queue
    upload("q3")
    with transaction(services.engine, write=True) as conn:
        def job_of(invoice_id):
            return conn.execute(select(invoices.c.job_id)
                                .where(invoices.c.id == invoice_id)).scalar()
        # q1 arrived 100 s ago; q2 waits out a backoff before its next attempt
        conn.execute(update(jobs).where(jobs.c.id == job_of(first))
                     .values(created_at=db_now_plus(-100)))
        conn.execute(update(jobs).where(jobs.c.id == job_of(second))
                     .values(created_at=db_now_plus(-50), run_after=db_now_plus(60)))
    samples = scrape(client)
    assert value(samples, "ledgerline_queue_depth", state="pending") == 2
    assert value(samples, "ledgerline_queue_oldest_age_seconds", state="pending") == (
        pytest.approx(100, abs=2))
    assert value(samples, "ledgerline_queue_depth", state="retrying") == 1
    assert value(samples, "ledgerline_queue_oldest_age_seconds", state="retrying") == (
        pytest.approx(50, abs=2))
    assert value(samples, "ledgerline_queue_depth", state="running") == 0
    assert value(samples, "ledgerline_leases_expired") == 0
    with services.db.transaction(write=True) as tx:  # a worker holds q1 from now on
        assert tx.claims.claim_next("w1", 30, services.extractor.versions.label) is not None
    samples = scrape(client)
    assert value(samples, "ledgerline_queue_depth", state="running") == 1
    assert value(samples, "ledgerline_queue_oldest_age_seconds", state="running") < 5
    assert value(samples, "ledgerline_queue_depth", state="pending") == 1


def test_http_requests_are_counted_by_route_template_and_status(env):
    _services, client, upload = env
    before = scrape(client)
    assert upload("h1").status_code == 202
    assert client.get("/v1/accounts/acme/invoices/inv_nope").status_code == 401
    assert client.get("/no/such/page").status_code == 404
    after = scrape(client)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    upload_labels = dict(method="POST", route="/v1/accounts/{account}/invoices", status="202")
    assert delta("ledgerline_http_requests_total", **upload_labels) == 1
    assert delta("ledgerline_http_request_duration_seconds_count", **upload_labels) == 1
    assert delta("ledgerline_http_request_duration_seconds_bucket", le="+Inf",
                 **upload_labels) == 1
    assert delta("ledgerline_http_requests_total", method="GET", status="401",
                 route="/v1/accounts/{account}/invoices/{invoice_id}") == 1
    assert delta("ledgerline_http_requests_total", method="GET", route="unmatched",
                 status="404") == 1
    assert not any("inv_nope" in str(key) or "/no/such" in str(key) for key in after)


def test_job_attempts_are_counted_and_timed_by_provider_and_outcome(env):
    services, client, upload = env
    before = scrape(client)
    upload("j1")
    while Worker(services).run_once():
        pass
    after = scrape(client)
    labels = dict(provider="rules", outcome="published")
    assert value(after, "ledgerline_job_attempts_total", **labels) - value(
        before, "ledgerline_job_attempts_total", **labels) == 1
    assert value(after, "ledgerline_job_attempt_duration_seconds_count", **labels) - value(
        before, "ledgerline_job_attempt_duration_seconds_count", **labels) == 1


def test_build_info_names_the_release_and_the_extractor(env):
    import platform

    from ledgerline import __version__

    services, client, _ = env
    versions = services.extractor.versions
    assert value(scrape(client), "ledgerline_build_info", version=__version__,
                 python=platform.python_version(), schema=versions.schema,
                 preprocessing=versions.preprocessing, model=versions.model) == 1


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


def test_webhook_deliveries_are_counted_by_outcome_and_timed(make_services):
    from ledgerline.service_layer.webhooks import DeliveryWorker
    from tests.webhook_receiver import FAIL, Receiver, receiving

    services = make_services(extractor=ControlledExtractor(), webhook_allow_networks="127.0.0.1/32",
                             webhook_timeout_seconds=1.0, **EDGE)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    headers = {"Authorization": f"Bearer {tenant.keys['customer']}"}
    before = scrape(client)
    receiver = Receiver(plan=[FAIL])
    with receiving(receiver) as base:
        assert client.post("/v1/accounts/acme/webhooks", headers=headers, json={
            "url": f"{base}/in", "events": ["invoice.completed"]}).status_code == 201
        client.post("/v1/accounts/acme/invoices", data=pdf_bytes("hooked"),
                    headers={**headers, "Content-Type": "application/pdf"})
        while Worker(services).run_once():
            pass
        deliveries = DeliveryWorker(services, name="metrics-deliveries")
        assert deliveries.run_once()  # 500: tried again later
        with transaction(services.engine, write=True) as conn:
            conn.execute(update(webhook_deliveries).values(next_attempt_at=db_now_plus(-1)))
        assert deliveries.run_once()
    after = scrape(client)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("ledgerline_webhook_deliveries_total", outcome="http_error") == 1
    assert delta("ledgerline_webhook_deliveries_total", outcome="delivered") == 1
    assert delta("ledgerline_webhook_delivery_seconds_count") == 2
