"""An invoice as every read shows it, whichever store read it: its fields, its review, the
extraction with its corrections on top, and its possible duplicates (domain.duplicates).
`row` is anything with the attributes of a read's row (adapters/db/invoices.py, or the
in-memory store's)."""
from __future__ import annotations

import json
from collections.abc import Iterable

from ..domain.corrections import SUMMARY_FIELDS, corrected_document
from ..domain.duplicates import CONTENT_HASH, Summary, matched_on, number_key, seller_key
from ..ports.invoices import EditableInvoice

# What domain.duplicates.matched_on compares, as each invoice shows it.
DUPLICATE_FIELDS = ("seller_name", "invoice_number", "gross_total", "issue_date")


def result_summary(document: dict) -> dict:
    """What a result keeps beside its document, for filters and the duplicate lookup: a few
    fields' values, the seller's and the number's keys, and whether the extraction asks for
    review."""
    fields = document.get("fields", {})

    def value(name: str) -> str | None:
        return (fields.get(name) or {}).get("value")

    return dict(invoice_number=value("invoice_number"), issue_date=value("issue_date"),
                seller_name=value("seller_name"), gross_total=value("gross_total"),
                currency=value("currency"), seller_key=seller_key(value("seller_name")),
                number_key=number_key(value("invoice_number")),
                review_required=(document.get("review") or {}).get("required") is True)


def shown_document(row) -> dict | None:
    """The extraction as the invoice shows it: the model's with the invoice's corrections."""
    if not row.document:
        return None
    overlay = json.loads(row.corrections) if row.corrections else None
    return corrected_document(json.loads(row.document), overlay)


def editable(row) -> EditableInvoice:
    """The invoice as a correction starts from, from a read's row with its document."""
    return EditableInvoice(
        id=row.id, content_hash=row.content_hash, created_at=row.created_at,
        status=row.status, version=row.version,
        model=json.loads(row.document) if row.document else None, shown=shown_document(row),
        overlay=json.loads(row.corrections) if row.corrections else None,
        review_required=row.review_required, review_resolved_at=row.review_resolved_at)


def possible_duplicates(same_file: Iterable[str], mine: Summary,
                        same_seller: Iterable[tuple[str, Summary]]) -> list[dict]:
    """The `possible_duplicates` of an invoice, from the ids of the caller's other invoices of
    the same file and (id, summary) of those of other files with the same seller key, each
    oldest first."""
    found = [{"id": other, "matched_on": CONTENT_HASH} for other in same_file]
    for other, summary in same_seller:
        rules = matched_on(mine, summary)
        if rules:
            found.append({"id": other, "matched_on": rules})
    return found


def review_state(row) -> dict | None:
    """None until the invoice completed; then whether its extraction asks for review."""
    if row.status != "completed":
        return None
    if row.review_resolved_at is not None:
        state = "resolved"
    else:
        state = "required" if row.review_required else "not_required"
    return {"state": state,
            "resolved_at": (row.review_resolved_at.isoformat().replace("+00:00", "Z")
                            if row.review_resolved_at else None),
            "resolved_by": row.review_resolved_by}


def invoice_view(row) -> dict:
    """What every view of an invoice shows, before its extraction or summary."""
    return {
        "id": row.id,
        "account": row.account,
        "status": row.status,
        "content_hash": row.content_hash,
        "uploaded_by": {"key_id": row.uploaded_by, "role": row.uploader_role,
                        "name": row.uploader_name},
        "created_at": row.created_at.isoformat().replace("+00:00", "Z"),
        "error": ({"code": row.error_code, "message": row.error_message}
                  if row.status == "failed" else None),
        "version": row.version,
        "review": review_state(row),
        "possible_duplicate": row.duplicate_of is not None,
        "duplicate_of": row.duplicate_of,
    }


def listed(row, *, with_document: bool) -> dict:
    """An invoice as a page of a list shows it: with its summary, or its extraction."""
    view = invoice_view(row)
    if with_document:
        view["extraction"] = shown_document(row)
    else:
        view["summary"] = {name: getattr(row, name) for name in SUMMARY_FIELDS}
    return view


def waits_for_review(row) -> bool:
    """Completed, its checks (the model's, or its own once corrected) ask for review, and
    nobody resolved it yet."""
    return (row.status == "completed" and row.review_required is True
            and row.review_resolved_at is None)
