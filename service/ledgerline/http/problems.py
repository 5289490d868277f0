"""The one place that turns errors into application/problem+json (RFC 9457).

Every problem type is an error class (domain/errors.py, or beside the code that raises it)
that declares its status, code, title and explanation once; `catalogue()` lists them for the
problem pages and the OpenAPI document.
"""
from __future__ import annotations

import logging

from flask import Flask, Response, json, request
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ..domain.errors import BadRequest, LedgerlineError, NotFound, TooLarge, Unavailable
from .models import NOT_FOUND_WHEN_MALFORMED, REFUSALS, ApiModel

log = logging.getLogger(__name__)
PROBLEM = "application/problem+json"


class MethodNotAllowed(LedgerlineError):
    status, code, title = 405, "method_not_allowed", "Method not allowed"
    explanation = ("The path exists but not with this method; the `Allow` header lists those "
                   "it takes.")


class HttpError(LedgerlineError):
    status, code, title = 400, "http_error", "HTTP error"
    explanation = "An error of the HTTP layer itself; `status` and `title` say which."


def catalogue() -> dict[str, type[LedgerlineError]]:
    """Every problem type by code, by status then code (each module that declares one is
    imported by the app's views)."""
    return dict(sorted(LedgerlineError.catalogue.items(), key=lambda item: (item[1].status,
                                                                             item[0])))


def problem_code_schema() -> dict:
    return {"description": "Each one is explained at `/problems/<code>`.", "type": "string",
            "enum": list(catalogue())}


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


def answer(exc: LedgerlineError) -> Response:
    headers = dict(getattr(exc, "headers", None) or {})
    if exc.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="ledgerline"'
    return problem(exc.status, exc.code, exc.title, exc.detail, headers)


def invalid_request(exc: ValidationError) -> Response:
    """A path or query that its model refuses: 400 naming the parameter, or 404 for an id
    this service could not have issued (the same answer as for one that does not exist)."""
    first = exc.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else "request"
    if name in NOT_FOUND_WHEN_MALFORMED:
        return answer(NotFound(NOT_FOUND_WHEN_MALFORMED[name]))
    if first["type"] == "extra_forbidden":
        known = ", ".join(_fields(exc.title))
        return answer(BadRequest(f"unknown query parameter {name[:40]!r}; use {known}"))
    if "expected" in first.get("ctx", {}):
        return answer(BadRequest(f"{name} must be one of {first['ctx']['expected']}"))
    return answer(BadRequest(REFUSALS.get(name) or f"{name}: {first['msg'][:200]}"))


def _fields(model_name: str) -> list[str]:
    model = ApiModel.by_name.get(model_name)
    return [f.alias or n for n, f in model.model_fields.items()] if model else []


def install(app: Flask) -> None:
    app.errorhandler(LedgerlineError)(answer)

    @app.errorhandler(RequestEntityTooLarge)
    def _too_large(exc):
        return answer(TooLarge("the request body is larger than allowed"))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        status = exc.code or 500
        code = (exc.name or "error").lower().replace(" ", "_")
        known = catalogue().get(code)
        if known is None or known.status != status:
            code = "internal_error" if status >= 500 else "http_error"
        # Keep what the exception says beyond its body, e.g. the Allow header of a 405.
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        return problem(status, code, exc.name, exc.description, headers)

    @app.errorhandler(OperationalError)
    def _database_away(exc: OperationalError):
        # Any view, not only the upload: the key lookup is the first query of every request.
        log.warning("database unavailable on %s %s: %s", request.method, request.path,
                    type(exc.orig).__name__)
        return answer(Unavailable("the database is unavailable; nothing was changed"))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem(500, "internal_error", "Internal error")
