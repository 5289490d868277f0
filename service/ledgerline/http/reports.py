"""The duplicate-work report for operators: `GET /v1/reports/duplicates`."""
from __future__ import annotations

from typing import Annotated

from flask import current_app, jsonify
from flask_openapi3 import APIBlueprint
from pydantic import ConfigDict, Field

from ..domain.errors import NotFound
from ..service_layer import report
from .auth import current_caller
from .models import ApiModel, component, documented, json_response, problems, ref, schema_component

bp = APIBlueprint("reports", __name__)
ReportDay = documented(component("ReportDay"))  # report.parse_day checks it (400 `invalid_day`)


def require_operator(caller) -> None:
    """Reports exist only for operators; to anyone else they are not there at all (404)."""
    if not caller.is_operator():
        raise NotFound("no such resource")


@bp.before_request
def _operators_only():
    require_operator(current_caller())  # before the query is read: to others there is no report


class ReportQuery(ApiModel):
    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    day: ReportDay = None
    first: Annotated[ReportDay, Field(alias="from")] = None
    last: Annotated[ReportDay, Field(alias="to")] = None


def _count(description: str | None = None) -> dict:
    return {"type": "integer", "minimum": 0, **({"description": description} if description
                                                 else {})}


NUMBER = {"type": "number", "minimum": 0}
# The report document as service_layer/report.py builds it (also reporting_format.py's).
DUPLICATE_REPORT = {
    "type": "object", "required": ["day", "operations", "requests"],
    "properties": {
        "day": {"type": "string", "format": "date"},
        "operations": {"type": "array", "items": {
            "type": "object",
            "required": ["operation", "calls", "distinct_hashes", "repeat_calls", "repeat_share",
                         "cost", "repeat_cost", "overlapping_calls", "overlapping_cost"],
            "properties": {
                "operation": {"type": "string"}, "calls": _count(),
                "distinct_hashes": _count(), "repeat_calls": _count(),
                "repeat_share": {"type": "number", "minimum": 0, "maximum": 1},
                "cost": NUMBER, "repeat_cost": NUMBER, "overlapping_calls": _count(),
                "overlapping_cost": NUMBER, "overlapping_repeat_calls": _count(),
                "unbilled_calls": _count(
                    "attempts that never reached a model (refused by the pre-flight, cancelled "
                    "before the extraction started, or throttled by the provider before it did "
                    "any work); cost 0, not in `calls`")}}},
        "spend": {
            "description": "real spend per operation and provider, in the provider's own units "
                           "(throttled attempts counted apart; `estimated_calls` are calls "
                           "whose worker never saw the provider's answer, priced at the "
                           "estimate made before sending)",
            "type": "array", "items": {
                "type": "object",
                "required": ["operation", "provider", "calls", "cost", "throttled_calls",
                             "provider_requests", "input_tokens", "output_tokens", "pages",
                             "estimated_calls"],
                "properties": {
                    "operation": {"type": "string", "description": "`extract_invoice`, or "
                                  "`shadow_extract_invoice` for a candidate provider's shadow "
                                  "spend"},
                    "provider": {"type": "string", "enum": ["rules", "textract", "openai"]},
                    "calls": _count(), "cost": NUMBER, "throttled_calls": _count(),
                    "provider_requests": _count(), "input_tokens": _count(),
                    "output_tokens": _count(), "pages": _count(), "estimated_calls": _count()}}},
        "requests": {
            "type": "object",
            "required": ["total", "cache_hits", "joined", "bypass", "model_calls",
                         "cost_avoided"],
            "properties": {
                "total": _count(), "retries": _count(
                    "new attempts for failed invoices (POST …/retry); not uploads, not in "
                    "`total`"),
                "cache_hits": _count(), "joined": _count(), "bypass": _count(),
                "model_calls": _count(), "cost_avoided": NUMBER}}}}
schema_component("DuplicateReport", DUPLICATE_REPORT)
REPORT_OR_RANGE = {"oneOf": [ref("DuplicateReport"), {
    "type": "object", "required": ["from", "to", "days"],
    "properties": {"from": {"type": "string", "format": "date"},
                   "to": {"type": "string", "format": "date"},
                   "days": {"type": "array", "items": ref("DuplicateReport")}}}]}


@bp.get("/v1/reports/duplicates", operation_id="duplicateReport",
        summary="The duplicate-work report, for one day or an inclusive range of days (UTC).",
        description="Operators only; to every other caller the report does not exist (404). "
        "Ask for `day`, or for `from` and `to` together (at most 366 days, `to` not before "
        "`from`); anything else is 400. One day answers with the report document, a range "
        "with one document per day.",
        responses={200: json_response(REPORT_OR_RANGE, "The report for the day, or for each "
                                                       "day of the range."),
                   **problems(400, 401, 404, 429)})
def duplicates(query: ReportQuery):
    span = report.days(day=query.day, first=query.first, last=query.last)
    services = current_app.extensions["ledgerline"]
    documents = report.duplicate_report(services.engine, services.settings, span)
    if query.day is not None:
        return jsonify(documents[0])
    return jsonify({"from": span.first.isoformat(), "to": span.last.isoformat(),
                    "days": documents})
