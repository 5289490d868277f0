"""Embedded XML values, located on the printed page and checked against it.

The XML is the invoice (its values are copied exactly); the text layer, read as well, gives
each value its place on the page and flags a printed value that disagrees with the XML.
"""

from __future__ import annotations

import re
from decimal import Decimal

from . import document as D
from .candidates import Candidate
from .geometry import DocText
from .sources.xml_model import XmlInvoice
from .text import fold
from .values.dates import find_dates

XML_CONFIDENCE = 0.99
# A printed value at least this sure that the XML contradicts asks for review, and the XML value
# then counts only this much.
DISAGREEMENT_SURE = 0.5
DISAGREEING_CONFIDENCE = 0.8


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


def xml_fields(
    inv: XmlInvoice, dt: DocText | None, text_fields: dict | None, reasons: list[str]
) -> dict:
    """The output entries of the XML's values, placed on the page where the text layer shows
    them; a printed value the XML contradicts adds a review reason."""
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
            tcand: Candidate | None = (text_fields or {}).get(name)
            agrees = tcand is not None and _same(name, tcand.out_value(), value)
            if agrees and tcand.page:
                page, bbox = tcand.page, tcand.bbox
            else:
                hit = printed.locate(name, value)
                if hit is not None and hit[0] is not None:
                    ln = dt.lines[hit[0]]
                    page, bbox = ln.page, ln.span_bbox(hit[1], hit[2])
                elif hit is None and not agrees and tcand and tcand.score >= DISAGREEMENT_SURE:
                    shown = D.json_value(name, tcand.out_value())
                    reasons.append(
                        f"{name}: printed value {shown!r} disagrees with the embedded XML "
                        f"{D.json_value(name, value)!r}"
                    )
                    conf = DISAGREEING_CONFIDENCE
        out[name] = D.field_entry(name, value, conf, inv.raw.get(name), page, bbox)
    return out
