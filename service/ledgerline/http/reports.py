"""The duplicate-work report for operators: `GET /v1/reports/duplicates`."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from ..domain.errors import BadRequest, NotFound
from ..service_layer import report
from .auth import current_caller

bp = Blueprint("reports", __name__)
PARAMETERS = {"day", "from", "to"}


def require_operator(caller) -> None:
    """Reports exist only for operators; to anyone else they are not there at all (404)."""
    if not caller.is_operator():
        raise NotFound("no such resource")


@bp.get("/v1/reports/duplicates")
def duplicates():
    require_operator(current_caller())
    args = request.args
    unknown = sorted(set(args) - PARAMETERS)
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0]!r}; use day, or from and to")
    span = report.days(day=args.get("day"), first=args.get("from"), last=args.get("to"))
    services = current_app.extensions["ledgerline"]
    documents = report.duplicate_report(services.engine, services.settings, span)
    if "day" in args:
        return jsonify(documents[0])
    return jsonify({"from": span.first.isoformat(), "to": span.last.isoformat(),
                    "days": documents})
