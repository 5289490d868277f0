"""Items of a table with neither a header read nor rows that multiply out: a column of amounts
that the totals under it add up.

A broadcaster's schedule of spots, a receipt of services: each item is one figure, the header
left unread (or printed as a band OCR skipped), and no quantity or unit price beside it, so
neither :mod:`.header` nor :mod:`.headerless` finds the table. Its amounts still say what they
are: printed one under another with their right edges aligned, and added up to the figure a
totals row below them states ("Gross Total $1,485.00" under $630.00, $630.00 and $225.00). Only
that sum makes them items; the rows from a little above the first amount (its item's text, as
far above it as the items are apart) to the last amount are the table. Looked for only where no
other table is found.
"""

from __future__ import annotations

from decimal import Decimal

from ...document import AMOUNT_FIELDS
from ...values.amounts import find_amounts
from ..labels import match_labels
from .cells import FIGURES_ONLY, Layout
from .header import ALIGNED, Column, Header, spread

# A column of amounts has at least this many; the totals row is at most this many of the
# items' spacings under the last of them.
ITEMS, TOTAL_REACH = 2, 4.0


def summed_tables(pg: Layout, page: int) -> list[tuple[Header, list[list[int]]]]:
    """(header, rows) of the page's table of amounts added up by a totals row, if it has one."""
    rows = pg.rows(page)
    money = _money_cells(pg, rows)
    columns: list[list[tuple[int, float, float, Decimal]]] = []  # (row, x0, x1, value)
    for k, found in enumerate(money):
        for x0, x1, value in found:
            col = next((c for c in columns if abs(c[-1][2] - x1) <= ALIGNED and c[-1][0] != k),
                       None)
            if col is None:
                columns.append([(k, x0, x1, value)])
            else:
                col.append((k, x0, x1, value))
    for col in sorted(columns, key=len, reverse=True):
        got = _summed_run(pg, rows, col)
        if got is None:
            continue
        first, last = got
        figures = Column("net_amount", min(c[1] for c in col[first:last + 1]),
                         max(c[2] for c in col[first:last + 1]), "")
        dt = pg.dt
        lines = [i for r in rows for i in r]
        text = Column(None, min(dt.lines[i].x0 for i in lines), figures.x0 - 1, "")
        spread([text, figures])
        height = sorted(dt.lines[i].height for i in lines)[len(lines) // 2]
        # the first item's text reaches as far above its amount as the items are apart
        top_row, next_row = col[first][0], col[first + 1][0]
        reach = _y(pg, rows[top_row]) + (_y(pg, rows[top_row]) - _y(pg, rows[next_row]))
        start = top_row
        while start > 0 and _y(pg, rows[start - 1]) < reach:
            start -= 1
        header = Header(page, [text, figures], float("inf"), frozenset(), False, height)
        return [(header, rows[start : col[last][0] + 1])]
    return []


def _money_cells(pg: Layout, rows: list[list[int]]) -> list[list[tuple[float, float, Decimal]]]:
    """Per row, its cells that print one amount with decimals and nothing else but a currency
    sign: (x0, x1, value)."""
    dt, out = pg.dt, []
    for row in rows:
        found = []
        for c in pg.row_cells(row):
            if not FIGURES_ONLY.fullmatch(c.text):
                continue
            got = find_amounts(c.text, dt.decimal)
            if len(got) == 1 and got[0][3] and got[0][0] > 0:
                box = dt.lines[c.line].span_bbox(c.start, c.end)
                found.append((box[0], box[2], got[0][0]))
        out.append(found)
    return out


def _summed_run(pg: Layout, rows: list[list[int]], col: list) -> tuple[int, int] | None:
    """(first, last) of the column's figures that a totals row under the last adds up, taking
    the run that ends nearest the totals; None where no totals row states their sum."""
    if len(col) < ITEMS:
        return None
    dt = pg.dt
    for first in range(len(col) - ITEMS + 1):
        last = len(col) - 1
        spacing = (_y(pg, rows[col[first][0]]) - _y(pg, rows[col[last][0]])) / (last - first)
        total = sum(c[3] for c in col[first:last + 1])
        below = col[last][0] + 1
        for r in rows[below:]:
            if _y(pg, rows[col[last][0]]) - _y(pg, r) > TOTAL_REACH * spacing:
                break
            if (any(_totals_label(dt.folded[i]) for i in r)
                    and any(v == total for i in r for v, *_ in dt.amounts(i))):
                return first, last
    return None


def _totals_label(folded: str) -> bool:
    """Does the line name a total ("Gross Total", "Subtotal", "Net Amount Due")?"""
    return bool(match_labels(folded, AMOUNT_FIELDS))


def _y(pg: Layout, row: list[int]) -> float:
    return min(pg.dt.lines[i].y0 for i in row)
