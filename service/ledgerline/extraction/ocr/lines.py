"""Tesseract's words → lines of the positioned-text model, in PDF points from the bottom left.

A text-layer line is a run of characters on one baseline, split into cells where a wide gap
separates them (tabular text). OCR lines follow the same rule: Tesseract's text line is split
where the space between two words is wider than ``CELL_GAP_HEIGHTS`` line heights, so a label and
its value far to the right end up as two cells on one row, as they do in a text layer. Each
line carries ``confidences``: for every character, the recognition confidence (0..1) of the word
it belongs to (a space between two words gets the lower of the two).

A table's vertical rules are no text: Tesseract reads them as "|" (or "!", "[", "]" beside a
figure), on their own or glued to the word next to them ("|0001/25-26", "1.00!"). A text layer
has no such characters, and its cells end at the rule; so a rule is dropped and the cell ends
there too, whatever the gap, or a value under a header cell ("Invoice No." over "0001/25-26")
runs into the address beside it.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..model import Line, Page
from ..text import is_cjk
from .checksums import repair_line
from .engine import PageResult, Word

POINTS_PER_INCH = 72.0
CELL_GAP_HEIGHTS = 1.5  # pdfminer splits at 3+ spaces: about one and a half line heights
# Marks that carry no text (rules, table borders, speckle read as "|", "—", "~") are dropped
# unless Tesseract is fairly sure of them.
NOISE_CONFIDENCE = 0.6
KEEP_SYMBOLS = set("€$£¥₹%&@#+-/")
RULES = set("|¦‖")  # a vertical rule, wherever it stands
# beside a figure, these are a rule too ("1.00!", "]2"); beside letters they may be text
RULES_BY_FIGURES = set("!][")


def page_from_result(result: PageResult, number: int, dpi: float) -> Page:
    """One page of OCR lines; the page is the upright, deskewed image, measured in points."""
    scale = POINTS_PER_INCH / dpi
    height_pt = result.height * scale
    by_line: dict[int, list[Word | Rule]] = {}
    for word in result.words:
        for part in _without_rules(word):
            if isinstance(part, Rule) or _is_text(part):
                by_line.setdefault(word.line, []).append(part)
    lines: list[Line] = []
    for words in by_line.values():
        for cell in _cells(words):
            line = _line(cell, number, scale, height_pt)
            repair_line(line)
            lines.append(line)
    lines.sort(key=lambda ln: (-ln.y1, ln.x0))
    return Page(number, result.width * scale, height_pt, lines)


def _is_text(word: Word) -> bool:
    text = word.text.strip()
    if not text:
        return False
    if any(ch.isalnum() for ch in text) or any(ch in KEEP_SYMBOLS for ch in text):
        return True
    return word.confidence >= NOISE_CONFIDENCE


@dataclass(frozen=True)
class Rule:
    """A table's vertical rule read as a character: where it stands (pixels)."""

    x: float


def _without_rules(word: Word) -> list[Word | Rule]:
    """The word without the table rules read into it, in their place a Rule: the word, a rule
    and the word, or just a rule."""
    symbols = word.symbols or [(word.text, word.box[0], word.box[2])]
    texts = [text for text, _, _ in symbols]
    if not any(ch in RULES or ch in RULES_BY_FIGURES for text in texts for ch in text):
        return [word]
    if all(_rule(texts, k, alone=True) for k in range(len(texts))):
        return [Rule((word.box[0] + word.box[2]) / 2)]
    start, end = 0, len(texts)
    while start < end and _rule(texts, start):
        start += 1
    while end > start and _rule(texts, end - 1):
        end -= 1
    kept = symbols[start:end]
    part = Word(text="".join(texts[start:end]), confidence=word.confidence,
                box=(kept[0][1], word.box[1], kept[-1][2], word.box[3]), line=word.line,
                line_box=word.line_box, symbols=list(kept) if word.symbols else [])
    before = [Rule(symbols[0][1])] if start else []
    after = [Rule(symbols[-1][2])] if end < len(texts) else []
    return [*before, part, *after]


def _rule(texts: list[str], k: int, alone: bool = False) -> bool:
    """Is the k-th symbol of a word a rule: a bar, or "!", "[", "]" beside a figure (or making
    up the whole word, ``alone``)?"""
    text = texts[k]
    if text in RULES:
        return True
    if text not in RULES_BY_FIGURES:
        return False
    if alone:
        return True
    beside = texts[k - 1:k] + texts[k + 1:k + 2] if k else texts[k + 1:k + 2]
    by_figure = any(n[-1:].isdigit() or n[:1].isdigit() for n in beside)
    if text in "[]":  # a bracket without its pair
        return by_figure and ("[" in texts) != ("]" in texts)
    return by_figure


def _cells(words: list[Word | Rule]) -> list[list[Word]]:
    """The words of one text line in cells, left to right: split at a wide gap and at a rule."""
    placed = [w for w in words if isinstance(w, Word)]
    if not placed:
        return []
    top, bottom = placed[0].line_box[1], placed[0].line_box[3]
    gap_limit = CELL_GAP_HEIGHTS * max(1, bottom - top)
    cells: list[list[Word]] = [[]]
    for item in sorted(words, key=lambda w: w.x if isinstance(w, Rule) else w.box[0]):
        if isinstance(item, Rule):
            if cells[-1]:
                cells.append([])
            continue
        if cells[-1] and item.box[0] - cells[-1][-1].box[2] > gap_limit:
            cells.append([])
        cells[-1].append(item)
    return [cell for cell in cells if cell]


def _line(words: list[Word], page: int, scale: float, height_pt: float) -> Line:
    """One cell: words joined by single spaces (none between Han or kana, see ``_joined``),
    every character with its box and confidence."""
    text_parts: list[str] = []
    chars: list = []
    confidences: list[float] = []
    for i, word in enumerate(words):
        if i and not _joined(words[i - 1], word):
            gap = (words[i - 1].box[2] * scale, word.box[0] * scale)
            text_parts.append(" ")
            chars.append(gap)
            confidences.append(min(words[i - 1].confidence, word.confidence))
        characters = _characters(word)
        if i + 1 < len(words) and _next_group(word, words[i + 1]):
            characters = _regrouped(characters)
        for text, box in characters:
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


def _joined(before: Word, after: Word) -> bool:
    """Chinese and Japanese put no space between words; Tesseract gives each Han character or
    run of kana as a word of its own ("发 票 号 码"). Two such words in one cell are joined as a
    text layer has them ("发票号码"), so labels read as written."""
    return bool(before.text and after.text and is_cjk(before.text[-1]) and is_cjk(after.text[0]))


def _characters(word: Word) -> list[tuple[str, tuple[int, int]]]:
    """(character, (left, right)) for each character of the word, NFC-normalised."""
    out: list[tuple[str, tuple[int, int]]] = []
    symbols = word.symbols or [(word.text, word.box[0], word.box[2])]
    for text, left, right in symbols:
        text = unicodedata.normalize("NFC", text)
        for ch in text:
            out.append((ch, (left, right)))
    return out


# "1 543 622,19" printed with thin spaces between its digit groups comes back as "1543 622,19":
# Tesseract keeps the wider space and drops the narrow one. A run of four to six digits followed
# by a word that is one group of three and decimals gets its groups back ("1 543"), so the value
# reads as the text layer has it and not as two figures.
_GROUP_HEAD = re.compile(r"[-−€$£]?(\d{4,6})")
_GROUP_TAIL = re.compile(r"\d{3}[.,]\d{2}(?!\d)")
GROUP_GAP_HEIGHTS = 0.6  # a word space is about a third of a line's height; a column gap more


def _next_group(word: Word, following: Word) -> bool:
    """Is the next word a group of digits of the same number: a group of three and decimals,
    no further than a word space?"""
    height = max(1, word.line_box[3] - word.line_box[1])
    return (following.box[0] - word.box[2] <= GROUP_GAP_HEIGHTS * height
            and _GROUP_TAIL.match(following.text) is not None)


def _regrouped(characters: list[tuple[str, tuple[int, int]]]
               ) -> list[tuple[str, tuple[int, int]]]:
    """A word's characters with a space between its digit groups, where it is the head of a
    number grouped by spaces (see above); as they are otherwise."""
    text = "".join(ch for ch, _ in characters)
    m = _GROUP_HEAD.fullmatch(text)
    if m is None:
        return characters
    out = list(characters[: m.start(1)])
    digits = characters[m.start(1):]
    for k, (ch, box) in enumerate(digits):
        if k and (len(digits) - k) % 3 == 0:
            out.append((" ", (box[0], box[0])))
        out.append((ch, box))
    return out
