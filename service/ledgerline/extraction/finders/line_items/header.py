"""Header rows: where a table starts and what its columns are.

A header row is a row of short cells without figures that names an amount column and a
description or quantity column, or an amount column among unnamed text columns. Lines stacked just
above or below it continue its cells ("Wartość" / "sprzedaży" / "netto", "Positions-" /
"betrag"); a cell over two columns of figures is split where the figures below it part. The
columns reach from each header cell halfway to its neighbours.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from ...geometry import DocText
from ...vocabulary import VOCABULARY as V
from ..labels import match_labels
from .cells import AMOUNT_KINDS, FIGURES_ONLY, SAME_CELL, Cell, Layout, column_kind, stacked_kind

# Header rows: cells this short, and at least this many of them.
HEADER_CELL_CHARS, HEADER_MIN_CELLS = 45, 2
HEADER_NUMBER = 100  # a whole number this large in a row makes it a row of figures
# Without a description or quantity column, this many unnamed text columns make a header.
UNNAMED_TEXT_COLUMNS = 2
# Lines stacked this close (in line heights) above or below a header row belong to it.
STACKED_HEIGHTS, STACKED_CELL_CHARS, STACKED_ROWS = 1.6, 30, 4
# A header cell over two columns of figures: the figures of this many rows below, up to this far
# (points) right of the cell and this far apart (in line heights), split it at a word boundary
# this close (points) to the gap.
FIGURE_ROWS, FIGURE_REACH, FIGURE_GAP_HEIGHTS, WORD_REACH = 8, 12, 0.5, 25
# Figure columns right of a header's cells: right edges this close (points) are one column,
# seen in at least this many rows.
ALIGNED, FIGURE_COLUMN_ROWS = 6.0, 2
TINY_HEIGHTS = 0.6  # lines this much smaller than the header's are no part of it
# A labelled header field in a header row makes it a row of document facts, not a table header.
FACT_FIELDS = ("invoice_number", "issue_date", "due_date", "amount_due", "purchase_order")
FACT_LABEL_WEIGHT, FACT_SHARE = 0.8, 0.75
WORD_GAP = re.compile(r"\s+")
LABELLED_VALUE = re.compile(r":\s*\S")
FIGURE_TOKEN = re.compile(r"[-+(]?\d[\d.,'’]*%?")


@dataclass
class Column:
    kind: str | None
    x0: float  # the header cell's extent
    x1: float
    text: str  # the header's words, its lines top down, folded
    gross: bool = False  # its figures include VAT ("Gesamt brutto", "Preis inkl. MwSt.")
    left: float = 0.0  # what the column takes in: halfway to its neighbours
    right: float = 0.0


@dataclass
class Header:
    page: int
    columns: list[Column]
    bottom: float  # the lowest header line's bottom edge
    lines: frozenset[int]
    named: bool  # a description or quantity column names the table as an item table
    height: float  # of the header's text: lines far smaller are margin notes, not table rows
    # its amount columns were not read but found from the figures below it: only the rows'
    # arithmetic can say which holds the line amounts
    unread: bool = False

    def index(self, kind: str) -> int | None:
        for k, col in enumerate(self.columns):
            if col.kind == kind:
                return k
        return None


def stacked_lines(pg: Layout, rows: list[list[int]], k: int) -> list[int]:
    """Lines of the rows just above and below row k that continue its header cells."""
    dt = pg.dt
    ref = dt.lines[rows[k][0]]
    out = []
    for step in (-1, 1):
        for off in (step * n for n in range(1, STACKED_ROWS + 1)):
            if not 0 <= k + off < len(rows):
                break
            # rotated margin text running past the header is no part of it
            row = [i for i in rows[k + off] if dt.lines[i].height >= TINY_HEIGHTS * ref.height]
            if not row:
                continue
            near = all(
                abs(dt.lines[i].y0 - ref.y0) <= STACKED_HEIGHTS * abs(off) * ref.height
                for i in row
            )
            if not near or any(
                has_amount(dt, i) or len(dt.folded[i]) > STACKED_CELL_CHARS for i in row
            ):
                break
            out.extend(row)
    return out


def header_columns(
    pg: Layout, main: list[Cell], extra: list[Cell]
) -> tuple[list[Column], set[int]]:
    """Header columns: the row's cells, each with the stacked cells over it, named by kind;
    and the lines they are made of."""
    groups = [[c] for c in main]
    own: list[list[Cell]] = []  # columns headed only above or below the row ("Positions-")
    for c in sorted(extra, key=lambda c: c.x0):
        best, overlap = None, 0.0
        for g in groups + own:
            o = min(c.x1, g[0].x1) - max(c.x0, g[0].x0)
            if o > overlap:
                best, overlap = g, o
        if best is not None:
            best.append(c)
        else:
            own.append([c])
    lo, hi = min(c.x0 for c in main), max(c.x1 for c in main)
    columns, used = [], set()
    for g in sorted(groups + own, key=lambda g: g[0].x0):
        parts = [c.folded for c in sorted(g, key=lambda c: -pg.dt.lines[c.line].y0)]
        kind = stacked_kind(parts)
        if g in own and kind is None and not lo <= g[0].x0 <= hi:
            continue  # unnamed text beside the header (a sidebar's lines) heads no column
        text = " ".join(parts)
        gross = kind == "gross_amount" or bool(V.tax_included.search(text))
        columns.append(Column(kind, min(c.x0 for c in g), max(c.x1 for c in g), text, gross))
        used.update(c.line for c in g)
    spread(columns)
    return columns, used


def spread(columns: list[Column]) -> None:
    """Let each column reach halfway to its neighbours, the outer ones to the page's edges."""
    for a, b in zip(columns, columns[1:]):
        a.right = b.left = (a.x1 + b.x0) / 2
    if columns:
        columns[0].left, columns[-1].right = float("-inf"), float("inf")


def figure_columns(pg: Layout, rows: list[list[int]], columns: list[Column]) -> list[Column]:
    """Unnamed columns of the figures printed right of a header's last cell in most of the
    rows below it that print any there: the cells of a header OCR did not read ("Preço
    unitário", "Total"), told by the figures' right edges, on which they align."""
    edge = columns[-1].x1
    found: list[list[tuple[float, float]]] = []  # per column: the (x0, x1) of its figures
    rows_with = 0
    for boxes in figure_boxes(pg, rows):
        right = [(x0, x1) for x0, x1, _ in boxes if x0 > edge]
        rows_with += bool(right)
        for x0, x1 in right:
            col = next((c for c in found if abs(c[0][1] - x1) <= ALIGNED), None)
            if col is None:
                found.append([(x0, x1)])
            else:
                col.append((x0, x1))
    if rows_with < FIGURE_COLUMN_ROWS:
        return []
    return sorted(
        (Column(None, min(b[0] for b in c), max(b[1] for b in c), "")
         for c in found if len(c) * 2 > rows_with),
        key=lambda c: c.x0,
    )


def is_fact_row(columns: list[Column]) -> bool:
    """A row of labelled document facts ("Invoice no. | Date | Amount due") heads no items: a
    header cell that is (mostly) the label of one ("Pos." broken into "Po" / "s." is not)."""
    for col in columns:
        for h in match_labels(col.text, FACT_FIELDS):
            if h.weight >= FACT_LABEL_WEIGHT and h.end - h.start >= FACT_SHARE * len(col.text):
                return True
    return False


def cut_cell(dt: DocText, c: Cell, end: int, start: int) -> list[Cell]:
    """Cell c as two: its text up to `end` and from `start` (offsets within the cell)."""
    ln = dt.lines[c.line]
    left = ln.span_bbox(c.start, c.start + end)
    right = ln.span_bbox(c.start + start, c.end)
    return [
        Cell(c.line, c.start, c.start + end, c.x0, left[2], c.text[:end], c.folded[:end]),
        Cell(c.line, c.start + start, c.end, right[0], c.x1, c.text[start:], c.folded[start:]),
    ]


def figure_boxes(pg: Layout, rows: list[list[int]]) -> list[list[tuple[float, float, float]]]:
    """Per row, the x-extents (and line height) of the bare figures in it."""
    dt, out = pg.dt, []
    for row in rows:
        boxes = []
        for c in pg.row_cells(row):
            if FIGURES_ONLY.fullmatch(c.text):
                ln = dt.lines[c.line]
                for m in FIGURE_TOKEN.finditer(c.text):
                    box = ln.span_bbox(c.start + m.start(), c.start + m.end())
                    boxes.append((box[0], box[2], ln.height))
        out.append(sorted(boxes))
    return out


def split_by_figures(pg: Layout, c: Cell, figures: list[list[tuple]]) -> list[Cell]:
    """A header cell over two columns of figures ("MwSt-% Nettowert", "Unit price Price")
    split at the word boundary over the gap between them."""
    gaps, rows_under = [], 0
    for boxes in figures:
        # figures align right: they may reach past the header's right edge, not its left
        under = [b for b in boxes if c.x0 - SAME_CELL <= (b[0] + b[1]) / 2 <= c.x1 + FIGURE_REACH]
        rows_under += bool(under)
        wide = [(b[0] - a[1], (a[1] + b[0]) / 2, a[2]) for a, b in zip(under, under[1:])]
        wide = [mid for gap, mid, height in wide if gap >= FIGURE_GAP_HEIGHTS * height]
        if wide:
            gaps.append(wide[0])
    ln = pg.dt.lines[c.line]
    if not gaps or len(gaps) * 2 < rows_under:
        return [c]
    at = sorted(gaps)[len(gaps) // 2]
    best = None
    for w in WORD_GAP.finditer(c.text):
        x = ln.span_bbox(c.start + w.end(), c.start + w.end() + 1)[0]
        named = bool(column_kind(c.folded[: w.start()]) and column_kind(c.folded[w.end() :]))
        rank = (not named, abs(x - at))  # both halves naming a column first, then the nearest
        if abs(x - at) <= WORD_REACH and (best is None or rank < best[0]):
            best = (rank, w)
    return cut_cell(pg.dt, c, best[1].start(), best[1].end()) if best else [c]


def has_amount(dt: DocText, i: int) -> bool:
    """Line i prints a money amount (a header may say "VAT 19 %" or "HST (page 2)")."""
    return any(has_dec or abs(v) >= HEADER_NUMBER for v, _, _, has_dec in dt.amounts(i))


def header_cells(pg: Layout, row: list[int]) -> list[Cell] | None:
    """The header cells of a row, or None for a row of figures. A labelled figure beside the
    named cells ("CVR 44151227" in a sidebar on the header's row) is no part of the header."""
    dt = pg.dt
    cells = pg.row_cells(row)
    if any(has_amount(dt, c.line) and FIGURES_ONLY.fullmatch(c.text) for c in cells):
        return None  # a row of figures: most rows of a page, told apart cheaply
    # a row naming no column may still head a table whose names are stacked over and under it
    named = [c for c in cells if column_kind(c.folded)] or cells
    lo, hi = min(c.x0 for c in named), max(c.x1 for c in named)
    out = []
    for c in cells:
        if has_amount(dt, c.line):
            if lo <= c.x0 <= hi:
                return None
            continue
        if not lo <= c.x0 <= hi and LABELLED_VALUE.search(c.text):
            continue  # "Daglig leder: Kjersti Abrahamsen" in a sidebar on the header's row
        out.append(c)
    return out


def header_at(
    pg: Layout, page: int, rows: list[list[int]], k: int, unread: bool = False
) -> Header | None:
    """The header at row k, if it is one; `unread`: also one naming the items' text or
    quantity whose amount cells were not read (:func:`figure_columns`)."""
    dt = pg.dt
    cells = header_cells(pg, rows[k])
    if cells is None:
        return None
    if any(WORD_GAP.search(c.text) for c in cells):  # a cell that might head two columns
        figures = figure_boxes(pg, rows[k + 1 : k + 1 + FIGURE_ROWS])
        main = [part for c in cells for part in split_by_figures(pg, c, figures)]
    else:
        main = cells
    if len(main) < HEADER_MIN_CELLS or any(len(c.folded) > HEADER_CELL_CHARS for c in main):
        return None
    columns, used = header_columns(pg, main, pg.row_cells(stacked_lines(pg, rows, k)))
    kinds = {c.kind for c in columns}
    if not kinds & set(AMOUNT_KINDS):
        # a header naming the items' text and quantity, its amount cells unread: the figures
        # below it right of its last cell give their columns
        extra = figure_columns(pg, rows[k + 1 : k + 1 + FIGURE_ROWS], columns) \
            if unread and kinds & {"description", "quantity"} else []
        if not extra:
            return None
        columns = [*columns, *extra]
        spread(columns)
    unread = not kinds & set(AMOUNT_KINDS)
    named = bool(kinds & {"description", "quantity"})
    unnamed = sum(1 for c in columns if c.kind is None)
    if not named and unnamed < UNNAMED_TEXT_COLUMNS:
        return None  # a totals table: "Net | VAT | Gross", "Stawka | Netto | VAT | Brutto"
    if is_fact_row(columns):
        return None
    sidebar = {c.line for c in pg.row_cells(rows[k])} - {c.line for c in cells}
    lines = frozenset(i for i in rows[k] if i not in sidebar) | frozenset(used)
    bottom = min(dt.lines[i].y0 for i in lines)
    # the height of its usual cell: one cell misread as a tall glyph ("N.º" as "E") sets it not
    height = statistics.median(dt.lines[c.line].height for c in cells)
    return Header(page, columns, bottom, lines, named, height, unread)


def page_headers(pg: Layout, page: int, rows, unread: bool = False):
    """(row index, header) of every header row on the page (a stacked line is no header);
    `unread`: headers whose amount cells were not read too."""
    taken: Header | None = None
    for k in range(len(rows)):
        if taken is not None and of_header(pg.dt, taken, rows[k]):
            continue
        h = header_at(pg, page, rows, k, unread)
        if h is not None:
            taken = h
            yield max(n for n, r in enumerate(rows) if n == k or of_header(pg.dt, h, r)), h


def of_header(dt: DocText, header: Header, row: list[int]) -> bool:
    """Is the row part of the header (its lines, or margin text too small to matter)?"""
    tiny = TINY_HEIGHTS * header.height
    return any(i in header.lines for i in row) and all(
        i in header.lines or dt.lines[i].height < tiny for i in row
    )
