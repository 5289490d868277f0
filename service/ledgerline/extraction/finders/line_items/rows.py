"""Rows under a header: their figures and text by column, and the rows that end the table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

from ...document import AMOUNT_FIELDS
from ...vocabulary import VOCABULARY as V
from ..labels import match_labels
from .cells import CURRENCY_ONLY, FIGURES_ONLY, Cell, Layout
from .header import TINY_HEIGHTS, Header

# Rows: a line may reach this far (points) above the header's bottom and still be in the table.
TOP_SLACK = 0.5
LEFT_OF_TABLE = 10  # points: nor are lines ending this far left of the first header cell
# "Notes:" this far (points) left of the description column is a new section.
SECTION_LEFT_OF_DESCRIPTION = 20
STRONG_TOTAL_WEIGHT, STRONG_TOTAL_START = 0.8, 3
MARK_REACH = 4  # characters: a currency this close to a figure marks it as money
MONEY_MARK = re.compile(r"[€$£¥₹]|\bkr\b|kč|zł|\b[A-Z]{3}\b|\b(?i:eur)")
GROUPED = re.compile(r"\d[ .,'’]\d{3}$")
# A time of day, a duration or a date ("10:38 PM", "00:30", "06/01/20", "2025-03-31"): its
# parts are no figures of the row.
TIME_OR_DATE = re.compile(
    r"(?<![\d.,:/-])(?:\d{1,2}:\d{2}(?::\d{2})?"
    r"|\d{1,2}([/.-])\d{1,2}\1(?:\d{4}|\d{2})|\d{4}-\d{1,2}-\d{1,2})(?![\d.,:/-]?\d)"
)

STRAY = re.compile(r"^[\W_]+")  # marks before a cell's words
# A figure with one decimal ("22.5" hours, "6,6" m), which no amount prints: a quantity.
ONE_DECIMAL = re.compile(r"(?<![\d.,])\d{1,7}[.,]\d(?![\d.,]?\d)")


@dataclass(frozen=True)
class Figure:
    value: Decimal
    decimals: bool  # printed with decimals
    percent: bool
    marked: bool  # a currency beside it, or thousands grouped: money even without decimals
    # where it is printed: its line (an index into the document's lines) and its box there
    line: int = field(compare=False)
    box: tuple[float, ...] = field(compare=False)


@dataclass
class Row:
    lines: list[int]
    y0: float
    y1: float
    numbers: dict[int, list[Figure]] = field(default_factory=dict)
    texts: dict[int, list[str]] = field(default_factory=dict)
    first: Cell | None = None  # the leftmost cell
    # The row's label: the leftmost cell and the worded cells right after it, folded and joined
    # ("Brought" / "forward", "Net" / "amount:": OCR parts a label's words at a wide space)
    label: str = ""
    worded: list[tuple[int | None, Cell]] = field(default_factory=list)  # (column, cell)
    whole: bool = True  # whole numbers count as amounts (the table prints them so)

    def amount(self, col: int | None) -> Decimal | None:
        """The figure in the column, when it reads as a money amount."""
        got = self.amount_figure(col)
        return None if got is None else got.value

    def amount_figure(self, col: int | None) -> Figure | None:
        """The figure :meth:`amount` reads."""
        for f in self.numbers.get(col, ()):
            if not f.percent and (f.decimals or f.marked or (self.whole and f.value)):
                return f
        return None

    def number(self, col: int | None) -> Decimal | None:
        got = self.numbers.get(col)
        return got[0].value if got else None


def column_of(header: Header, x0: float, x1: float) -> int | None:
    """The column a span of the page falls in: the most overlap, else the one around its middle."""
    best, overlap = None, 0.0
    for k, col in enumerate(header.columns):
        o = min(x1, col.right) - max(x0, col.left)
        if o > overlap:
            best, overlap = k, o
    if best is None:
        mid = (x0 + x1) / 2
        best = next((k for k, c in enumerate(header.columns) if c.left <= mid <= c.right), None)
    return best


def read_row(pg: Layout, header: Header, lines: list[int]) -> Row:
    """The figures and the text of one row, by column."""
    dt = pg.dt
    row = Row(lines, min(dt.lines[i].y0 for i in lines), max(dt.lines[i].y1 for i in lines))
    cells = pg.row_cells(lines)
    row.first = cells[0] if cells else None
    label, labelling = [], True
    for c in cells:
        ln = dt.lines[c.line]
        rest = list(ln.text[c.start : c.end])
        figures = []
        times = [m.span() for m in TIME_OR_DATE.finditer(ln.text, c.start, c.end)]
        for value, s, e, has_dec in dt.amounts(c.line):
            if any(a <= s and e <= b for a, b in times):
                continue
            if c.start <= s and e <= c.end:
                percent = ln.text[e : e + 3].lstrip().startswith("%")
                marked = bool(
                    MONEY_MARK.search(ln.text[max(0, s - MARK_REACH) : e + MARK_REACH])
                    or GROUPED.search(ln.text[s:e])
                )
                figures.append(Figure(value, has_dec, percent, marked, c.line,
                                      tuple(ln.span_bbox(s, e))))
                rest[s - c.start : e - c.start] = " " * (e - s)
        text = "".join(rest).strip()
        worded = not FIGURES_ONLY.fullmatch(text) and not CURRENCY_ONLY.match(text.lower())
        if not worded:
            for m in ONE_DECIMAL.finditer("".join(rest)):
                s, e = c.start + m.start(), c.start + m.end()
                percent = ln.text[e : e + 3].lstrip().startswith("%")
                value = Decimal(m.group().replace(",", "."))
                figures.append(Figure(value, False, percent, False, c.line,
                                      tuple(ln.span_bbox(s, e))))
        labelling = labelling and (worded or not label)
        if labelling:
            label.append(c.folded)
        col = column_of(header, c.x0, c.x1)
        if worded:
            row.texts.setdefault(col, []).append(c.text.strip())
            row.worded.append((col, c))
        starts_in = column_of(header, c.x0, c.x0 + 1)
        for figure in figures:
            # figures in a worded cell ("Preis pro Stunde: 150 €") are the column's where the
            # cell starts; bare figures run together ("2,535.00 18.00") each stand in their own
            at = starts_in if worded else column_of(header, figure.box[0], figure.box[2])
            row.numbers.setdefault(at, []).append(figure)
    row.label = " ".join(label)
    return row


def count_whole_numbers(rows: list[Row], total: int) -> None:
    """Let whole numbers count as amounts where the table's item rows (figures in more than
    one column, unlike a "Seite 1 von 2" footer) print their amounts so."""
    printed = [
        f for r in rows if len(r.numbers) > 1 for f in r.numbers.get(total, ()) if not f.percent
    ]
    whole = sum(not f.decimals for f in printed) * 2 > len(printed)
    for r in rows:
        r.whole = whole


@lru_cache(maxsize=4096)
def strong_total_label(folded: str) -> bool:
    return any(
        h.weight >= STRONG_TOTAL_WEIGHT and h.start <= STRONG_TOTAL_START
        for h in match_labels(folded, AMOUNT_FIELDS)
    )


# A cell of at most this many words that ends in the label of a total ("Gross Total", "Invoice
# total") is that total's label.
TOTAL_CELL_WORDS = 3
TOTAL_FIELDS = ("net_total", "gross_total", "amount_due")


@lru_cache(maxsize=4096)
def total_cell(folded: str) -> bool:
    """Is the cell a total's label: a strong one, or a few words ending in one ("Gross Total"),
    after the marks OCR makes of a box's border ("[Gross Total", "| Net Total")?"""
    text = STRAY.sub("", folded).rstrip(" :")
    if strong_total_label(text):
        return True
    return len(text.split()) <= TOTAL_CELL_WORDS and any(
        h.end == len(text) for h in match_labels(text, TOTAL_FIELDS)
    )


@lru_cache(maxsize=4096)
def rated_tax_label(folded: str) -> bool:
    """Does the cell open with the label of the VAT at one rate ("Iva (22 %)", "VAT 20%")?"""
    return "%" in folded and any(h.start == 0 for h in match_labels(folded, ("tax_total",)))


def priced(header: Header, row: Row) -> bool:
    """Does the row print a quantity or a unit price, as an item does?"""
    cols = (header.index("quantity"), header.index("unit_price"))
    return any(row.numbers.get(k) for k in cols if k is not None)


def closes_table(header: Header, row: Row) -> bool:
    """Does this row end the table: totals, a new section, a strong totals label, the VAT of
    the items at their rate?"""
    if row.first is None:
        return False
    f = row.label
    if V.totals_row.match(f) or V.item_section.match(f) or strong_total_label(f):
        return True
    if rated_tax_label(f) and not priced(header, row):
        return True
    # a section may open after a code in the table's first column ("95  Remise : ...")
    if row.worded and V.item_section.match(row.worded[0][1].folded):
        return True
    desc = header.index("description")
    if any(col != desc and total_cell(c.folded) for col, c in row.worded):
        # "Kwota należności ogółem: 33 569,50" printed under the price columns; "[Gross Total"
        # in a row whose leftmost text is a footer's
        return True
    desc_x0 = header.columns[desc].x0 if desc is not None else header.columns[0].x0
    return (
        row.first.folded.endswith(":")
        and row.first.x0 < desc_x0 - SECTION_LEFT_OF_DESCRIPTION
        and not row.numbers
    )


def carried_forward(row: Row, header: Header) -> bool:
    """A row repeating the running sum at a page break ("Übertrag", "Transport", "c/f")."""
    if row.first is None:
        return False
    # the label may follow a stray mark or a position number OCR made of a smudge ("as _ Suma
    # y sigue", "3 Suma anterior"), under the figures' columns ("Transporte y embalaje" in the
    # description column is an item)
    desc = header.index("description")
    labels = [row.label, *(STRAY.sub("", c.folded) for k, c in row.worded if k != desc)]
    if not any(V.carried_forward.match(f) for f in labels):
        return False
    return not priced(header, row)


def table_rows(pg: Layout, header: Header, rows: list[list[int]]
               ) -> tuple[list[Row], Row | None]:
    """The rows of a table segment (under its header, or a continued page), up to the row that
    closes it; (rows, the closing row or None where no row closed it)."""
    dt, parsed = pg.dt, []
    tiny = TINY_HEIGHTS * header.height
    left = header.columns[0].x0 - LEFT_OF_TABLE
    for lines in rows:
        lines = [
            i
            for i in lines
            if i not in header.lines and dt.lines[i].height >= tiny and dt.lines[i].x1 >= left
        ]
        if not lines:
            continue
        ln = dt.lines[lines[0]]
        top = min(dt.lines[i].y1 for i in lines)
        if ln.page == header.page and top > header.bottom + TOP_SLACK:
            continue  # above the header: the page's letterhead
        parsed.append(read_row(pg, header, lines))
    out = []
    for n, row in enumerate(parsed):
        if carried_forward(row, header):
            continue
        if closes_table(header, row):
            if not items_follow(header, parsed[n + 1 :]):
                return out, row
            continue  # a subtotal of the items above, more items below it
        out.append(row)
    return out, None


def items_follow(header: Header, rows: list[Row]) -> bool:
    """Is there an item row (quantity and price printed) before the next closing row?"""
    qty, price = header.index("quantity"), header.index("unit_price")
    desc = [k for k, c in enumerate(header.columns) if c.kind == "description"]
    if qty is None or price is None:
        return False
    for row in rows:
        if closes_table(header, row):
            return False
        described = not desc or any(row.texts.get(k) for k in desc)
        if described and row.number(qty) is not None and row.amount(price) is not None:
            return True
    return False
