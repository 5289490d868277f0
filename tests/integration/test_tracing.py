"""OpenTelemetry: one trace links an upload's request, the attempt of the job it created (the
job carries the request's trace context through the database) and the provider call inside
the attempt, on both backends; off unless the OTEL_* variables ask for it."""
from __future__ import annotations

import pytest

from ledgerline import tracing
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes


@pytest.fixture
def spans():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    assert tracing.configure(provider)
    yield exporter
    tracing.disable()


def test_one_trace_links_the_upload_the_job_attempt_and_the_provider_call(spans, backend,
                                                                          make_services):
    from opentelemetry.trace import SpanKind

    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    spans.clear()
    answer = client.post("/v1/accounts/acme/invoices", data=pdf_bytes("traced"), headers={
        "Authorization": f"Bearer {tenant.keys['supplier']}", "Content-Type": "application/pdf"})
    assert answer.status_code == 202
    assert Worker(services).run_once()  # another thread of control: only the job links them
    finished = spans.get_finished_spans()
    [upload] = [s for s in finished if s.kind == SpanKind.SERVER]
    assert upload.attributes["http.route"] == "/v1/accounts/<account>/invoices"
    [attempt] = [s for s in finished if s.name == "job attempt"]
    [call] = [s for s in finished if s.name == "provider call"]
    trace_id = upload.context.trace_id
    assert attempt.context.trace_id == trace_id and attempt.parent.span_id == (
        upload.context.span_id)
    assert call.context.trace_id == trace_id and call.parent.span_id == attempt.context.span_id
    assert attempt.attributes["ledgerline.invoice"] == answer.json["id"]
    assert call.attributes["ledgerline.provider"] == "rules"
    database = [s for s in finished if s.attributes.get("db.system")]
    assert any(s.context.trace_id == trace_id and s.parent.span_id == upload.context.span_id
               for s in database), "the upload's statements are in its trace"
    assert any(s.parent is not None and s.parent.span_id == attempt.context.span_id
               for s in database), "so are the attempt's"
    if backend.name == "production":  # the original went to S3, by a request signed here
        stored = [s for s in finished if s.attributes.get("rpc.service") == "S3"
                  and s.attributes.get("rpc.method") == "PutObject"]
        assert any(s.context.trace_id == trace_id and s.kind == SpanKind.CLIENT
                   and s.attributes.get("http.status_code") == 200 for s in stored)
        fetched = [s for s in finished if s.attributes.get("rpc.method") == "GetObject"]
        assert fetched and all(s.parent.span_id == attempt.context.span_id for s in fetched)


def test_tracing_is_off_unless_an_exporter_is_configured():
    assert not tracing.enabled_by_environment({})
    assert not tracing.enabled_by_environment({"OTEL_TRACES_EXPORTER": "none"})
    assert tracing.enabled_by_environment({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})
    assert tracing.enabled_by_environment({"OTEL_TRACES_EXPORTER": "console"})
    assert not tracing.enabled_by_environment({"OTEL_TRACES_EXPORTER": "otlp",
                                               "OTEL_SDK_DISABLED": "true"})
    assert tracing.current_traceparent() is None
    with tracing.span("nothing") as span:
        assert span is None


def test_the_sdk_reads_the_standard_variables(monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "ledgerline-eu")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=staging")
    provider = tracing._provider_from_environment()
    try:
        assert provider.resource.attributes["service.name"] == "ledgerline-eu"
        assert provider.resource.attributes["deployment.environment"] == "staging"
    finally:
        provider.shutdown()
    monkeypatch.delenv("OTEL_SERVICE_NAME")
    assert tracing._provider_from_environment().resource.attributes["service.name"] == (
        "ledgerline")
