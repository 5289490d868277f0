"""Liveness, readiness and metrics."""
from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy import text

from ..adapters.db.engine import transaction
from ..adapters.storage import StorageUnavailable
from .. import metrics

bp = Blueprint("ops", __name__)


@bp.get("/healthz")
def healthz():
    return jsonify({"status": "ok"})


@bp.get("/readyz")
def readyz():
    services = current_app.extensions["ledgerline"]
    checks = {}
    try:
        with transaction(services.engine, write=False) as conn:
            conn.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as exc:  # any failure means "not ready", with the reason
        checks["database"] = f"unavailable: {type(exc).__name__}"
    try:
        services.store.check()
        checks["storage"] = "ok"
    except StorageUnavailable as exc:
        checks["storage"] = f"unavailable: {str(exc)[:200]}"
    ready = all(v == "ok" for v in checks.values())
    return jsonify({"status": "ready" if ready else "unavailable", "checks": checks}), (
        200 if ready else 503)


@bp.get("/metrics")
def metrics_endpoint():
    body, content_type = metrics.render(current_app.extensions["ledgerline"])
    return Response(body, content_type=content_type)
