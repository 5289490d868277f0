"""Building the invoice-v2 output document (plain JSON-serialisable dict)."""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal, localcontext

from .values.amounts import format_amount

# invoice-v2: the document type, a credit note's amounts negative, the invoice it corrects
SCHEMA_VERSION = "invoice-v2"
DOCUMENT_TYPES = ("invoice", "credit_note")
# Where a document's fields were read: the values of invoice-v2's `source`.
SOURCES = ("embedded_xml", "text_layer", "ocr", "xml")

FIELD_NAMES = (
    "document_type",
    "invoice_number",
    "preceding_invoice_number",
    "issue_date",
    "due_date",
    "currency",
    "seller_name",
    "seller_vat_id",
    "buyer_name",
    "buyer_vat_id",
    "purchase_order",
    "iban",
    "net_total",
    "tax_total",
    "gross_total",
    "amount_due",
)
AMOUNT_FIELDS = ("net_total", "tax_total", "gross_total", "amount_due")
DATE_FIELDS = ("issue_date", "due_date")
ID_FIELDS = ("invoice_number", "purchase_order")
KEY_FIELDS = ("invoice_number", "issue_date", "currency", "gross_total", "seller_name")
LINE_ITEM_KEYS = ("description", "quantity", "unit_price", "net_amount", "vat_rate")


def format_plain(value: Decimal | None) -> str | None:
    """Decimal string without exponent or trailing zeros (quantities, rates)."""
    if value is None:
        return None
    value = Decimal(value)
    if not value.is_finite() or value.adjusted() > 18 or value.adjusted() < -12:
        return None if value != 0 else "0"
    with localcontext() as ctx:
        ctx.prec = 60
        s = format(value.normalize(), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "0", "") else s


def json_value(name: str, value):
    """The output form of a field value: ISO date, decimal string or plain string."""
    if value is None:
        return None
    if name in AMOUNT_FIELDS:
        return format_amount(Decimal(value))
    if name in DATE_FIELDS:
        if isinstance(value, _dt.date):
            return value.isoformat()
        return str(value)[:10]
    if name == "currency":
        return str(value).strip().upper()
    if name in ("iban", "seller_vat_id", "buyer_vat_id"):
        return "".join(str(value).split()).upper()
    return str(value)


def field_entry(name: str, value, confidence: float, raw=None, page=None, bbox=None) -> dict:
    value = json_value(name, value)
    if value is None:
        return {"value": None, "confidence": 0.0, "raw": None, "page": None, "bbox": None}
    conf = max(0.0, min(1.0, round(float(confidence), 3)))
    return {
        "value": value,
        "confidence": conf,
        "raw": None if raw is None else str(raw),
        "page": page if page else None,
        "bbox": [round(float(x), 2) for x in bbox] if bbox and page else None,
    }


def line_item_entry(item: dict) -> dict:
    return {
        "description": item.get("description"),
        "quantity": format_plain(item.get("quantity")),
        "unit_price": format_amount(item.get("unit_price")),
        "net_amount": format_amount(item.get("net_amount")),
        "vat_rate": format_plain(item.get("vat_rate")),
    }


def build_document(
    *,
    source: str,
    versions: dict,
    content_hash: str,
    pages: int,
    fields: dict,
    line_items: list,
    validations: list,
    reasons: list,
) -> dict:
    out_fields = {}
    for name in FIELD_NAMES:
        entry = fields.get(name)
        out_fields[name] = entry if entry is not None else field_entry(name, None, 0.0)
    seen = set()
    unique_reasons = []
    for r in reasons:
        if r not in seen:
            seen.add(r)
            unique_reasons.append(r)
    return {
        "schema_version": SCHEMA_VERSION,
        "source": source,
        "versions": dict(versions),
        "document": {"content_hash": content_hash, "pages": pages},
        "fields": out_fields,
        "line_items": [line_item_entry(li) for li in line_items],
        "validations": validations,
        "review": {"required": bool(unique_reasons), "reasons": unique_reasons},
    }
