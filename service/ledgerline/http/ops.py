"""Liveness, readiness and metrics."""
from __future__ import annotations

import hmac
import logging

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy import text

from .. import __version__, metrics
from ..adapters.db.engine import transaction
from ..adapters.storage import StorageUnavailable
from ..domain.errors import Unauthenticated
from .auth import bearer_secret, current_caller
from .reports import require_operator

bp = Blueprint("ops", __name__)
log = logging.getLogger(__name__)
SNAPSHOT = "ledgerline.queue_snapshot"


@bp.get("/healthz")
def healthz():
    return jsonify({"status": "ok", "version": __version__})


@bp.get("/readyz")
def readyz():
    """What is unreachable, in fixed words; the detail (hosts, buckets, paths) goes to the log."""
    services = current_app.extensions["ledgerline"]
    checks = {}
    try:
        with transaction(services.engine, write=False) as conn:
            conn.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as exc:  # any failure means "not ready"
        log.warning("readiness: database unavailable: %r", exc)
        checks["database"] = "unavailable"
    try:
        services.store.check()
        checks["storage"] = "ok"
    except StorageUnavailable as exc:
        log.warning("readiness: storage unavailable: %s", exc)
        checks["storage"] = "unavailable"
    ready = all(v == "ok" for v in checks.values())
    return jsonify({"status": "ready" if ready else "unavailable", "checks": checks}), (
        200 if ready else 503)


@bp.get("/metrics")
def metrics_endpoint():
    """For the metrics token (no database lookup) or an operator key; to others it is not there."""
    token = current_app.extensions["ledgerline"].settings.metrics_token
    secret = bearer_secret()
    if secret is None:
        raise Unauthenticated("send Authorization: Bearer <metrics token or operator key>")
    if not (token and hmac.compare_digest(secret.encode(), token.encode())):
        require_operator(current_caller())
    body, content_type = metrics.render(current_app.extensions[SNAPSHOT])
    return Response(body, content_type=content_type)
