"""The values typed into a PDF form's text fields, as lines of the page they are shown on.

An invoice made from a fillable template (an office suite's form, a PDF editor's) keeps its
values — the date, the parties, the amounts — in form fields: widget annotations whose value
(``/V``) the viewer draws in the field's box. pdfminer's layout analysis reads the page's
content stream only, so without this the page offers its labels and none of its values. Each
line of a field's value becomes a :class:`~..model.Line` in the field's box, top down, in the
font size its default appearance (``/DA``) names; character positions are estimated from that
size (no glyph widths are known), which is what the finders' geometry needs.
"""

from __future__ import annotations

import re

from pdfminer.pdftypes import resolve1
from pdfminer.psparser import PSLiteral

from ..model import Line
from ..text import normalise_text

TEXT_FIELD = "Tx"
HIDDEN_FLAGS = 0x2 | 0x20  # annotation flags Hidden and NoView
DEFAULT_FONT_SIZE = 10.0
CHAR_WIDTH_EMS = 0.5  # an average glyph's advance, in ems
LINE_SPACING_EMS = 1.2
PADDING = 2.0  # points between the field's border and its text
MAX_PARENTS = 8  # field inheritance is followed this far up (a loop in a broken file ends)
_FONT_SIZE = re.compile(rb"([\d.]+)\s+Tf")


def _inherited(annot: dict, key: str):
    """A field attribute, from the widget or the field it belongs to (``/Parent``)."""
    node = annot
    for _ in range(MAX_PARENTS):
        if not isinstance(node, dict):
            return None
        if key in node:
            return resolve1(node[key])
        node = resolve1(node.get("Parent"))
    return None


def _name(value) -> str | None:
    return value.name if isinstance(value, PSLiteral) else None


def _text(value) -> str:
    """A PDF text string: UTF-16 with its byte-order mark, else PDFDocEncoding (Latin-1 here)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, bytes):
        return ""
    if value.startswith(b"\xfe\xff"):
        return value[2:].decode("utf-16-be", errors="replace")
    return value.decode("latin-1")


def _font_size(annot: dict) -> float:
    da = _inherited(annot, "DA")
    m = _FONT_SIZE.search(da) if isinstance(da, bytes) else None
    size = float(m.group(1)) if m else 0.0
    return size if size > 0 else DEFAULT_FONT_SIZE  # 0 Tf: the viewer fits the text


def field_lines(pdf_page, page_no: int) -> list[Line]:
    """Lines of the filled-in text fields shown on one page (none for a page without a form)."""
    out: list[Line] = []
    for ref in resolve1(getattr(pdf_page, "annots", None)) or []:
        annot = resolve1(ref)
        if not isinstance(annot, dict) or _name(resolve1(annot.get("Subtype"))) != "Widget":
            continue
        if _name(_inherited(annot, "FT")) != TEXT_FIELD:
            continue
        flags = resolve1(annot.get("F")) or 0
        rect = resolve1(annot.get("Rect"))
        value = _text(_inherited(annot, "V"))
        if not value.strip() or not isinstance(rect, list) or len(rect) != 4:
            continue
        if isinstance(flags, int) and flags & HIDDEN_FLAGS:
            continue
        try:
            x0, y0, x1, y1 = (float(resolve1(v)) for v in rect)
        except (TypeError, ValueError):
            continue
        out.extend(_value_lines(value, min(x0, x1), max(y0, y1), _font_size(annot), page_no))
    return out


def _value_lines(value: str, left: float, top: float, size: float, page_no: int) -> list[Line]:
    lines = []
    advance = CHAR_WIDTH_EMS * size
    baseline = top - PADDING - size
    for raw in value.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        text = normalise_text(raw).strip()
        if text:
            x = left + PADDING
            chars = [(x + k * advance, x + (k + 1) * advance) for k in range(len(text))]
            lines.append(Line(page_no, x, baseline, x + len(text) * advance, baseline + size,
                              text, chars))
        baseline -= LINE_SPACING_EMS * size
    return lines
