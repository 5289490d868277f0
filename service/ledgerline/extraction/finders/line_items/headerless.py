"""Items of a table whose header was not read at all (a photo's band lost to glare or blur).

Looked for only where no header is found: the page's columns of figures, aligned on their right
edges over several rows, stand for the header's cells, and the table is the rows from the first
to the last whose figures multiply out (quantity × price = amount, a quantity other than one)
in three of those columns; only that arithmetic names the amount column. Rows above the first
(a header's fragments) and below the last (the totals) are no part of it.
"""

from __future__ import annotations

import statistics

from .amounts import matches
from .cells import Layout
from .header import ALIGNED, Column, Header, figure_boxes, spread
from .rows import Row, read_row

# A column of figures is seen in at least this many rows; a table has at least this many rows
# that multiply out.
COLUMN_ROWS, TABLE_ROWS = 3, 2


def headerless_tables(pg: Layout, page: int) -> list[tuple[Header, list[list[int]]]]:
    """(header, rows) of the page's table without a header, if it has one."""
    rows = pg.rows(page)
    found: list[list[tuple[float, float]]] = []  # per column: the (x0, x1) of its figures
    for boxes in figure_boxes(pg, rows):
        for x0, x1, _ in boxes:
            col = next((c for c in found if abs(c[0][1] - x1) <= ALIGNED), None)
            if col is None:
                found.append([(x0, x1)])
            else:
                col.append((x0, x1))
    figures = sorted(
        (Column(None, min(b[0] for b in c), max(b[1] for b in c), "")
         for c in found if len(c) >= COLUMN_ROWS),
        key=lambda c: c.x0,
    )
    if len(figures) < 3:
        return []
    dt = pg.dt
    lines = [i for r in rows for i in r]
    text = Column(None, min(dt.lines[i].x0 for i in lines), figures[0].x0 - 1, "")
    columns = [text, *figures] if text.x1 > text.x0 else figures
    spread(columns)
    height = statistics.median(dt.lines[i].height for i in lines)
    header = Header(page, columns, float("inf"), frozenset(), False, height, unread=True)
    strong = [k for k, r in enumerate(rows) if multiplies_out(read_row(pg, header, r))]
    if len(strong) < TABLE_ROWS:
        return []
    return [(header, rows[strong[0] : strong[-1] + 1])]


def multiplies_out(row: Row) -> bool:
    """Do three of the row's columns hold quantity, price and amount (quantity other than 1)?"""
    cols = list(row.numbers)
    for q in cols:
        qv = row.number(q)
        if qv is None or qv in (0, 1):
            continue
        for p in cols:
            for t in cols:
                pv, tv = row.amount(p), row.amount(t)
                if len({q, p, t}) == 3 and pv is not None and tv is not None \
                        and matches(qv, pv, tv):
                    return True
    return False
