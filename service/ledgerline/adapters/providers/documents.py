"""An invoice-v2 document from what a hosted provider found, with the same checks as the rules.

A provider returns values as it read them (Textract: the text as printed; a chat model: the
value it was asked for, and the text it copied it from). Here they are normalised with the
project's own value parsers, placed on their page where the provider gave no geometry, and
passed through the EN 16931 arithmetic rules and identifier checks the rules extractor runs,
so that a provider's document asks for review exactly when the rules' would.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ...extraction import document as D
from ...extraction.document_type import CREDIT_NOTE, signed_amounts
from ...extraction.pipeline import LOW_CONFIDENCE
from ...extraction.validation import apply_to_confidence, run_all
from ...extraction.values.amounts import parse_amount, parse_percent
from ...extraction.values.dates import parse_date

MONTH_FIRST_CURRENCIES = ("USD",)  # 03/04/2026 is March 4th on a US invoice, 3 April elsewhere


@dataclass
class Found:
    """One field as a provider found it."""
    value: str | None          # the value as the provider gave it (or as printed)
    confidence: float          # 0..1
    raw: str | None = None     # the text as printed, when known
    page: int | None = None
    bbox: list | None = None   # PDF points, origin bottom left


def normalised(name: str, text: str | None, *, currency: str | None = None):
    """The field's value in invoice-v2's form (Decimal, date or text), or None."""
    if text is None or not str(text).strip():
        return None
    text = str(text).strip()
    if name in D.AMOUNT_FIELDS:
        return _decimal(text) if _plain_decimal(text) else parse_amount(text)
    if name in D.DATE_FIELDS:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            return parse_date(text, month_first=currency in MONTH_FIRST_CURRENCIES)
    if name == "currency":
        return text.upper() if len(text) == 3 and text.isalpha() else None
    if name == "document_type":
        return text if text in D.DOCUMENT_TYPES else None
    return text


def line_item(description=None, quantity=None, unit_price=None, net_amount=None,
              vat_rate=None) -> dict:
    """A line item with its numbers parsed (as printed, or as plain decimals)."""
    return {"description": description.strip() if isinstance(description, str) else None,
            "quantity": _number(quantity), "unit_price": _number(unit_price),
            "net_amount": _number(net_amount), "vat_rate": _rate(vat_rate)}


def build(*, source: str, content_hash: str, pages: int, found: dict[str, Found],
          line_items: list[dict], reasons: list[str]) -> dict:
    """The invoice-v2 document: fields, line items, validations and review reasons."""
    currency = (found.get("currency") or Found(None, 0)).value
    fields = {}
    for name in D.FIELD_NAMES:
        item = found.get(name)
        value = normalised(name, item.value, currency=currency) if item else None
        if item is not None and item.value is not None and value is None:
            reasons.append(f"{name}: {item.value[:40]!r} is not a usable value")
        fields[name] = (D.field_entry(name, value, item.confidence, item.raw, item.page,
                                      item.bbox) if value is not None
                        else D.field_entry(name, None, 0.0))
    if fields["document_type"]["value"] == CREDIT_NOTE:  # money owed to the recipient
        for name in D.AMOUNT_FIELDS:
            if fields[name]["value"] is not None:
                fields[name]["value"] = D.json_value(
                    name, signed_amounts(Decimal(fields[name]["value"])))
        line_items = [{**li, "net_amount": signed_amounts(li["net_amount"])} for li in line_items]
    values = {name: entry["value"] for name, entry in fields.items()}
    validations = run_all(values, line_items=line_items, totals=None, tax_breakdown=None)
    for name in D.KEY_FIELDS:
        entry = fields[name]
        if entry["value"] is None:
            reasons.append(f"{name}: not found on the invoice")
        elif entry["confidence"] < LOW_CONFIDENCE:
            reasons.append(f"{name}: low confidence ({entry['confidence']})")
    confidence = {k: v["confidence"] for k, v in fields.items() if v["value"] is not None}
    reasons.extend(apply_to_confidence(validations, confidence))
    for name, value in confidence.items():
        fields[name]["confidence"] = value
    return D.build_document(source=source, versions={}, content_hash=content_hash, pages=pages,
                            fields=fields, line_items=line_items, validations=validations,
                            reasons=reasons)


def locate(text: str | None, pages: list[dict]) -> tuple[int | None, list | None]:
    """(page, bbox) of the first positioned line holding `text` exactly, for a value a
    provider returned without geometry; (None, None) where the text is not printed."""
    needle = " ".join(str(text).split()) if text else ""
    if len(needle) < 2:
        return None, None
    for page in pages:
        for line_text, x0, y0, x1, y1 in page["lines"]:
            if needle in " ".join(line_text.split()):
                return page["number"], [x0, y0, x1, y1]
    return None, None


def _plain_decimal(text: str) -> bool:
    return all(c.isdigit() or c in "-." for c in text) and any(c.isdigit() for c in text)


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _number(value) -> Decimal | None:
    if value is None:
        return None
    text = str(value).strip()
    return _decimal(text) if _plain_decimal(text) else parse_amount(text)


def _rate(value) -> Decimal | None:
    if value is None:
        return None
    text = str(value).strip()
    return _decimal(text) if _plain_decimal(text) else parse_percent(text)
