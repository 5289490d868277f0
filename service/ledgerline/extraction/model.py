"""The positioned-text model every text source produces and every field finder reads.

A source (the PDF text layer, OCR) turns a document into pages of :class:`Line` objects: a run of
text on one baseline with its box in PDF points (origin at the bottom left of the page, y growing
upwards), the horizontal extent of every character, and, where the source knows it, how sure it
is of each character's word. Field finders never learn which source the lines came from;
:func:`location_confidence` turns the per-word confidence into the factor a field's confidence
is multiplied by, whatever the source (1.0 where it reads exactly).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Protocol

BOX_SLACK = 0.01  # points: a character touching a box's edge is not inside it


@dataclass(slots=True)
class Line:
    """One text line: a run of characters on one baseline, split at wide gaps into cells."""

    page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    chars: list = field(default_factory=list, repr=False)  # (x0, x1) per character of text, or None
    # Per character of text: the recognition confidence (0..1) of the word it belongs to, or None
    # where the source reads the text exactly (a PDF text layer).
    confidences: list | None = field(default=None, repr=False)
    height: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.height = max(self.y1 - self.y0, 1.0)

    @property
    def bbox(self) -> list[float]:
        return [round(self.x0, 2), round(self.y0, 2), round(self.x1, 2), round(self.y1, 2)]

    def span_bbox(self, start: int, end: int) -> list[float]:
        """Bounding box of text[start:end] (falls back to the whole line)."""
        xs = self.chars[start:end]
        xs = [c for c in xs if c is not None]
        if not xs:
            return self.bbox
        return [round(xs[0][0], 2), round(self.y0, 2), round(xs[-1][1], 2), round(self.y1, 2)]

    def span_confidence(self, start: int, end: int) -> float | None:
        """The lowest word confidence over text[start:end]; None when the source is exact."""
        if self.confidences is None:
            return None
        known = [c for c in self.confidences[start:end] if c is not None]
        return min(known) if known else None


@dataclass(slots=True)
class Page:
    number: int  # 1-based
    width: float
    height: float
    lines: list[Line]  # top to bottom, then left to right
    # Where the source can read the page again independently (OCR's second recogniser, on the
    # page's picture); None where it cannot.
    read_again: ReadAgain | None = field(default=None, repr=False, compare=False)
    # OCR took the page for a phone photo: it cut the page from its desk and squared it, or read
    # it again without its paper's grain (``ocr.reading``). Its values' confidence is calibrated
    # on photos' readings apart from scans' (``ocr.calibration``).
    photo: bool = False


class ReadAgain(Protocol):
    """A second, independent reading of a page's picture inside a box [x0, y0, x1, y1]."""

    def read(self, bbox: list[float]) -> tuple[str, float]:
        """The text inside the box, and how sure the reading is (0..1)."""
        ...

    def ink(self, bbox: list[float]) -> list[tuple[float, float, float]]:
        """Each column of the box (a line's height) with ink, from a little above the line to
        a little below: (x, the ink's top, its bottom), to find the accents, cedillas and
        ogoneks a first reading may have left out."""
        ...


def bbox_confidence(line: Line, bbox) -> float | None:
    """The source's confidence in the characters of `line` inside a provenance box
    [x0, y0, x1, y1] (the whole line without one); None where the source reads exactly."""
    if line.confidences is None:
        return None
    if bbox:
        x0, x1 = bbox[0], bbox[2]
        inside = [i for i, c in enumerate(line.chars)
                  if c is not None and c[1] > x0 + BOX_SLACK and c[0] < x1 - BOX_SLACK]
        if inside:
            return line.span_confidence(inside[0], inside[-1] + 1)
    return line.span_confidence(0, len(line.text))


def location_confidence(lines: list[Line], index: int | None, page: int | None, bbox) -> float:
    """How sure the source is of a value read at line `index` (or at `bbox` on `page`); a
    field's confidence is multiplied by it. Exact sources give 1.0. A value with no place
    (derived from others) gets the median of the document's uncertain lines."""
    if index is not None and 0 <= index < len(lines):
        return _certain(bbox_confidence(lines[index], bbox))
    if page and bbox:
        hits = [ln for ln in lines if ln.page == page and ln.x0 < bbox[2] and bbox[0] < ln.x1
                and ln.y0 < bbox[3] and bbox[1] < ln.y1]
        if hits:
            return min(_certain(bbox_confidence(ln, bbox)) for ln in hits)
    read = [c for c in (ln.span_confidence(0, len(ln.text)) for ln in lines) if c is not None]
    return statistics.median(read) if read else 1.0


def _certain(confidence: float | None) -> float:
    return 1.0 if confidence is None else confidence
