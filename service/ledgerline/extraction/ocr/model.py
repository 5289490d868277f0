"""OCR results in the text layer's own positioned-text model, plus what only OCR knows.

An OCR page is a text-layer ``Page`` whose lines are :class:`OcrLine`: PDF points, origin at the
bottom left, ``chars`` the (x0, x1) of every character, so field finders and provenance treat them
exactly like text-layer lines. ``OcrLine`` adds ``confidences``: for every character of ``text``,
the recognition confidence (0..1) of the word it belongs to (a space between two words gets the
lower of the two). :func:`span_confidence` reads the confidence of any line, text-layer lines
included (they are certain: 1.0), so callers need not know which source a line came from.

This module is the only place in the OCR package that names the text layer's classes.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ..pdf import Line, Page, ParsedPdf, parse_pdf

__all__ = ["Line", "OcrLine", "Page", "ParsedPdf", "bbox_confidence", "location_confidence",
           "parse_pdf", "span_confidence"]


@dataclass(slots=True)
class OcrLine(Line):
    confidences: list = field(default_factory=list, repr=False)  # one float per character

    def span_confidence(self, start: int, end: int) -> float:
        """The least confident word touching text[start:end] (the whole line if empty)."""
        values = self.confidences[start:end] or self.confidences
        return min(values) if values else 0.0


def span_confidence(line: Line, start: int = 0, end: int | None = None) -> float:
    """Recognition confidence of a span of any line: 1.0 for text read from a text layer."""
    if isinstance(line, OcrLine):
        return line.span_confidence(start, len(line.text) if end is None else end)
    return 1.0


def bbox_confidence(line: Line, bbox) -> float:
    """Confidence of the characters of `line` inside a provenance box [x0, y0, x1, y1]."""
    if not isinstance(line, OcrLine) or not bbox:
        return span_confidence(line)
    x0, x1 = bbox[0], bbox[2]
    inside = [i for i, c in enumerate(line.chars)
              if c is not None and c[1] > x0 + 0.01 and c[0] < x1 - 0.01]
    if not inside:
        return line.span_confidence(0, len(line.text))
    return line.span_confidence(inside[0], inside[-1] + 1)


def location_confidence(lines: list[Line], index: int | None, page: int | None, bbox) -> float:
    """How sure OCR is of a value read at line `index` (or at `bbox` on `page`): the field
    confidence is multiplied by it. A value with no place (derived from others) gets the
    document's median, a text-layer value 1.0."""
    if index is not None and 0 <= index < len(lines):
        return bbox_confidence(lines[index], bbox)
    if page and bbox:
        hits = [ln for ln in lines if ln.page == page and ln.x0 < bbox[2] and bbox[0] < ln.x1
                and ln.y0 < bbox[3] and bbox[1] < ln.y1]
        if hits:
            return min(bbox_confidence(ln, bbox) for ln in hits)
    read = [span_confidence(ln) for ln in lines if isinstance(ln, OcrLine)]
    return statistics.median(read) if read else 1.0
