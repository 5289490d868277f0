"""Textract's AnalyzeExpense answer (ExpenseDocuments) as invoice-v2 values with provenance.

The shapes are AWS's published ones: each ExpenseDocument has SummaryFields (a `Type` from
Textract's standard taxonomy, an optional `LabelDetection`, a `ValueDetection` with `Text`,
`Geometry` and `Confidence` in percent, `PageNumber`, a `Currency` for amounts) and
LineItemGroups of LineItems of `LineItemExpenseFields` (ITEM, QUANTITY, UNIT_PRICE, PRICE,
EXPENSE_ROW). Geometry is relative to the page, origin top left; invoice-v2 boxes are PDF
points, origin bottom left.
"""
from __future__ import annotations

from .documents import Found, line_item

# Textract's standard field types, in order of preference for each invoice-v2 field.
SUMMARY_TYPES = {
    "invoice_number": ("INVOICE_RECEIPT_ID",),
    "issue_date": ("INVOICE_RECEIPT_DATE",),
    "due_date": ("DUE_DATE",),
    "seller_name": ("VENDOR_NAME",),
    "buyer_name": ("RECEIVER_NAME",),
    "seller_vat_id": ("VENDOR_VAT_NUMBER", "TAX_PAYER_ID"),
    "buyer_vat_id": ("RECEIVER_VAT_NUMBER",),
    "purchase_order": ("PO_NUMBER",),
    "net_total": ("SUBTOTAL",),
    "tax_total": ("TAX",),
    "gross_total": ("TOTAL",),
    "amount_due": ("AMOUNT_DUE",),
}
AMOUNT_TYPES = ("SUBTOTAL", "TAX", "TOTAL", "AMOUNT_DUE")
# The IBAN has no standard type: Textract files it under OTHER, with its printed label.
IBAN_LABELS = ("IBAN",)
LINE_TYPES = {"ITEM": "description", "QUANTITY": "quantity", "UNIT_PRICE": "unit_price",
              "PRICE": "net_amount"}
PERCENT = 100.0


def map_expense(expense_documents: list[dict], pages: list[dict]) -> tuple[dict, list, list]:
    """(found fields, line items, review reasons) of the first expense in the answer."""
    reasons: list[str] = []
    indexes = sorted({d.get("ExpenseIndex", 1) for d in expense_documents})
    if len(indexes) > 1:
        reasons.append(f"the file holds {len(indexes)} invoices; the first is returned")
    first = [d for d in expense_documents if d.get("ExpenseIndex", 1) == (indexes or [1])[0]]
    summary = [f for d in first for f in d.get("SummaryFields", [])]
    sizes = {p["number"]: (p["width"], p["height"]) for p in pages}
    found: dict[str, Found] = {}
    for name, types in SUMMARY_TYPES.items():
        for kind in types:
            candidates = [f for f in summary if _type(f) == kind and _text(f)]
            if candidates:
                found[name] = _best(name, candidates, sizes, reasons)
                break
    iban = [f for f in summary if _type(f) == "OTHER" and _text(f)
            and any(label in ((f.get("LabelDetection") or {}).get("Text") or "").upper()
                    for label in IBAN_LABELS)]
    if iban:
        found["iban"] = _best("iban", iban, sizes, reasons)
    currency = _currency(summary)
    if currency is not None:
        found["currency"] = currency
    items = [_line_item(item) for d in first for group in d.get("LineItemGroups", [])
             for item in group.get("LineItems", [])]
    return found, [i for i in items if any(v is not None for v in i.values())], reasons


def _type(field: dict) -> str | None:
    return (field.get("Type") or {}).get("Text")


def _text(field: dict) -> str | None:
    text = (field.get("ValueDetection") or {}).get("Text")
    return text.strip() if isinstance(text, str) and text.strip() else None


def _confidence(field: dict) -> float:
    """Textract's percentages as 0..1: the surer of the type and the value's reading is not
    enough, both must hold, so the lower one."""
    scores = [(field.get(k) or {}).get("Confidence") for k in ("Type", "ValueDetection")]
    known = [float(s) for s in scores if isinstance(s, (int, float))]
    return max(0.0, min(1.0, min(known) / PERCENT)) if known else 0.0


def _best(name: str, candidates: list[dict], sizes: dict, reasons: list[str]) -> Found:
    """The surest reading; amounts prefer the last page (a long invoice's totals are at its
    end, earlier pages carry subtotals forward). Different readings ask for review."""
    if _type(candidates[0]) in AMOUNT_TYPES:
        key = (lambda f: (f.get("PageNumber") or 0, _confidence(f)))
    else:
        key = _confidence
    best = max(candidates, key=key)
    readings = {_text(f) for f in candidates}
    if len(readings) > 1:
        reasons.append(f"{name}: Textract read {len(readings)} different values")
    page = best.get("PageNumber")
    return Found(value=_text(best), confidence=_confidence(best), raw=_text(best), page=page,
                 bbox=_bbox((best.get("ValueDetection") or {}).get("Geometry"), sizes.get(page)))


def _currency(summary: list[dict]) -> Found | None:
    """Textract attaches a currency to amounts; the total's counts most."""
    with_code = [f for f in summary if (f.get("Currency") or {}).get("Code")]
    if not with_code:
        return None
    best = max(with_code, key=lambda f: (_type(f) == "TOTAL", f["Currency"].get("Confidence", 0)))
    code = best["Currency"]["Code"]
    confidence = float(best["Currency"].get("Confidence", 0)) / PERCENT
    return Found(value=code, confidence=max(0.0, min(1.0, confidence)), raw=None,
                 page=best.get("PageNumber"))


def _line_item(item: dict) -> dict:
    values = {}
    row = None
    for field in item.get("LineItemExpenseFields", []):
        kind = _type(field)
        if kind in LINE_TYPES and LINE_TYPES[kind] not in values:
            values[LINE_TYPES[kind]] = _text(field)
        elif kind == "EXPENSE_ROW":
            row = _text(field)
    values.setdefault("description", row)
    return line_item(**values)


def _bbox(geometry: dict | None, size: tuple[float, float] | None) -> list | None:
    box = (geometry or {}).get("BoundingBox")
    if not box or size is None:
        return None
    width, height = size
    try:
        left, top = float(box["Left"]), float(box["Top"])
        right, bottom = left + float(box["Width"]), top + float(box["Height"])
    except (KeyError, TypeError, ValueError):
        return None
    return [left * width, height * (1 - bottom), right * width, height * (1 - top)]
