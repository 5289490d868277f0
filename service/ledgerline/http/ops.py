"""Liveness, readiness and metrics."""
from __future__ import annotations

import hmac
from typing import Annotated, Literal

from flask import Response, current_app, jsonify
from flask_openapi3 import APIBlueprint
from pydantic import Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from .. import __version__, metrics
from ..domain.errors import Unauthenticated
from ..service_layer.health import is_ready, readiness
from .auth import bearer_secret, current_caller
from .models import PUBLIC, ApiModel, json_response, problems
from .reports import require_operator

bp = APIBlueprint("ops", __name__)
SNAPSHOT = "ledgerline.queue_snapshot"
BUILD_INFO = "ledgerline.build_info"


class Alive(ApiModel):
    status: Annotated[Literal["ok"], WithJsonSchema({"const": "ok"})]
    version: Annotated[str, Field(description="The running Ledgerline release.")]


@bp.get("/healthz", operation_id="healthz", summary="The process is alive.",
        openapi_extensions=PUBLIC,
        responses={200: json_response(Alive, "Alive.")})
def healthz():
    return jsonify({"status": "ok", "version": __version__})


class LoadedLanguages(ApiModel):
    languages: Annotated[list[str], Field(description="Tesseract's languages, as it names them "
                                                      "(eng, deu, …).")]


class Readiness(ApiModel):
    status: Literal["ready", "unavailable"]
    checks: Annotated[dict[str, str], Field(
        description="`database`, `storage`, `spool`, `sandbox`, `ocr`: `ok`, `unavailable`, "
        "`starting` (the sandbox warming up) or `not_used` (no extraction worker in this "
        "process).")]
    ocr: Annotated[LoadedLanguages | SkipJsonSchema[None], Field(
        description="What the sandbox's warm-up loaded, where this process runs a worker.")] = None
    reasons: Annotated[dict[str, str] | SkipJsonSchema[None], Field(
        description="Why a check of the spool, the sandbox or OCR says `unavailable`.")] = None


READINESS = json_response(Readiness, "Readiness with one entry per dependency.")


@bp.get("/readyz", operation_id="readyz",
        summary="Database and storage are reachable, this process can write its spool, and "
        "where it extracts, the sandbox and OCR are ready.",
        description="`spool` is unavailable after a write to LEDGERLINE_SPOOL_DIR failed (a full "
        "disk: an upload got 503 `spool_unavailable`, or the embedded worker could not fetch an "
        "original), until a probe write of 1 MiB succeeds there again.",
        openapi_extensions=PUBLIC, responses={200: READINESS, 503: READINESS})
def readyz():
    # What is unreachable, in fixed words (hosts, buckets, paths go to the log); what the
    # spool, the sandbox or OCR lacks, with its reason.
    answer = readiness(current_app.extensions["ledgerline"])
    ready = is_ready(answer)
    return jsonify({"status": "ready" if ready else "unavailable", **answer}), (
        200 if ready else 503)


@bp.get("/metrics", operation_id="metrics",
        summary="Prometheus metrics, for an operator key or the metrics token.",
        description="Counters of every API process, and queue gauges from a snapshot of the "
        "database that a scrape reuses for LEDGERLINE_METRICS_SNAPSHOT_SECONDS. The token "
        "(LEDGERLINE_METRICS_TOKEN) needs no database lookup; any other key that is not an "
        "operator's is answered 404.",
        security=[{"bearer": []}],
        responses={200: {"description": "Prometheus text exposition format.",
                         "content": {"text/plain": {"schema": {"type": "string"}}}},
                   **problems(401, 404, 429)})
def metrics_endpoint():
    # For the metrics token (no database lookup) or an operator key; to others it is not there.
    token = current_app.extensions["ledgerline"].settings.metrics_token
    secret = bearer_secret()
    if secret is None:
        raise Unauthenticated("send Authorization: Bearer <metrics token or operator key>")
    if not (token and hmac.compare_digest(secret.encode(), token.encode())):
        require_operator(current_caller())
    body, content_type = metrics.render(current_app.extensions[SNAPSHOT],
                                        current_app.extensions[BUILD_INFO])
    return Response(body, content_type=content_type)
