"""The CSV export's columns: every header field of the invoice as it shows (corrections on
top), its review state, and optionally one row per line item."""
from __future__ import annotations

from ..extraction.document import FIELD_NAMES, LINE_ITEM_KEYS

INVOICE_COLUMNS = ["id", "status", "created_at", "content_hash", "uploaded_by",
                   "uploaded_by_key_id", *FIELD_NAMES, "review", "review_reasons", "version",
                   "error_code"]
LINE_COLUMNS = ["line_number", *LINE_ITEM_KEYS]
REASON_SEPARATOR = " | "


def header(*, by_line: bool) -> list[str]:
    return INVOICE_COLUMNS + (LINE_COLUMNS if by_line else [])


def rows(invoice: dict, *, by_line: bool) -> list[list]:
    """The invoice's row, or one row per line item (an invoice without any: one row)."""
    extraction = invoice.get("extraction") or {}
    fields = extraction.get("fields", {})
    review = invoice.get("review") or {}
    uploader = invoice["uploaded_by"]
    base = [invoice["id"], invoice["status"], invoice["created_at"], invoice["content_hash"],
            uploader["name"] or uploader["key_id"], uploader["key_id"],
            *((fields.get(name) or {}).get("value") for name in FIELD_NAMES),
            review.get("state"),
            REASON_SEPARATOR.join((extraction.get("review") or {}).get("reasons", [])),
            invoice["version"], (invoice.get("error") or {}).get("code")]
    if not by_line:
        return [base]
    items = extraction.get("line_items") or []
    if not items:
        return [base + [None] * len(LINE_COLUMNS)]
    return [base + [number, *(item.get(key) for key in LINE_ITEM_KEYS)]
            for number, item in enumerate(items, 1)]
