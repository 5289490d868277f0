"""The positioned-text model every text source produces and every field finder reads.

A source (the PDF text layer, OCR) turns a document into pages of :class:`Line` objects: a run of
text on one baseline with its box in PDF points (origin at the bottom left of the page, y growing
upwards), the horizontal extent of every character, and, where the source knows it, how sure it
is of each character's word. Field finders never learn which source the lines came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
