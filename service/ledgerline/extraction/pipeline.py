"""The extraction pipeline: one PDF parse, embedded XML when present, the text layer always;
OCR for images and for the pages without a text layer."""

from __future__ import annotations

import re
from decimal import Decimal

from . import document as D
from . import ocr
from .candidates import Cand
from .embedded_xml import XmlInvoice, pick_invoice_attachment
from .errors import ExtractionError
from .labels import fold
from .layout import DocText
from .line_items import extract_line_items
from .numbers import find_dates
from .parties import extract_parties
from .pdf import MIN_TEXT_CHARS
from .text_layer import extract_text_fields
from .validation import apply_to_confidence, run_all

XML_CONFIDENCE = 0.99
LOW_CONFIDENCE = 0.6


def _has_text_layer(parsed) -> bool:
    chars = 0
    cid = 0
    for page in parsed.pages:
        for ln in page.lines:
            t = ln.text
            cid += t.count("(cid:")
            chars += len(t.strip())
    return chars >= MIN_TEXT_CHARS and cid * 6 < chars


def _text_entries(fields: dict, dt: DocText) -> dict:
    out = {}
    for name, cand in fields.items():
        if cand is None:
            out[name] = D.field_entry(name, None, 0.0)
        else:
            read = ocr.location_confidence(dt.lines, cand.line, cand.page, cand.bbox)
            out[name] = D.field_entry(
                name, cand.out_value(), cand.score * read, cand.raw, cand.page, cand.bbox
            )
    return out


def _text_layer(dt: DocText) -> tuple[dict, list, list[str], dict]:
    fields, reasons, facts = extract_text_fields(dt)
    fields.update(extract_parties(dt))
    items = extract_line_items(dt, credit_note=facts.get("credit_note", False))
    for name in facts.get("vat_checksum_failed", ()):
        reasons.append(f"{name}: printed VAT identifier fails its checksum")
    return fields, items, reasons, facts


# --------------------------------------------------------------------------- XML cross-check
def _squash(s: str) -> str:
    return re.sub(r"[\s\-_./:,]", "", fold(s))


class _Printed:
    """Where XML values appear on the printed page."""

    def __init__(self, dt: DocText):
        self.dt = dt
        self._amounts = None
        self._squashed = None

    def amount(self, value: Decimal):
        if self._amounts is None:
            self._amounts = {}
            for i in range(len(self.dt.lines)):
                for v, s, e, _ in self.dt.amounts(i):
                    self._amounts.setdefault(v, (i, s, e))
                    self._amounts.setdefault(-v, (i, s, e))
        return self._amounts.get(value)

    def text(self, value: str):
        target = _squash(value)
        if len(target) < 2:
            return None
        for i, f in enumerate(self.dt.folded):
            if target in _squash(f):
                return (i, 0, len(self.dt.lines[i].text))
        if self._squashed is None:
            self._squashed = _squash(self.dt.full_folded)
        return (None, 0, 0) if target in self._squashed else None

    def date(self, iso: str):
        for i, ln in enumerate(self.dt.lines):
            if not any(c.isdigit() for c in ln.text):
                continue
            for d, s, e in find_dates(ln.text, month_first=self.dt.month_first):
                if d.isoformat() == iso:
                    return (i, s, e)
        return None

    def locate(self, name: str, value):
        if value is None:
            return None
        if name in D.AMOUNT_FIELDS:
            return self.amount(Decimal(value))
        if name in D.DATE_FIELDS:
            return self.date(str(value))
        if name == "currency":
            hit = self.text(str(value))
            if hit is None and value == "EUR" and "€" in self.dt.full_text:
                return (None, 0, 0)
            return hit
        return self.text(str(value))


def _same(name: str, a, b) -> bool:
    if a is None or b is None:
        return False
    if name in D.AMOUNT_FIELDS:
        return Decimal(a) == Decimal(b)
    return _squash(str(a)) == _squash(str(b))


def _xml_fields(
    inv: XmlInvoice, dt: DocText | None, text_fields: dict | None, reasons: list[str]
) -> dict:
    printed = _Printed(dt) if dt is not None else None
    out = {}
    values = dict(inv.fields)
    if not values.get("currency"):
        reasons.append("currency: the embedded XML names no invoice currency")
    for name in D.FIELD_NAMES:
        value = values.get(name)
        if value is None:
            out[name] = D.field_entry(name, None, 0.0)
            continue
        page = bbox = None
        conf = XML_CONFIDENCE
        if printed is not None:
            tcand: Cand | None = (text_fields or {}).get(name)
            agrees = tcand is not None and _same(name, tcand.out_value(), value)
            if agrees and tcand.page:
                page, bbox = tcand.page, tcand.bbox
            elif agrees:
                hit = printed.locate(name, value)
                if hit is not None and hit[0] is not None:
                    ln = dt.lines[hit[0]]
                    page, bbox = ln.page, ln.span_bbox(hit[1], hit[2])
            else:
                hit = printed.locate(name, value)
                if hit is not None and hit[0] is not None:
                    ln = dt.lines[hit[0]]
                    page, bbox = ln.page, ln.span_bbox(hit[1], hit[2])
                elif hit is None and tcand is not None and tcand.score >= 0.5:
                    shown = D.json_value(name, tcand.out_value())
                    reasons.append(
                        f"{name}: printed value {shown!r} disagrees with the embedded XML "
                        f"{D.json_value(name, value)!r}"
                    )
                    conf = 0.8
        out[name] = D.field_entry(name, value, conf, inv.raw.get(name), page, bbox)
    return out


# --------------------------------------------------------------------------- entry point
def extract(
    path, *, content_hash: str, use_embedded_xml: bool, versions: dict, ocr_options=None
) -> dict:
    parsed, ocr_pages = ocr.read_document(path, ocr_options)
    if ocr_pages:  # the document says what read it; the cache key always names OCR too
        versions = {**versions, "preprocessing": ocr.preprocessing_version(
            versions["preprocessing"], ocr_options)}
    has_text = _has_text_layer(parsed)
    xml = pick_invoice_attachment(parsed.attachments) if use_embedded_xml else None
    if not has_text and xml is None:
        raise ExtractionError("no_text_layer", "no text layer, and OCR found no text either")
    reasons: list[str] = []
    dt = DocText(parsed) if has_text else None
    text_fields = items = facts = None
    if dt is not None:
        text_fields, items, text_reasons, facts = _text_layer(dt)
    if xml is not None:
        _att, inv = xml
        reasons.extend(f"embedded XML: {w}" for w in inv.warnings)
        if dt is None:
            reasons.append("no text layer: the printed invoice could not be compared with the XML")
        fields = _xml_fields(inv, dt, text_fields, reasons)
        # note-only lines (no amount, quantity or price) carry no billing data
        line_items = [
            li
            for li in inv.line_items
            if any(li.get(k) is not None for k in ("net_amount", "quantity", "unit_price"))
        ]
        values = {k: inv.fields.get(k) for k in D.FIELD_NAMES}
        validations = run_all(
            values, line_items=line_items, totals=inv.totals, tax_breakdown=inv.tax_breakdown
        )
        source = "embedded_xml"
    else:
        reasons.extend(text_reasons)
        fields = _text_entries(text_fields, dt)
        line_items = items
        values = {k: (v["value"]) for k, v in fields.items()}
        validations = run_all(values, line_items=line_items, totals=None, tax_breakdown=None)
        source = "ocr" if ocr_pages else "text_layer"
        for name in D.KEY_FIELDS:
            entry = fields[name]
            if entry["value"] is None:
                if not (name == "currency" and any(r.startswith("currency") for r in reasons)):
                    reasons.append(f"{name}: not found on the invoice")
            elif entry["confidence"] < LOW_CONFIDENCE:
                reasons.append(f"{name}: low confidence ({entry['confidence']})")
    conf = {k: v["confidence"] for k, v in fields.items() if v["value"] is not None}
    reasons.extend(apply_to_confidence(validations, conf))
    for k, c in conf.items():
        fields[k]["confidence"] = c
    document = D.build_document(
        source=source,
        versions=versions,
        content_hash=content_hash,
        pages=len(parsed.pages),
        fields=fields,
        line_items=line_items,
        validations=validations,
        reasons=reasons,
    )
    if ocr_pages:
        document["document"]["ocr_pages"] = ocr_pages
    return document
