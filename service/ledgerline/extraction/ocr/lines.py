"""Tesseract's words → lines of the positioned-text model, in PDF points from the bottom left.

A text-layer line is a run of characters on one baseline, split into cells where a wide gap
separates them (tabular text). OCR lines follow the same rule: Tesseract's text line is split
where the space between two words is wider than ``CELL_GAP_HEIGHTS`` line heights, so a label and
its value far to the right end up as two cells on one row, as they do in a text layer. Each
line carries ``confidences``: for every character, the recognition confidence (0..1) of the word
it belongs to (a space between two words gets the lower of the two).
"""
from __future__ import annotations

import unicodedata
from itertools import pairwise

from ..model import Line, Page
from .engine import PageResult, Word

POINTS_PER_INCH = 72.0
CELL_GAP_HEIGHTS = 1.5  # pdfminer splits at 3+ spaces: about one and a half line heights
# Marks that carry no text (rules, table borders, speckle read as "|", "—", "~") are dropped
# unless Tesseract is fairly sure of them.
NOISE_CONFIDENCE = 0.6
KEEP_SYMBOLS = set("€$£¥₹%&@#+-/")


def page_from_result(result: PageResult, number: int, dpi: float) -> Page:
    """One page of OCR lines; the page is the upright, deskewed image, measured in points."""
    scale = POINTS_PER_INCH / dpi
    height_pt = result.height * scale
    by_line: dict[int, list[Word]] = {}
    for word in result.words:
        if _is_text(word):
            by_line.setdefault(word.line, []).append(word)
    lines: list[Line] = []
    for words in by_line.values():
        words.sort(key=lambda w: w.box[0])
        for cell in _cells(words):
            lines.append(_line(cell, number, scale, height_pt))
    lines.sort(key=lambda ln: (-ln.y1, ln.x0))
    return Page(number, result.width * scale, height_pt, lines)


def _is_text(word: Word) -> bool:
    text = word.text.strip()
    if not text:
        return False
    if any(ch.isalnum() for ch in text) or any(ch in KEEP_SYMBOLS for ch in text):
        return True
    return word.confidence >= NOISE_CONFIDENCE


def _cells(words: list[Word]) -> list[list[Word]]:
    top, bottom = words[0].line_box[1], words[0].line_box[3]
    gap_limit = CELL_GAP_HEIGHTS * max(1, bottom - top)
    cells = [[words[0]]]
    for prev, word in pairwise(words):
        if word.box[0] - prev.box[2] > gap_limit:
            cells.append([word])
        else:
            cells[-1].append(word)
    return cells


def _line(words: list[Word], page: int, scale: float, height_pt: float) -> Line:
    """One cell: words joined by single spaces, every character with its box and confidence."""
    text_parts: list[str] = []
    chars: list = []
    confidences: list[float] = []
    for i, word in enumerate(words):
        if i:
            gap = (words[i - 1].box[2] * scale, word.box[0] * scale)
            text_parts.append(" ")
            chars.append(gap)
            confidences.append(min(words[i - 1].confidence, word.confidence))
        for text, box in _characters(word):
            text_parts.append(text)
            chars.append((box[0] * scale, box[1] * scale))
            confidences.append(word.confidence)
    # The row's extent comes from Tesseract's text line, as a text layer's comes from its line:
    # cells of one row then share their vertical position exactly.
    top = min(w.line_box[1] for w in words)
    bottom = max(w.line_box[3] for w in words)
    x0 = words[0].box[0] * scale
    x1 = words[-1].box[2] * scale
    return Line(page, x0, height_pt - bottom * scale, x1, height_pt - top * scale,
                "".join(text_parts), chars, confidences=confidences)


def _characters(word: Word) -> list[tuple[str, tuple[int, int]]]:
    """(character, (left, right)) for each character of the word, NFC-normalised."""
    out: list[tuple[str, tuple[int, int]]] = []
    symbols = word.symbols or [(word.text, word.box[0], word.box[2])]
    for text, left, right in symbols:
        text = unicodedata.normalize("NFC", text)
        for ch in text:
            out.append((ch, (left, right)))
    return out
