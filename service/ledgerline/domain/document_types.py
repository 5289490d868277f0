"""What a stored extraction result is: an invoice to pay or a credit note (money owed to the
recipient). The one reading of it for webhook events, exports and the review screen.

The names are invoice-v2's `fields.document_type` values (extraction/document.py writes them;
tests/unit/test_webhook_rules.py holds the two lists equal).
"""
from __future__ import annotations

INVOICE, CREDIT_NOTE = "invoice", "credit_note"
DOCUMENT_TYPES = (INVOICE, CREDIT_NOTE)


def document_type_of(document: dict | None) -> str:
    """The type a result states (`fields.document_type`). A result made before invoice-v2 read
    the type (invoice-v1 had none), or one that names none, is an invoice."""
    entry = ((document or {}).get("fields") or {}).get("document_type")
    value = entry.get("value") if isinstance(entry, dict) else None
    return value if value in DOCUMENT_TYPES else INVOICE
