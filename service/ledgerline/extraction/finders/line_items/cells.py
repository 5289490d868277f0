"""Cells and column kinds: the pieces a table is read from.

A text layer runs neighbouring cells of a table row into one line when they sit close; a cell
here is a run of a line's characters with no gap wider than a space between them. A header cell
names a column kind in some vocabulary language (:data:`KIND_ORDER`).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property, lru_cache

from ...geometry import DocText
from ...vocabulary import VOCABULARY as V
from ..labels import match_labels

# Header cells are tried against the column kinds in this order: the specific before the general
# ("Kwota VAT" is a VAT amount before it is an amount, "Cena netto" a price before a net amount).
KIND_ORDER = (
    "vat_amount", "gross_amount", "vat_rate", "discount", "unit_price", "quantity", "unit",
    "net_amount", "unit_price_weak", "description",
)
AMOUNT_KINDS = ("net_amount", "gross_amount", "unit_price")

# Cells: a gap this many line heights wide between two characters separates two cells.
CELL_GAP_HEIGHTS, INSERTED_GAP_HEIGHTS = 0.9, 0.6
TALL_LINE = 3.0  # times the page's median line height: a line of its own row
SAME_CELL = 1.0  # points: the same text this close is printed twice, one cell
FIGURES_ONLY = re.compile(r"[\d\s.,:/%'’()+\-–€$£¥₹]*")
CURRENCY_ONLY = re.compile(
    r"^[\s.,:\-–]*(?:[a-z]{3}|kr|kc|kč|zł|zl|ft|rs|r\$|us\$|fr|[$€£¥₹])?[\s.,:\-–]*$"
)
SPACES = re.compile(r"\s+")
PERCENT = re.compile(r"(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s*%")


@dataclass(frozen=True)
class Cell:
    line: int
    start: int  # span in the line's text
    end: int
    x0: float
    x1: float
    text: str
    folded: str


@lru_cache(maxsize=8192)
def kind_match(folded: str) -> tuple[str, re.Match] | None:
    for kind in KIND_ORDER:
        m = V.column_headers[kind].search(folded)
        if m:
            return ("unit_price" if kind == "unit_price_weak" else kind), m
    return None


def column_kind(folded: str) -> str | None:
    got = kind_match(folded)
    return got[0] if got else None


def stacked_kind(parts: list[str]) -> str | None:
    """The kind a header cell printed on several lines names, its parts top down: a phrase
    across the lines ("Unit" / "Price"), else the first line naming one ("Items" / "HSN" /
    "Rate"), else a word broken across them ("Quantid" / "ade")."""
    joined = " ".join(parts)
    bounds = [sum(len(p) + 1 for p in parts[:n]) for n in range(1, len(parts))]
    got = kind_match(joined)
    if got and any(got[1].start() < b < got[1].end() for b in bounds):
        return got[0]
    return next((k for k in map(column_kind, parts) if k), None) or column_kind("".join(parts))


def to_decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None


class Layout:
    """Cells and rows of one document, computed once per line."""

    def __init__(self, dt: DocText):
        self.dt = dt
        self._cells: dict[int, list[Cell]] = {}
        self._rows: dict[int, list[list[int]]] = {}
        self._row_cells: dict[tuple[int, ...], list[Cell]] = {}

    def cells(self, i: int) -> list[Cell]:
        got = self._cells.get(i)
        if got is None:
            got = self._cells[i] = split_cells(self.dt, i)
        return got

    def row_cells(self, lines: list[int]) -> list[Cell]:
        """The cells of a row left to right, each once: text printed twice over itself (a
        faked bold face) counts once."""
        key = tuple(lines)
        got = self._row_cells.get(key)
        if got is not None:
            return got
        out: list[Cell] = []
        for c in sorted((c for i in lines for c in self.cells(i)), key=lambda c: c.x0):
            if not any(o.text == c.text and abs(o.x0 - c.x0) <= SAME_CELL for o in out):
                out.append(c)
        self._row_cells[key] = out
        return out

    @cached_property
    def vat_rate(self) -> Decimal | None:
        """The one VAT rate the document states with a tax label ("dont TVA 20 %", "inkl.
        19 % MwSt."), or None where it states several or none."""
        rates = set()
        for f in self.dt.folded:
            if "%" in f and match_labels(f, ("tax_total",)):
                rates.update(to_decimal(m.group(1)) for m in PERCENT.finditer(f))
        return rates.pop() if len(rates) == 1 else None

    def rows(self, page: int) -> list[list[int]]:
        """The page's lines in rows (lines sharing a baseline band), top to bottom. A line
        far taller than the page's text (a rule or a smudge read as a glyph) is a row of its
        own: sharing a band with it would run several rows of the table into one."""
        got = self._rows.get(page)
        if got is None:
            dt, got, got_tall = self.dt, [], []
            lines = dt.by_page.get(page, [])
            usual = statistics.median(dt.lines[i].height for i in lines) if lines else 0.0
            tall = [dt.lines[i].height > TALL_LINE * usual for i in lines]
            for i, high in zip(lines, tall, strict=True):
                if got and not high and not got_tall[-1] \
                        and dt.same_row(dt.lines[got[-1][0]], dt.lines[i]):
                    got[-1].append(i)
                else:
                    got.append([i])
                    got_tall.append(high)
            self._rows[page] = got
        return got


def split_cells(dt: DocText, i: int) -> list[Cell]:
    """Line i cut at gaps wider than a space: the cells a text layer ran together. Only the
    spaces are looked at (a gap that wide always has one), not every character."""
    ln, folded = dt.lines[i], dt.folded[i]
    boxes = ln.chars if ln.chars and len(ln.chars) == len(ln.text) else None
    if boxes is None:
        return [Cell(i, 0, len(ln.text), ln.x0, ln.x1, ln.text.strip(), folded.strip())]
    text = ln.text.rstrip()
    wide, inserted = CELL_GAP_HEIGHTS * ln.height, INSERTED_GAP_HEIGHTS * ln.height
    spans, start = [], len(text) - len(text.lstrip())
    for m in SPACES.finditer(text, start):
        before, after = boxes[m.start() - 1], boxes[m.end()]
        if before is None or after is None:
            continue
        # a space the text layer inserted itself (it has no glyph) stands for a wider gap;
        # after a printed space the gap is the font's own
        glyphless = boxes[m.end() - 1] is None
        if after[0] - before[1] >= (inserted if glyphless else wide):
            spans.append((start, m.start()))
            start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        drawn = [k for k in range(s, e) if boxes[k] is not None]  # glyphless ends are no part
        if drawn:
            s, e = drawn[0], drawn[-1] + 1
            out.append(Cell(i, s, e, boxes[s][0], boxes[e - 1][1], text[s:e], folded[s:e]))
    return out
