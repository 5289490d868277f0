"""Geometry helpers over the positioned lines of a parsed PDF: rows, neighbours, folded text."""

from __future__ import annotations

from .labels import fold
from .numbers import find_amounts, guess_decimal_separator
from .pdf import Line, ParsedPdf


class DocText:
    """Read-only view of a document's lines with cached folding, amounts and neighbours."""

    def __init__(self, parsed: ParsedPdf):
        self.parsed = parsed
        self.pages = parsed.pages
        self.lines: list[Line] = [ln for p in parsed.pages for ln in p.lines]
        self.index = {id(ln): i for i, ln in enumerate(self.lines)}
        self.folded: list[str] = [fold(ln.text) for ln in self.lines]
        self.full_text = "\n".join(ln.text for ln in self.lines)
        self.full_folded = "\n".join(self.folded)
        self.decimal = guess_decimal_separator(self.full_text)
        us_money = "$" in self.full_text or "usd" in self.full_folded
        self.month_first = bool(us_money and self.decimal != ",")
        self._amounts: dict[int, list] = {}
        self.page_size = {p.number: (p.width, p.height) for p in parsed.pages}
        self.by_page: dict[int, list[int]] = {}
        for i, ln in enumerate(self.lines):
            self.by_page.setdefault(ln.page, []).append(i)

    def amounts(self, i: int) -> list:
        got = self._amounts.get(i)
        if got is None:
            got = find_amounts(self.lines[i].text, self.decimal)
            self._amounts[i] = got
        return got

    def same_row(self, a: Line, b: Line) -> bool:
        overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
        return overlap >= 0.5 * min(a.height, b.height)

    def right_of(self, i: int, max_gap: float | None = None) -> list[int]:
        """Lines on the same row to the right of line i, nearest first."""
        ln = self.lines[i]
        out = []
        for j in self.by_page[ln.page]:
            other = self.lines[j]
            if j == i or other.x0 < ln.x1 - 2 or not self.same_row(ln, other):
                continue
            if max_gap is not None and other.x0 - ln.x1 > max_gap:
                continue
            out.append(j)
        out.sort(key=lambda j: self.lines[j].x0)
        return out

    def row_of(self, i: int) -> list[int]:
        ln = self.lines[i]
        row = [j for j in self.by_page[ln.page] if self.same_row(ln, self.lines[j])]
        row.sort(key=lambda j: self.lines[j].x0)
        return row

    def below(self, i: int, max_lines: float = 2.6, x_slack: float = 12.0) -> list[int]:
        """Lines under line i that overlap it horizontally, nearest first."""
        ln = self.lines[i]
        limit = max_lines * ln.height
        out = []
        for j in self.by_page[ln.page]:
            other = self.lines[j]
            if j == i:
                continue
            gap = ln.y0 - other.y1
            if gap < -0.3 * ln.height or ln.y0 - other.y0 > limit + other.height:
                continue
            if other.y1 >= ln.y1:
                continue
            if other.x1 < ln.x0 - x_slack or other.x0 > ln.x1 + x_slack:
                continue
            out.append(j)
        out.sort(key=lambda j: (-self.lines[j].y1, abs(self.lines[j].x0 - ln.x0)))
        return out

    def relative_y(self, i: int) -> float:
        """0 at the bottom of the page, 1 at the top."""
        ln = self.lines[i]
        h = self.page_size[ln.page][1] or 1.0
        return max(0.0, min(1.0, ln.y1 / h))
