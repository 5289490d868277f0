"""Corrections, review resolutions and the history of an invoice.

A correction (`PATCH …/invoices/{id}`) sets or clears fields and may replace the line items;
each value is held to the rules a published document meets (adapters/extractor.check_value),
so the invoice still validates against invoice-v2: only a value that cannot be the field's
type is refused; free text (descriptions, the reason, a review note) is cleaned as field values
are (domain/text.py). Every check then runs again on the corrected values (domain.rechecks, and
the duplicate check here): a value that fails a checksum is kept and flagged, and a rule the
correction breaks sends the invoice back to review, naming it. It becomes a new version of the
invoice with its author, time, the previous values and the model's, the checks' outcome, and
an `invoice.corrected` event, in one transaction. The model's result is never touched
(domain/corrections.py says why).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..adapters.extractor import (LINE_ITEM_AMOUNTS, MAX_DESCRIPTION, MAX_LINE_ITEMS,
                                  check_decimal, check_value)
from ..domain import corrections as rules
from ..domain import rechecks
from ..domain.errors import (Forbidden, InvalidCorrection, InvoiceNotCompleted, NotFound,
                             PreconditionFailed, ReviewNotRequired)
from ..domain.identity import Caller
from ..domain.text import printable
from ..extraction.document import FIELD_NAMES
from ..extraction.validation import apply_to_confidence
from ..ports.database import Transaction
from ..ports.invoices import EditableInvoice, Entry

if TYPE_CHECKING:
    from ..bootstrap import Services

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
        if description is not None and not isinstance(description, str):
            raise InvalidCorrection(f"line item {number}: description must be text")
        # Cleaned as a field value is: a NUL or a lone surrogate would break every export.
        description = printable(description)
        if description is not None and len(description) > MAX_DESCRIPTION:
            raise InvalidCorrection(f"line item {number}: description must be text of at most "
                                    f"{MAX_DESCRIPTION} characters")
        row = {"description": description}
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


def _reason(reason, name: str = "reason") -> str | None:
    if reason is None:
        return None
    cleaned = printable(reason) if isinstance(reason, str) else None
    if not isinstance(reason, str) or (cleaned and len(cleaned) > MAX_REASON):
        raise InvalidCorrection(f"{name} must be text of at most {MAX_REASON} characters")
    return cleaned


def _authorise(caller: Caller, account: str) -> None:
    """A customer corrects any invoice of its account, a supplier its own uploads (the
    read query's visibility); a dashboard key reads only."""
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")
    if not caller.can_upload():
        raise Forbidden(f"the {caller.role.value} role may not change invoices")


def correct(services: Services, caller: Caller, account: str, invoice_id: str,
            patch: Patch, if_match: rules.IfMatch | None = None) -> dict:
    """Apply the patch, run the checks again on the corrected values, and record both as a
    new version. `if_match`: the versions the caller read (412 and no change otherwise)."""
    _authorise(caller, account)
    for _ in range(VERSION_RETRIES):
        with services.db.transaction(write=True) as tx:
            invoice = _completed(tx, caller, account, invoice_id, if_match)
            model, shown = invoice.model, invoice.shown
            if model is None or shown is None:  # a completed invoice has both
                raise InvoiceNotCompleted(f"invoice {invoice_id} has no extraction to correct")
            applied = rules.changes(shown, patch.fields, patch.line_items)
            if not applied:
                break  # it already shows these values: no new version
            overlay = rules.merged(invoice.overlay, applied)
            after = rules.corrected_document(model, overlay)
            summary = rules.summary(after)
            validations, reasons = rechecks.recheck(model, after)
            duplicate = _duplicate_check(tx, caller, account, invoice, summary)
            validations.append(duplicate)
            reasons += apply_to_confidence([duplicate], {})
            overlay.update(validations=validations,
                           review={"required": bool(reasons), "reasons": reasons})
            before = (shown.get("review") or {}).get("reasons", [])
            broken = rechecks.breaks_a_rule(before, reasons)
            entry = Entry("correction", rules.with_machine_values(applied, model), patch.reason)
            version = invoice.version + 1
            if tx.corrections.record(
                    invoice_id, account, version, caller, entry, overlay=overlay,
                    summary={**summary, "review_required": bool(reasons)},
                    reopens_review=bool(broken) and invoice.review_resolved_at is not None):
                tx.events.invoice_event(account, invoice_id, "invoice.corrected", str(version),
                                        detail=str(version))
                break
    return _read(services, caller, account, invoice_id)


DUPLICATE_RULE = "LL-DUPLICATE"


def _duplicate_check(tx: Transaction, caller: Caller, account: str, invoice: EditableInvoice,
                     summary: dict) -> dict:
    """The duplicate check on the corrected values: does an earlier invoice of the account
    (among those the corrector may see) bill the same thing?"""
    earlier = tx.invoices.earlier_duplicate(caller, account, invoice, summary)
    if earlier is None:
        return {"rule": DUPLICATE_RULE, "status": "pass",
                "detail": "no earlier invoice has the same file or bills the same thing"}
    return {"rule": DUPLICATE_RULE, "status": "fail",
            "detail": f"possible duplicate of {earlier['id']}, uploaded earlier (same "
                      f"{' and '.join(earlier['matched_on'])})"}


def resolve_review(services: Services, caller: Caller, account: str, invoice_id: str,
                   body: object, if_match: rules.IfMatch | None = None) -> dict:
    """POST …/{id}/review: the review is resolved, for the reasons named (all by default)."""
    _authorise(caller, account)
    reasons, note = _resolution(body)
    for _ in range(VERSION_RETRIES):
        with services.db.transaction(write=True) as tx:
            invoice = _completed(tx, caller, account, invoice_id, if_match)
            if invoice.review_resolved_at is not None:
                break  # already resolved: the same answer again
            asked = (invoice.shown or {}).get("review", {})
            if not invoice.review_required:
                raise ReviewNotRequired("this invoice's extraction did not ask for review")
            unknown = [r for r in reasons or [] if r not in asked.get("reasons", [])]
            if unknown:
                raise InvalidCorrection(f"not a review reason of this invoice: {unknown[0][:80]!r}")
            resolved = reasons if reasons else asked.get("reasons", [])
            entry = Entry("review", [{"field": "review", "previous": "required",
                                      "value": "resolved", "reasons": resolved}], note)
            if tx.corrections.record(invoice_id, account, invoice.version + 1, caller, entry,
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
    return reasons, _reason(body.get("note"), "note")


def history(services: Services, caller: Caller, account: str, invoice_id: str) -> list[dict]:
    """Every correction and review resolution of the invoice, oldest first."""
    with services.db.transaction(write=False) as tx:
        if tx.invoices.progress(caller, account, invoice_id) is None:
            raise NotFound("no such invoice")
        return tx.corrections.history(invoice_id)


def _completed(tx: Transaction, caller: Caller, account: str, invoice_id: str,
               if_match: rules.IfMatch | None = None) -> EditableInvoice:
    invoice = tx.invoices.for_update(caller, account, invoice_id)
    if invoice is None:
        raise NotFound("no such invoice")
    if if_match is not None and not if_match.holds(invoice.version):
        raise PreconditionFailed(f"If-Match does not name the invoice's current version "
                                 f"(ETag \"{rules.etag(invoice.version)}\"); nothing was changed")
    if invoice.status != "completed":
        raise InvoiceNotCompleted(f"invoice {invoice_id} is {invoice.status}; only a completed "
                                  "invoice can be corrected or reviewed")
    return invoice


def _read(services: Services, caller: Caller, account: str, invoice_id: str) -> dict:
    with services.db.transaction(write=False) as tx:
        invoice = tx.invoices.get(caller, account, invoice_id)
    if invoice is None:
        raise NotFound("no such invoice")
    return invoice
