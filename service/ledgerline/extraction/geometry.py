"""A geometry index over the positioned-text model: rows, neighbours, columns, folded text.

Field finders ask it which lines share a row, what lies right of or below a line and what was
read before it; it does not know which source produced the lines.
"""

from __future__ import annotations

import re

from .model import Line, Page
from .text import fold
from .values.amounts import find_amounts, guess_decimal_separator

_SLASH_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(?:\d{4}|\d{2})(?![\d/])")

# Two lines share a row when their vertical overlap is at least this share of the lower one.
SAME_ROW_OVERLAP = 0.5
# Row search looks this many line heights up and down before testing the overlap.
ROW_SEARCH_HEIGHTS = 3
RIGHT_OF_SLACK = 2.0  # points a cell may start left of the line's end and still be right of it
# below(): how far down (in line heights of the upper line) and how far sideways (points).
BELOW_LINES, BELOW_X_SLACK = 2.6, 12.0
BELOW_OVERLAP = 0.3  # a lower line may reach up into the upper one by this share of its height
BELOW_ROW_GRID = 2  # points: lines below whose tops differ by less sort as one row
# line_above(): the line just above, at most this many line heights away, aligned within
# this many points (or covering the line's left edge).
ABOVE_GAP_HEIGHTS, ABOVE_ALIGN = 2.2, 15
ABOVE_OVERLAP = 0.2
# context_before(): the cell to the left counts when at most this many line heights away.
LEFT_CELL_HEIGHTS = 30


class DocText:
    """Read-only view of a document's lines with cached folding, amounts and neighbours."""

    def __init__(self, pages: list[Page]):
        self.lines: list[Line] = [ln for p in pages for ln in p.lines]
        self.folded: list[str] = [fold(ln.text) for ln in self.lines]
        self.full_text = "\n".join(ln.text for ln in self.lines)
        self.full_folded = "\n".join(self.folded)
        self.decimal = guess_decimal_separator(self.full_text)
        self.month_first = self._month_first()
        self._amounts: dict[int, list] = {}
        self._rows: dict[int, list[int]] = {}
        self._labels: dict = {}
        self._above: dict[int, int | None] = {}
        self.page_size = {p.number: (p.width, p.height) for p in pages}
        # pages the source can read again (a second recogniser on a region of an OCR'd page)
        self.read_again = {p.number: p.read_again for p in pages if p.read_again is not None}
        # pages OCR took for a phone photo (their values are calibrated apart: ocr.calibration)
        self.photo_pages = frozenset(p.number for p in pages if p.photo)
        self.by_page: dict[int, list[int]] = {}
        for i, ln in enumerate(self.lines):
            self.by_page.setdefault(ln.page, []).append(i)

    def _month_first(self) -> bool:
        """US-style m/d/y dates?  Decided by the document's own unambiguous dates first
        (``date_order_settled`` says whether they did)."""
        votes_md = votes_dm = 0
        for a, b in _SLASH_DATE.findall(self.full_text):
            a, b = int(a), int(b)
            if a <= 12 < b <= 31:
                votes_md += 1
            elif b <= 12 < a <= 31:
                votes_dm += 1
        self.date_order_settled = votes_md != votes_dm
        if votes_md != votes_dm:
            return votes_md > votes_dm
        us_money = "$" in self.full_text or "usd" in self.full_folded
        return bool(us_money and self.decimal != ",")

    def amounts(self, i: int) -> list:
        got = self._amounts.get(i)
        if got is None:
            got = find_amounts(self.lines[i].text, self.decimal)
            self._amounts[i] = got
        return got

    def same_row(self, a: Line, b: Line) -> bool:
        overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
        return overlap >= SAME_ROW_OVERLAP * min(a.height, b.height)

    def right_of(self, i: int, max_gap: float | None = None) -> list[int]:
        """Lines on the same row to the right of line i, nearest first."""
        ln = self.lines[i]
        out = [j for j in self.row_of(i) if j != i and self.lines[j].x0 >= ln.x1 - RIGHT_OF_SLACK]
        if max_gap is not None:
            out = [j for j in out if self.lines[j].x0 - ln.x1 <= max_gap]
        return out

    def row_of(self, i: int) -> list[int]:
        """Lines sharing line i's row (itself included), left to right."""
        got = self._rows.get(i)
        if got is None:
            ln = self.lines[i]
            lo = ln.y0 - ROW_SEARCH_HEIGHTS * ln.height
            hi = ln.y1 + ROW_SEARCH_HEIGHTS * ln.height
            got = [
                j
                for j in self.by_page[ln.page]
                if lo <= self.lines[j].y1
                and self.lines[j].y0 <= hi
                and self.same_row(ln, self.lines[j])
            ]
            if i not in got:  # a degenerate box (no height, or NaN) overlaps nothing, not even itself
                got.append(i)
            got.sort(key=lambda j: self.lines[j].x0)
            self._rows[i] = got
        return got

    def labels(self, i: int, fields: tuple, resolve) -> list:
        """Resolved label hits of line i for the given fields (cached)."""
        key = (i, fields)
        got = self._labels.get(key)
        if got is None:
            got = resolve(self, i, fields)
            self._labels[key] = got
        return got

    def below(
        self,
        i: int,
        max_lines: float = BELOW_LINES,
        x_slack: float = BELOW_X_SLACK,
        xr: tuple[float, float] | None = None,
    ) -> list[int]:
        """Lines under line i that overlap it (or the x-range xr) horizontally, nearest first."""
        ln = self.lines[i]
        x0, x1 = xr if xr is not None else (ln.x0, ln.x1)
        mid = (x0 + x1) / 2
        limit = max_lines * ln.height
        out = []
        for j in self.by_page[ln.page]:
            other = self.lines[j]
            if j == i:
                continue
            gap = ln.y0 - other.y1
            if gap < -BELOW_OVERLAP * ln.height or ln.y0 - other.y0 > limit + other.height:
                continue
            if other.y1 >= ln.y1:
                continue
            if other.x1 < x0 - x_slack or other.x0 > x1 + x_slack:
                continue
            out.append(j)
        if xr is None:
            out.sort(
                key=lambda j: (
                    -round(self.lines[j].y1 / BELOW_ROW_GRID),
                    abs(self.lines[j].x0 - ln.x0),
                )
            )
        else:
            out.sort(
                key=lambda j: (
                    -round(self.lines[j].y1 / BELOW_ROW_GRID),
                    abs((self.lines[j].x0 + self.lines[j].x1) / 2 - mid),
                )
            )
        return out

    def line_above(self, i: int) -> str:
        """Folded text of the line just above line i (same column), or ''."""
        j = self.line_above_index(i)
        return "" if j is None else self.folded[j]

    def line_above_index(self, i: int) -> int | None:
        """The line just above line i (same column), or None (cached)."""
        if i in self._above:
            return self._above[i]
        ln = self.lines[i]
        best, best_gap = None, ABOVE_GAP_HEIGHTS * ln.height
        for j in self.by_page[ln.page]:
            other = self.lines[j]
            gap = other.y0 - ln.y1
            if j == i or gap < -ABOVE_OVERLAP * ln.height or gap > best_gap:
                continue
            if abs(other.x0 - ln.x0) > ABOVE_ALIGN and not (other.x0 <= ln.x0 <= other.x1):
                continue
            best, best_gap = j, gap
        self._above[i] = best
        return best

    def context_before(self, i: int) -> str:
        """What is read before line i: the cell to its left on the same row, else the line above."""
        ln = self.lines[i]
        left, left_x = None, -1.0
        for j in self.by_page[ln.page]:
            other = self.lines[j]
            if (
                j != i
                and other.x1 <= ln.x0 + RIGHT_OF_SLACK
                and other.x1 > left_x
                and self.same_row(ln, other)
            ):
                left, left_x = j, other.x1
        if left is not None and ln.x0 - left_x < LEFT_CELL_HEIGHTS * ln.height:
            return self.folded[left]
        return self.line_above(i)

    def relative_y(self, i: int) -> float:
        """0 at the bottom of the page, 1 at the top."""
        ln = self.lines[i]
        h = self.page_size[ln.page][1] or 1.0
        return max(0.0, min(1.0, ln.y1 / h))
