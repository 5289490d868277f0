"""OpenTelemetry traces, off unless the standard OTEL_* variables configure an exporter.

On when `OTEL_TRACES_EXPORTER` names one (`otlp`, `console`) or an OTLP endpoint is set
(`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), unless
`OTEL_SDK_DISABLED=true`; the SDK and the OTLP exporter read every other OTEL_* variable
themselves (service name and resource attributes, sampler, headers, timeouts). Then each
process traces its Flask requests, SQLAlchemy statements and botocore calls (S3, Textract),
and two spans of its own: a job's attempt, which continues the trace of the upload that
created the job (its W3C `traceparent` is stored with the job), and the provider call inside
the attempt. So one trace shows the upload, the attempt and the call that did the work. The
S3 requests made outside botocore's client (adapters/s3_signed.py) get spans named as its
instrumentation names its own (`client_call`).

Off, nothing here imports OpenTelemetry's SDK, and the spans are the API's no-op ones.
"""
from __future__ import annotations

import contextlib
import os

SERVICE_NAME = "ledgerline"
_provider = None  # the TracerProvider, once configured


def enabled_by_environment(env=os.environ) -> bool:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = {e.strip() for e in env.get("OTEL_TRACES_EXPORTER", "").split(",")} - {""}
    if exporters:
        return exporters != {"none"}
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
                or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def configure(provider=None) -> bool:
    """Turn tracing on for this process, with `provider` (tests: an in-memory exporter's) or
    the one the environment describes; once per process. True when tracing is on."""
    global _provider
    if _provider is not None:
        return True
    if provider is None:
        if not enabled_by_environment():
            return False
        provider = _provider_from_environment()
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor

    _provider = provider
    BotocoreInstrumentor().instrument(tracer_provider=provider)
    # Every engine created from now on (adapters/db/engine.py calls sqlalchemy.create_engine
    # when it makes one). Its declared range stops below SQLAlchemy 2.1, whose engine events
    # it uses are 2.0's: instrumented regardless (tests/integration/test_tracing.py).
    SQLAlchemyInstrumentor().instrument(tracer_provider=provider, skip_dep_check=True)
    return True


def disable() -> None:
    """Turn tracing off again (tests); spans already ended stay with their exporter."""
    global _provider
    if _provider is None:
        return
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor

    BotocoreInstrumentor().uninstrument()
    SQLAlchemyInstrumentor().uninstrument()
    _provider = None


def _provider_from_environment():
    from opentelemetry.sdk.resources import OTELResourceDetector, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    resource = Resource.create({"service.name": SERVICE_NAME}).merge(
        OTELResourceDetector().detect())  # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
    provider = TracerProvider(resource=resource)
    names = {e.strip() for e in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")}
    for name in sorted(names - {"", "none"}):
        if name == "console":
            exporter = ConsoleSpanExporter()
        elif name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()  # reads OTEL_EXPORTER_OTLP_* itself
        else:
            raise ValueError(f"OTEL_TRACES_EXPORTER={name!r}: use otlp, console or none")
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def instrument_app(app) -> None:
    if _provider is not None:
        from opentelemetry.instrumentation.flask import FlaskInstrumentor

        FlaskInstrumentor().instrument_app(app, tracer_provider=_provider)


def current_traceparent() -> str | None:
    """The W3C traceparent of the span in progress (an upload's request), or None."""
    if _provider is None:
        return None
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier.get("traceparent")


@contextlib.contextmanager
def span(name: str, *, parent: str | None = None, **attributes):
    """A span of this service's own, as a child of the span in progress, or of `parent` (a
    stored traceparent); attributes with a None value are left out. Nothing when off."""
    if _provider is None:
        yield None
        return
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    context = (TraceContextTextMapPropagator().extract({"traceparent": parent})
               if parent else None)
    tracer = _provider.get_tracer("ledgerline")
    with tracer.start_as_current_span(name, context=context) as current:
        for key, value in attributes.items():
            if value is not None:
                current.set_attribute(f"ledgerline.{key}", value)
        yield current


@contextlib.contextmanager
def client_call(service: str, operation: str, region: str | None):
    """A client span for an AWS call made without botocore's client, named and attributed as
    its instrumentation names its own ("S3.PutObject", `rpc.service` "S3"), so that a trace
    shows every call to the store whichever way it was sent. Nothing when off."""
    if _provider is None:
        yield None
        return
    from opentelemetry.trace import SpanKind

    attributes = {"rpc.system": "aws-api", "rpc.service": service, "rpc.method": operation}
    if region:
        attributes["aws.region"] = region
    tracer = _provider.get_tracer("ledgerline")
    with tracer.start_as_current_span(f"{service}.{operation}", kind=SpanKind.CLIENT,
                                      attributes=attributes) as current:
        yield current
