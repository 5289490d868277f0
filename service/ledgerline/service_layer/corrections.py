"""Corrections, review resolutions and the history of an invoice.

A correction (`PATCH …/invoices/{id}`) sets or clears fields and may replace the line items;
each value is held to the rules a published document meets (adapters/extractor.check_value),
so the invoice still validates against invoice-v1. It becomes a new version of the invoice with
its author, time and the previous values, and an `invoice.corrected` event, in one
transaction. The model's result is never touched (domain/corrections.py says why).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from ..adapters.db import corrections as sql
from ..adapters.db import invoices as reads
from ..adapters.db import outbox
from ..adapters.db.engine import transaction
from ..adapters.extractor import (LINE_ITEM_AMOUNTS, MAX_DESCRIPTION, MAX_LINE_ITEMS,
                                  check_decimal, check_value)
from ..domain import corrections as rules
from ..domain.errors import (Forbidden, InvalidCorrection, InvoiceNotCompleted, NotFound,
                             ReviewNotRequired)
from ..domain.identity import Caller
from ..extraction.document import FIELD_NAMES

MAX_REASON = 500
BODY_KEYS = ("fields", "line_items", "reason")
# A version taken by a concurrent writer between our read and our write: read again.
VERSION_RETRIES = 5


@dataclass(frozen=True)
class Patch:
    fields: dict
    line_items: list | None
    reason: str | None


def parse_patch(body) -> Patch:
    """The PATCH body, checked; InvalidCorrection names what is wrong."""
    if not isinstance(body, dict) or not body or set(body) - set(BODY_KEYS):
        raise InvalidCorrection('send {"fields": {NAME: VALUE or null, …}, "line_items": '
                                '[…] (optional), "reason": "…" (optional)}')
    fields = body.get("fields", {})
    if not isinstance(fields, dict):
        raise InvalidCorrection("fields must be an object of field names to values or null")
    checked = {name: _field_value(name, value) for name, value in fields.items()}
    line_items = body.get("line_items")
    if line_items is not None:
        line_items = _line_items(line_items)
    if not checked and line_items is None:
        raise InvalidCorrection("a correction sets at least one field or the line items")
    return Patch(checked, line_items, _reason(body.get("reason")))


def _field_value(name, value):
    if name not in FIELD_NAMES:
        raise InvalidCorrection(f"unknown field {str(name)[:40]!r}; the fields are "
                                + ", ".join(FIELD_NAMES))
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidCorrection(f"{name} must be a string or null")
    kept, why = check_value(name, value)
    if why or kept is None:
        raise InvalidCorrection(f"{name}: {why or 'no printable characters'}")
    return kept


def _line_items(items) -> list[dict]:
    if not isinstance(items, list) or len(items) > MAX_LINE_ITEMS:
        raise InvalidCorrection(f"line_items must be a list of at most {MAX_LINE_ITEMS} items")
    checked = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict) or set(item) - {"description", *LINE_ITEM_AMOUNTS}:
            raise InvalidCorrection(f"line item {number}: an object with description, "
                                    + ", ".join(LINE_ITEM_AMOUNTS))
        description = item.get("description")
        if description is not None and (not isinstance(description, str)
                                        or len(description) > MAX_DESCRIPTION):
            raise InvalidCorrection(f"line item {number}: description must be text of at most "
                                    f"{MAX_DESCRIPTION} characters")
        row = {"description": " ".join(description.split()) or None if description else None}
        for key in LINE_ITEM_AMOUNTS:
            value = item.get(key)
            if value is not None:
                if not isinstance(value, str):
                    raise InvalidCorrection(f"line item {number}: {key} must be a decimal string")
                value, why = check_decimal(value.strip())
                if why:
                    raise InvalidCorrection(f"line item {number}: {key}: {why}")
            row[key] = value
        checked.append(row)
    return checked


def _reason(reason) -> str | None:
    if reason is None:
        return None
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise InvalidCorrection(f"reason must be text of at most {MAX_REASON} characters")
    return " ".join(reason.split()) or None


def _authorise(caller: Caller, account: str) -> None:
    """A customer corrects any invoice of its account, a supplier its own uploads (the
    read query's visibility); a dashboard key reads only."""
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")
    if not caller.can_upload():
        raise Forbidden(f"the {caller.role.value} role may not change invoices")


def correct(services, caller: Caller, account: str, invoice_id: str, patch: Patch) -> dict:
    _authorise(caller, account)
    for _ in range(VERSION_RETRIES):
        with transaction(services.engine, write=True) as conn:
            row = _completed(conn, caller, account, invoice_id)
            shown = reads.shown_document(row)
            applied = rules.changes(shown, patch.fields, patch.line_items)
            if not applied:
                break  # it already shows these values: no new version
            overlay = rules.merged(_overlay(row), applied)
            after = rules.corrected_document(shown, overlay)
            version = row.version + 1
            if sql.record(conn, invoice_id, account, version, caller,
                          sql.Entry("correction", applied, patch.reason), overlay=overlay,
                          summary=rules.summary(after)):
                outbox.invoice_event(conn, account, invoice_id, "invoice.corrected",
                                     str(version), detail=str(version))
                break
    return _read(services, caller, account, invoice_id)


def resolve_review(services, caller: Caller, account: str, invoice_id: str, body) -> dict:
    """POST …/{id}/review: the review is resolved, for the reasons named (all by default)."""
    _authorise(caller, account)
    reasons, note = _resolution(body)
    for _ in range(VERSION_RETRIES):
        with transaction(services.engine, write=True) as conn:
            row = _completed(conn, caller, account, invoice_id)
            if row.review_resolved_at is not None:
                break  # already resolved: the same answer again
            asked = (reads.shown_document(row) or {}).get("review", {})
            if not row.review_required:
                raise ReviewNotRequired("this invoice's extraction did not ask for review")
            unknown = [r for r in reasons or [] if r not in asked.get("reasons", [])]
            if unknown:
                raise InvalidCorrection(f"not a review reason of this invoice: {unknown[0][:80]!r}")
            resolved = reasons if reasons else asked.get("reasons", [])
            entry = sql.Entry("review", [{"field": "review", "previous": "required",
                                          "value": "resolved", "reasons": resolved}], note)
            if sql.record(conn, invoice_id, account, row.version + 1, caller, entry,
                          resolves_review=True):
                break
    return _read(services, caller, account, invoice_id)


def _resolution(body) -> tuple[list | None, str | None]:
    body = {} if body is None else body
    if not isinstance(body, dict) or set(body) - {"reasons", "note"}:
        raise InvalidCorrection('send {"reasons": ["…"] (optional), "note": "…" (optional)}')
    reasons = body.get("reasons")
    if reasons is not None and (not isinstance(reasons, list)
                                or not all(isinstance(r, str) for r in reasons)):
        raise InvalidCorrection("reasons must be a list of the invoice's review reasons")
    return reasons, _reason(body.get("note"))


def history(services, caller: Caller, account: str, invoice_id: str) -> list[dict]:
    """Every correction and review resolution of the invoice, oldest first."""
    with transaction(services.engine, write=False) as conn:
        if reads.invoice_status(conn, caller, account, invoice_id) is None:
            raise NotFound("no such invoice")
        return sql.history(conn, invoice_id)


def _completed(conn, caller, account, invoice_id):
    row = reads.invoice_for_update(conn, caller, account, invoice_id)
    if row is None:
        raise NotFound("no such invoice")
    if row.status != "completed":
        raise InvoiceNotCompleted(f"invoice {invoice_id} is {row.status}; only a completed "
                                  "invoice can be corrected or reviewed")
    return row


def _overlay(row) -> dict | None:
    return json.loads(row.corrections) if row.corrections else None


def _read(services, caller, account, invoice_id) -> dict:
    with transaction(services.engine, write=False) as conn:
        invoice = reads.get_invoice(conn, caller, account, invoice_id)
    if invoice is None:
        raise NotFound("no such invoice")
    return invoice
