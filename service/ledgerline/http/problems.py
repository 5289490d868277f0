"""The one place that turns errors into application/problem+json (RFC 9457)."""
from __future__ import annotations

import logging

from flask import Flask, Response, json, request
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ..domain.errors import LedgerlineError, TooLarge, Unavailable
from .problem_types import code_for_http_status

log = logging.getLogger(__name__)
PROBLEM = "application/problem+json"


def problem(status: int, code: str, title: str, detail: str | None = None,
            headers: dict | None = None) -> Response:
    # `type` resolves, relative to the request, to this service's page about the problem.
    body = {"type": f"/problems/{code}", "code": code, "title": title, "status": status}
    if detail:
        body["detail"] = detail
    body["instance"] = request.path
    resp = Response(json.dumps(body), status=status, mimetype=PROBLEM)
    for name, value in (headers or {}).items():
        resp.headers[name] = value
    return resp


def install(app: Flask) -> None:
    @app.errorhandler(LedgerlineError)
    def _domain(exc: LedgerlineError):
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status == 401:
            headers["WWW-Authenticate"] = 'Bearer realm="ledgerline"'
        return problem(exc.status, exc.code, exc.title, exc.detail, headers)

    @app.errorhandler(RequestEntityTooLarge)
    def _too_large(exc):
        return _domain(TooLarge("the request body is larger than allowed"))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        code = code_for_http_status(exc.code or 500, exc.name or "error")
        # Keep what the exception says beyond its body, e.g. the Allow header of a 405.
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        return problem(exc.code or 500, code, exc.name, exc.description, headers)

    @app.errorhandler(OperationalError)
    def _database_away(exc: OperationalError):
        # Any view, not only the upload: the key lookup is the first query of every request.
        log.warning("database unavailable on %s %s: %s", request.method, request.path,
                    type(exc.orig).__name__)
        return _domain(Unavailable("the database is unavailable; nothing was changed"))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem(500, "internal_error", "Internal error")
