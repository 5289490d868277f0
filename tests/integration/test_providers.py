"""Hosted providers through the real path (upload, worker, ledger, report) against stand-ins that
speak each provider's wire protocol, on both backends: what is charged is what the ledger says."""
from __future__ import annotations

import json
import logging
import math
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pypdfium2
import pytest
from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import cache_entries, jobs, model_calls, shadow_fields
from ledgerline.bootstrap import configured_extractor
from ledgerline.domain.providers import Provider, client_request_token, image_tokens, token_cost
from ledgerline.extraction import MODEL_VERSION
from ledgerline.http.app import create_app
from ledgerline_tools.samples import generate
from ledgerline.service_layer.report import agreement_report, days, duplicate_report
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant, operator_key
from tests.integration.test_jobs_and_workers import end_backoffs
from tests.standins.openai_api import OpenAIStandIn
from tests.standins.server import Fault
from tests.standins.textract import TextractStandIn

API_KEY = "sk-test-standin"
ONE_PAGE = dict(seed=7, lang="en", template="letterhead")
THREE_PAGES = dict(seed=7, lang="en", template="multi_page")


@pytest.fixture
def textract(backend, monkeypatch):
    """boto3's standard configuration pointed at the stand-in (the production backend's S3
    credentials serve for both; the stand-in reads S3 with them, as Textract would)."""
    standin = TextractStandIn(processing_seconds=0.2)
    with standin.running():
        monkeypatch.setenv("AWS_ENDPOINT_URL_TEXTRACT", standin.url)
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        if backend.name == "embedded":
            monkeypatch.setenv("AWS_ACCESS_KEY_ID", "ledgerline")
            monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "ledgerline")
        yield standin


@pytest.fixture
def chat():
    standin = OpenAIStandIn(api_key=API_KEY)
    with standin.running():
        yield standin


def settings_for(kind: str, backend, standin, **more):
    if kind == "openai":
        return backend.settings(provider=Provider.OPENAI, openai_base_url=f"{standin.url}/v1",
                                openai_api_key=API_KEY, openai_model="standin-1", **more)
    return backend.settings(provider=Provider.TEXTRACT, **more)


def upload(client, key, body, **headers):
    return client.post("/v1/accounts/acme/invoices", data=body,
                       headers={"Authorization": f"Bearer {key}",
                                "Content-Type": "application/pdf", **headers})


def ledger(services):
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(model_calls).order_by(model_calls.c.id)).all()


def work(services, times: int = 1):
    worker = Worker(services)
    for _ in range(times):
        assert worker.run_once()
    return worker


def document_of(client, key, invoice_id):
    answer = client.get(f"/v1/accounts/acme/invoices/{invoice_id}",
                        headers={"Authorization": f"Bearer {key}"}).json
    assert answer["status"] == "completed", answer
    return answer["extraction"]


@pytest.fixture(params=["textract", "openai"])
def provider(request):
    kind = request.param
    return kind, request.getfixturevalue("textract" if kind == "textract" else "chat")


def test_upload_hit_replay_and_no_cache_through_each_provider(provider, backend, make_services):
    kind, standin = provider
    pdf, truth = generate(**ONE_PAGE)
    if kind == "textract":
        standin.learn(pdf)  # the embedded backend sends page images
    services = make_services(settings=settings_for(kind, backend, standin))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    customer, supplier = tenant.keys["customer"], tenant.keys["supplier"]

    miss = upload(client, supplier, pdf, **{"Idempotency-Key": '"inv-1"'})
    assert miss.status_code == 202 and miss.headers["Ledgerline-Cache"] == "miss"
    work(services)
    document = document_of(client, supplier, miss.json["id"])
    assert document["versions"]["model"] == services.extractor.versions.model
    assert document["versions"]["model"].startswith(f"{kind}:")
    assert document["fields"]["invoice_number"]["value"] == truth["invoice_number"]
    assert document["source"] == ("ocr" if kind == "textract" else "text_layer")

    hit = upload(client, customer, pdf)
    assert hit.headers["Ledgerline-Cache"] == "hit" and hit.json["status"] == "completed"
    replay = upload(client, supplier, pdf, **{"Idempotency-Key": '"inv-1"'})
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.json["id"] == miss.json["id"]
    assert len(ledger(services)) == 1  # neither the hit nor the replay called the provider

    fresh = upload(client, customer, pdf, **{"Cache-Control": "no-cache"})
    assert fresh.headers["Ledgerline-Cache"] == "bypass"
    work(services)
    assert document_of(client, customer, fresh.json["id"])["fields"]["gross_total"]["value"]

    calls = ledger(services)
    assert [(c.provider, c.outcome, c.cost_basis) for c in calls] == [
        (kind, "published", "usage")] * 2
    charges = standin.tally.as_dict()["charges"]
    assert sum(c.provider_requests for c in calls) == len(charges)
    if kind == "textract":
        assert sum(c.pages for c in calls) == standin.charged_pages() == 2
        assert [float(c.cost) for c in calls] == [0.01, 0.01]  # pages x the default price
    else:
        assert sum(c.input_tokens for c in calls) == sum(c["prompt_tokens"] for c in charges)
        assert sum(c.output_tokens for c in calls) == sum(c["completion_tokens"] for c in charges)
        prices = services.settings
        assert [c.cost for c in calls] == [token_cost(
            c.input_tokens, c.output_tokens, input_per_mtok=prices.openai_price_input_per_mtok,
            output_per_mtok=prices.openai_price_output_per_mtok) for c in calls]
    assert all(c.provider_request_id for c in calls)

    report, = duplicate_report(services.engine, services.settings,
                               days(day=calls[0].started_at.date().isoformat()))
    spend, = report["spend"]
    assert (spend["provider"], spend["calls"]) == (kind, 2)
    assert spend["cost"] == pytest.approx(sum(float(c.cost) for c in calls))
    assert report["operations"][0]["cost"] == pytest.approx(spend["cost"])


def test_a_multi_page_pdf_in_s3_is_one_textract_job_read_through_every_result_page(
        textract, backend, make_services):
    if backend.name != "production":
        pytest.skip("Textract's asynchronous API reads S3 only")
    pdf, truth = generate(**THREE_PAGES)
    services = make_services(settings=settings_for("textract", backend, textract))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    import ledgerline.adapters.providers.textract as textract_module

    original = textract_module.MAX_RESULTS
    textract_module.MAX_RESULTS = 1  # one page of results per GetExpenseAnalysis: paging
    try:
        response = upload(client, tenant.keys["customer"], pdf)
        work(services)
    finally:
        textract_module.MAX_RESULTS = original
    document = document_of(client, tenant.keys["customer"], response.json["id"])
    assert document["document"]["pages"] == 3
    assert document["fields"]["gross_total"]["value"] == f"{truth['gross_total']:.2f}"
    assert document["fields"]["gross_total"]["page"] == 3
    stats = textract.tally.as_dict()
    assert stats["requests"]["StartExpenseAnalysis"] == 1
    assert stats["requests"]["GetExpenseAnalysis"] >= 3  # in progress, then three result pages
    call, = ledger(services)
    job_id = response.json["id"] and call.job_id
    assert call.client_token == client_request_token(job_id, Provider.TEXTRACT)
    assert call.provider_job_id == stats["charges"][0]["job_id"]
    assert (call.pages, float(call.cost)) == (3, 0.03)


def test_a_recovered_textract_job_reuses_its_token_and_is_charged_once(textract, backend,
                                                                       make_services):
    if backend.name != "production":
        pytest.skip("Textract's asynchronous API reads S3 only")
    pdf, _ = generate(**THREE_PAGES)
    services = make_services(settings=settings_for("textract", backend, textract))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    textract.add_fault(Fault(mode="error", operation="GetExpenseAnalysis"))  # a 5xx mid-job
    response = upload(client, tenant.keys["customer"], pdf)
    work(services)  # started the job, then failed transiently: back to the queue
    end_backoffs(services)  # the retry's backoff
    work(services)
    document_of(client, tenant.keys["customer"], response.json["id"])
    first, second = ledger(services)
    assert (first.outcome, second.outcome) == ("failed", "published")
    assert first.provider_job_id == second.provider_job_id is not None
    assert first.client_token == second.client_token
    assert textract.tally.as_dict()["requests"]["StartExpenseAnalysis"] == 2
    assert textract.charged_pages() == 3  # one job, charged once
    assert (float(first.cost), float(second.cost)) == (0.03, 0.0)  # the charge counted once


def test_a_worker_takes_no_job_keyed_for_a_provider_configuration_it_does_not_run(
        chat, backend, make_services):
    pdf, truth = generate(**ONE_PAGE)
    services = make_services(settings=settings_for("openai", backend, chat))
    tenant = make_tenant(services, "acme")
    response = upload(create_app(services).test_client(), tenant.keys["customer"], pdf)
    assert response.status_code == 202
    other_model = backend.settings(provider=Provider.OPENAI, openai_base_url=f"{chat.url}/v1",
                                   openai_api_key=API_KEY, openai_model="standin-2")
    for elsewhere in (configured_extractor(other_model, store=services.store),
                      configured_extractor(backend.settings(), store=services.store)):
        assert not Worker(services, extractor=elsewhere).run_once()
    with transaction(services.engine, write=False) as conn:
        job = conn.execute(select(jobs).where(jobs.c.leader_id.is_(None))).one()
    assert (job.status, job.attempts) == ("pending", 0)
    assert ledger(services) == [] and chat.billed_requests() == 0
    work(services)  # a worker of the configuration the job was keyed with
    assert document_of(create_app(services).test_client(), tenant.keys["customer"],
                       response.json["id"])["fields"]["invoice_number"]["value"] == (
        truth["invoice_number"])


def test_a_vision_model_gets_each_page_image_and_its_tokens_are_billed(chat, backend,
                                                                        make_services):
    pdf, truth = generate(**THREE_PAGES)
    services = make_services(settings=settings_for("openai", backend, chat, openai_vision=True))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    response = upload(client, tenant.keys["customer"], pdf)
    work(services)
    document = document_of(client, tenant.keys["customer"], response.json["id"])
    assert document["fields"]["invoice_number"]["value"] == truth["invoice_number"]
    assert document["document"]["pages"] == 3
    charges = chat.tally.as_dict()["charges"]
    sizes = [c["images"] for c in charges]
    rendered = pypdfium2.PdfDocument(pdf)
    try:  # one page a request, its 150 dpi image with it
        assert sizes == [[[math.ceil(w * 150 / 72), math.ceil(h * 150 / 72)]]
                         for w, h in (page.get_size() for page in rendered)]
    finally:
        rendered.close()
    call, = ledger(services)
    assert (call.input_tokens, call.cost_basis, call.provider_requests) == (
        sum(c["prompt_tokens"] for c in charges), "usage", 3)

    # The same pages as text alone: another configuration, and fewer tokens by exactly the
    # images' at OpenAI's published rate.
    text_only = make_services(settings=settings_for("openai", backend, chat))
    assert text_only.extractor.versions.label != services.extractor.versions.label
    upload(create_app(text_only).test_client(), tenant.keys["supplier"], pdf)
    work(text_only)
    text_charges = chat.tally.as_dict()["charges"][3:]
    assert [c["images"] for c in text_charges] == [[]] * 3
    assert [v["prompt_tokens"] - t["prompt_tokens"] for v, t in zip(charges, text_charges)] == [
        image_tokens(*size) for [size] in sizes]


@pytest.mark.parametrize("code", ["ThrottlingException",
                                  "ProvisionedThroughputExceededException",
                                  "LimitExceededException"])
def test_each_textract_refusal_for_throughput_is_throttling(code, monkeypatch, tmp_path):
    """Through boto3 and the wire protocol: each documented refusal for throughput (with its
    documented status) is throttling, not a failure of the invoice; the next request works."""
    from ledgerline.adapters.providers.base import Throttled
    from ledgerline.adapters.providers.prepare import Prepared, Preparer
    from ledgerline.adapters.providers.textract import TextractProvider
    from ledgerline.config import Settings
    from ledgerline.ports.extractor import CallContext

    pdf, truth = generate(**ONE_PAGE)
    path = tmp_path / "one.pdf"
    path.write_bytes(pdf)
    standin = TextractStandIn()
    standin.learn(pdf)
    with standin.running():
        monkeypatch.setenv("AWS_ENDPOINT_URL_TEXTRACT", standin.url)
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
        provider = TextractProvider(Settings(provider=Provider.TEXTRACT))
        prepared = Prepared.from_dict(  # read as the sandbox would; no XML, so no versions
            Preparer(None, page_images=True).extract(str(path), "blake3:00"))
        standin.add_fault(Fault(mode="throttle", code=code))
        with pytest.raises(Throttled):
            provider.extract(prepared, "blake3:00", CallContext(job_id="job_throttled"))
        document = provider.extract(prepared, "blake3:00", CallContext(job_id="job_throttled"))
    assert document["fields"]["invoice_number"]["value"] == truth["invoice_number"]
    assert standin.tally.as_dict()["throttled"] == 1 == len(standin.tally.as_dict()["charges"])


def test_a_throttled_call_waits_and_is_not_a_failure(provider, backend, make_services):
    kind, standin = provider
    pdf, _ = generate(**ONE_PAGE)
    if kind == "textract":
        standin.learn(pdf)
    standin.add_fault(Fault(mode="throttle", count=1, seconds=0.2))
    services = make_services(settings=settings_for(kind, backend, standin))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    response = upload(client, tenant.keys["customer"], pdf)
    worker = work(services)
    with transaction(services.engine, write=False) as conn:
        job = conn.execute(select(jobs).where(jobs.c.leader_id.is_(None))).one()
    assert (job.status, job.attempts, job.error_code) == ("pending", 0, "provider_throttled")
    assert worker._backoff >= 0.2  # the worker itself waits before claiming again
    end_backoffs(services)
    work(services)
    document_of(client, tenant.keys["customer"], response.json["id"])
    throttled, published = ledger(services)
    assert (throttled.outcome, float(throttled.cost), throttled.provider_requests) == (
        "throttled", 0.0, 0)
    assert published.outcome == "published"
    assert standin.tally.as_dict()["throttled"] == 1
    assert len(standin.tally.as_dict()["charges"]) == published.provider_requests
    report, = duplicate_report(services.engine, services.settings,
                               days(day=published.started_at.date().isoformat()))
    assert report["operations"][0]["calls"] == 1  # the throttled attempt is no model call
    assert report["spend"][0]["throttled_calls"] == 1


def test_a_chat_answer_lost_after_the_work_is_a_second_billed_call(chat, backend,
                                                                   make_services):
    pdf, truth = generate(**ONE_PAGE)
    chat.add_fault(Fault(mode="drop", operation="chat/completions"))  # works, then hangs up
    services = make_services(settings=settings_for("openai", backend, chat))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    response = upload(client, tenant.keys["customer"], pdf)
    work(services)
    end_backoffs(services)
    work(services)
    assert document_of(client, tenant.keys["customer"], response.json["id"])[
        "fields"]["invoice_number"]["value"] == truth["invoice_number"]
    lost, published = ledger(services)
    assert (lost.outcome, lost.cost_basis, published.outcome) == ("failed", "estimate",
                                                                  "published")
    assert float(lost.cost) > 0  # the estimate of what the lost answer was billed
    # No idempotency key for chat completions: both were charged, and the ledger says so.
    assert chat.billed_requests() == 2 == lost.provider_requests + published.provider_requests


def test_a_provider_that_holds_its_answer_times_out_billed_and_no_secret_is_logged(
        provider, backend, make_services, caplog):
    """The call runs in the worker with a network timeout: a provider that did the work and
    holds the answer ends the attempt at the timeout, not when the provider pleases; the
    request stays billed (at its estimate) and the retry is a second charge, both recorded."""
    kind, standin = provider
    pdf, truth = generate(**ONE_PAGE)
    if kind == "textract":
        standin.learn(pdf)
    standin.add_fault(Fault(mode="slow", seconds=6.0))
    services = make_services(settings=settings_for(kind, backend, standin,
                                                   provider_timeout_seconds=0.5))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    caplog.set_level(logging.DEBUG)
    response = upload(client, tenant.keys["customer"], pdf)
    standin.received.clear()
    worked = []
    attempt = threading.Thread(target=lambda: worked.append(Worker(services).run_once()))
    attempt.start()
    assert standin.received.wait(30)  # the request is at the provider (after the local reading)
    sent = time.monotonic()
    attempt.join(30)
    assert worked == [True]
    assert time.monotonic() - sent < 4.5  # the timeout ended it, not the provider's 6 s
    end_backoffs(services)  # the retry's backoff
    # The retry from a worker that waits longer: 0.5 s is too short for a busy machine's
    # answer to an ordinary request, and the retry is not what this test times.
    work(make_services(settings=settings_for(kind, backend, standin,
                                             provider_timeout_seconds=30)))
    assert document_of(client, tenant.keys["customer"], response.json["id"])[
        "fields"]["invoice_number"]["value"] == truth["invoice_number"]
    timed_out, published = calls = ledger(services)
    assert (timed_out.outcome, timed_out.cost_basis) == ("failed", "estimate")
    assert float(timed_out.cost) > 0 and published.outcome == "published"
    assert len(standin.tally.as_dict()["charges"]) == sum(c.provider_requests for c in calls) == 2
    # The API key reaches neither the log (the clients' debug logging included) nor the ledger.
    # (Textract's credentials are boto3's own; the project never reads them.)
    assert API_KEY not in caplog.text
    assert not any(API_KEY in str(value) for call in calls for value in call)


def test_a_shadow_provider_is_compared_never_served_never_cached(chat, backend, make_services):
    pdf, _ = generate(**ONE_PAGE)
    settings = backend.settings(shadow_provider=Provider.OPENAI, shadow_sample_rate=1.0,
                                openai_base_url=f"{chat.url}/v1", openai_api_key=API_KEY)
    services = make_services(settings=settings)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    response = upload(client, tenant.keys["customer"], pdf)
    work(services)
    served = document_of(client, tenant.keys["customer"], response.json["id"])
    assert served["versions"]["model"] == MODEL_VERSION  # the serving rules extractor's
    serving, shadow = ledger(services)
    assert (serving.operation, serving.provider) == ("extract_invoice", "rules")
    assert (shadow.operation, shadow.provider, shadow.outcome) == (
        "shadow_extract_invoice", "openai", "discarded")
    assert float(shadow.cost) > 0 and chat.billed_requests() == shadow.provider_requests
    with transaction(services.engine, write=False) as conn:
        assert conn.execute(select(cache_entries)).all().__len__() == 1  # the served one only
        verdicts = {r.field: r.agreement for r in conn.execute(select(shadow_fields))}
    assert verdicts["invoice_number"] == "agree"
    day = shadow.started_at.date().isoformat()
    report, = agreement_report(services.engine, days(day=day))
    candidate, = report["candidates"]
    assert (candidate["provider"], candidate["serving_provider"], candidate["comparisons"]) == (
        "openai", "rules", 1)
    assert candidate["cost"] == pytest.approx(float(shadow.cost))
    invoice_number = next(f for f in candidate["fields"] if f["field"] == "invoice_number")
    assert (invoice_number["agree"], invoice_number["agreement"]) == (1, 1.0)
    assert upload(client, tenant.keys["supplier"], pdf).headers["Ledgerline-Cache"] == "hit"

    # The operator reads the same from the command line and on the dashboard.
    env = {**os.environ, **backend.env, "LEDGERLINE_DATABASE_URL": backend.database_url,
           "LEDGERLINE_STORAGE_URL": backend.storage_url}
    cli = [str(Path(sys.executable).parent / "ledgerline"), "report", "agreement", "--day", day]
    printed = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == json.loads(json.dumps(report))
    table = subprocess.run([*cli, "--format", "table"], env=env, capture_output=True, text=True,
                           timeout=60).stdout
    assert "openai" in table and "invoice_number" in table
    shown = client.get("/dashboard", base_url="https://localhost",
                       headers={"Authorization": f"Bearer {operator_key(services)}"}).text
    assert "<td>shadow_extract_invoice</td><td>openai</td>" in shown  # shadow spend, apart
    assert "<td>extract_invoice</td><td>rules</td>" in shown
    assert f"shadow spend {float(shadow.cost):,.4f} USD" in shown
    assert re.search(r"<td>invoice_number</td><td class=\"n\">1</td>\s*<td class=\"n\">1</td>"
                     r"\s*<td class=\"n\">100.0%</td>", shown)
