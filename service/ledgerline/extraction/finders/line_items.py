"""Line items from the text layer.

Find the table header (a row naming at least a money column and a description or quantity
column), then read the amount column: every amount aligned under the net-amount header anchors
one item; the other cells of that item are the lines closest to it vertically, assigned to columns
by horizontal overlap.  Anchoring on the amount tolerates rows whose cells sit at slightly
different heights.  A table that no totals row closed continues on the next page with the same
columns (a repeated header there replaces them).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from ..document import AMOUNT_FIELDS, LINE_ITEM_KEYS
from ..geometry import DocText
from ..values.amounts import parse_percent
from ..vocabulary import COLUMN_KINDS
from ..vocabulary import VOCABULARY as V
from .labels import match_labels

_QTY_RE = re.compile(r"^\s*(-?\d{1,7}(?:[.,]\d{1,5})?)(?=\s|$|[a-zA-Z(])")
STRONG_TOTAL_WEIGHT = 0.8  # a totals label this specific, at the start of a line, ends a table
STRONG_TOTAL_START = 3


def _strong_total_label(folded: str) -> bool:
    for h in match_labels(folded, AMOUNT_FIELDS):
        if h.weight >= STRONG_TOTAL_WEIGHT and h.start <= STRONG_TOTAL_START:
            return True
    return False


def _kind(folded: str) -> str | None:
    for k in COLUMN_KINDS:
        if V.column_headers[k].search(folded):
            return "unit_price" if k == "unit_price_weak" else k
    return None


def _rows(dt: DocText, page: int) -> list[list[int]]:
    rows: list[list[int]] = []
    for i in dt.by_page.get(page, []):
        if rows and dt.same_row(dt.lines[rows[-1][0]], dt.lines[i]):
            rows[-1].append(i)
        else:
            rows.append([i])
    return rows


# The header row: short cells without figures; cells stacked this close above or below it
# ("Positions-" / "betrag") belong to it.
HEADER_CELL_CHARS, STACKED_CELL_CHARS, STACKED_HEIGHTS = 45, 30, 2.6
# No header names the amount column: the rightmost amounts of the next rows, aligned this well
# (points) in at least this share of them, make it, assumed this wide.
INFERRED_ROWS, INFERRED_ALIGN, INFERRED_SHARE, INFERRED_WIDTH = 25, 12, 6, 45
# An amount anchors an item when its right edge is this close to the column's, or it overlaps it.
ANCHOR_RIGHT_EDGE, ANCHOR_OVERLAP_SLACK = 30, 4


def _header(dt: DocText, rows, k: int) -> dict | None:
    """The columns of a table whose header is row k, or None when row k is no table header."""
    cols: dict[str, tuple[float, float]] = {}
    for i in rows[k]:
        f = dt.folded[i]
        if len(f) > HEADER_CELL_CHARS or dt.amounts(i):
            return None
        kind = _kind(f)
        ln = dt.lines[i]
        if kind and (kind not in cols or (kind == "net_amount" and ln.x0 > cols[kind][0])):
            cols[kind] = (ln.x0, ln.x1)  # the line amount is the rightmost money column
    money = "net_amount" in cols or "unit_price" in cols
    if not money or len(cols) < 2 or not ({"description", "quantity"} & cols.keys()):
        return None
    # stacked header cells just above/below ("Positions-" / "betrag")
    ref = dt.lines[rows[k][0]]
    for off in (-2, -1, 1, 2):
        if 0 <= k + off < len(rows):
            for i in rows[k + off]:
                ln = dt.lines[i]
                if (
                    abs(ln.y0 - ref.y0) > STACKED_HEIGHTS * ref.height
                    or dt.amounts(i)
                    or len(dt.folded[i]) > STACKED_CELL_CHARS
                ):
                    continue
                kind = _kind(dt.folded[i])
                if kind and kind not in cols:
                    cols[kind] = (ln.x0, ln.x1)
    header_bottom = min(dt.lines[i].y0 for i in rows[k])
    if "net_amount" not in cols:
        col = _infer_amount_col(dt, rows, k)
        if col is None:
            return None
        cols["net_amount"] = col
    cols["_bottom"] = (header_bottom, header_bottom)
    return cols


def _infer_amount_col(dt: DocText, rows, k: int) -> tuple[float, float] | None:
    """No header names the line amount: take the rightmost column of amounts under the header."""
    edges: list[float] = []
    for row in rows[k + 1 : k + INFERRED_ROWS]:
        for i in row:
            ln = dt.lines[i]
            for value, s, e, has_dec in dt.amounts(i):
                if has_dec and not ln.text[e : e + 2].strip().startswith("%"):
                    edges.append(ln.span_bbox(s, e)[2])
    if not edges:
        return None
    right = max(edges)
    near = [x for x in edges if right - x <= INFERRED_ALIGN]
    if len(near) < max(1, len(edges) // INFERRED_SHARE):
        return None
    return (right - INFERRED_WIDTH, right)


def _overlap(a0: float, a1: float, b0: float, b1: float, slack: float) -> bool:
    return a1 >= b0 - slack and a0 <= b1 + slack


def _dec(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None


def _anchor_amount(dt: DocText, i: int, col: tuple[float, float]):
    ln = dt.lines[i]
    best = None
    for value, s, e, has_dec in dt.amounts(i):
        if not has_dec or ln.text[e : e + 2].strip().startswith("%"):
            continue
        bb = ln.span_bbox(s, e)
        if abs(bb[2] - col[1]) <= ANCHOR_RIGHT_EDGE or _overlap(
            bb[0], bb[2], col[0], col[1], ANCHOR_OVERLAP_SLACK
        ):
            best = value
    return best


# Reading one page of a table, in points unless said otherwise.
TOP_SLACK = 0.5  # a line may reach this far above the header's bottom and still be an item
SUBTOTAL_IN_AMOUNT_COLUMN = 80  # a totals word this close left of the amount column: a subtotal
SECTION_LEFT_OF_DESCRIPTION = 20  # "Notes:" this far left of the description column ends a table
LEFT_OF_AMOUNT_COLUMN = 5
ANCHOR_REACH = 60  # an amount this far left of the amount column is in another column
STOP_SLACK = 1.0
CELL_REACH_HEIGHTS = 1.25  # cells within this many line heights of an anchor belong to it
COLUMN_OVERLAP_SLACK = 15
RATE_CELL_CHARS = 25  # a "19 %" cell, not a sentence with a percentage in it
DESCRIPTION_CHARS = 500
_FIGURES_ONLY = re.compile(r"[\d\s.,%€$£-]+")


def _anchors(dt: DocText, lines: list[int], cols: dict) -> tuple[list, float | None, bool]:
    """(anchors, stop_y, closed): the amounts in the amount column, one per item, down to the
    row that closes the table (totals, a new section, a strong totals label)."""
    amount_col = cols["net_amount"]
    anchors: list[tuple[int, Decimal]] = []
    closed = False
    stop_y = None
    skipped_rows: list = []
    desc_x0 = cols["description"][0] if "description" in cols else min(c[0] for c in cols.values())
    for i in lines:
        ln = dt.lines[i]
        f = dt.folded[i]
        if V.totals_row.match(f) or V.item_section.match(f):
            if ln.x0 >= amount_col[0] - SUBTOTAL_IN_AMOUNT_COLUMN:
                skipped_rows.append(ln)  # an intermediate subtotal printed in the amount column
                continue
            closed, stop_y = True, ln.y1
            break
        left_of_amounts = ln.x1 < amount_col[0] - LEFT_OF_AMOUNT_COLUMN
        if (
            left_of_amounts
            and f.endswith(":")
            and ln.x0 < desc_x0 - SECTION_LEFT_OF_DESCRIPTION
            and not dt.amounts(i)
        ):
            closed, stop_y = True, ln.y1  # a new section heading at the left margin
            break
        if left_of_amounts and _strong_total_label(f):
            closed, stop_y = True, ln.y1
            break
        if ln.x0 < amount_col[0] - ANCHOR_REACH:
            continue
        value = _anchor_amount(dt, i, amount_col)
        if value is not None:
            anchors.append((i, value))
    if stop_y is not None:
        anchors = [(i, v) for i, v in anchors if dt.lines[i].y0 > stop_y - STOP_SLACK]
    anchors = [
        (i, v) for i, v in anchors if not any(dt.same_row(dt.lines[i], r) for r in skipped_rows)
    ]
    return anchors, stop_y, closed


def _cells(dt: DocText, lines: list[int], anchors: list, stop_y: float | None) -> dict:
    """Every other line goes to the vertically nearest anchor within about a line."""
    centre = {i: (dt.lines[i].y0 + dt.lines[i].y1) / 2 for i in lines}
    cells: dict[int, list[int]] = {a: [] for a, _ in anchors}
    anchor_ids = {a for a, _ in anchors}
    for i in lines:
        if i in anchor_ids or (stop_y is not None and dt.lines[i].y1 <= stop_y):
            continue
        best, dist = None, None
        for a, _ in anchors:
            d = abs(centre[i] - centre[a])
            if d <= CELL_REACH_HEIGHTS * dt.lines[a].height and (dist is None or d < dist):
                best, dist = a, d
        if best is not None:
            cells[best].append(i)
    return cells


def _item(dt: DocText, value: Decimal, cells: list[int], cols: dict) -> dict:
    """One item: its amount, and its other cells assigned to columns by horizontal overlap."""
    item = dict.fromkeys(LINE_ITEM_KEYS)
    item["net_amount"] = value
    desc = []
    for i in sorted(cells, key=lambda i: dt.lines[i].x0):
        ln, text = dt.lines[i], dt.lines[i].text
        if "%" in text and item["vat_rate"] is None and len(text) < RATE_CELL_CHARS:
            item["vat_rate"] = parse_percent(text)
            continue
        if _in_column(ln, cols, "quantity") and item["quantity"] is None:
            m = _QTY_RE.match(text)
            if m:
                item["quantity"] = _dec(m.group(1))
                continue
        if _in_column(ln, cols, "unit_price") and item["unit_price"] is None:
            amts = [x for x in dt.amounts(i) if not text[x[2] : x[2] + 2].strip().startswith("%")]
            if amts:
                item["unit_price"] = amts[-1][0]
                continue
        if ln.x1 < cols["net_amount"][0] and not _FIGURES_ONLY.fullmatch(text):
            desc.append(text)
    if desc:
        item["description"] = " ".join(desc)[:DESCRIPTION_CHARS]
    return item


def _in_column(ln, cols: dict, kind: str) -> bool:
    return kind in cols and _overlap(ln.x0, ln.x1, *cols[kind], COLUMN_OVERLAP_SLACK)


def _read_page(dt: DocText, page: int, cols: dict, top: float) -> tuple[list[dict], bool]:
    """Items on one page under y=top; returns (items, table_closed)."""
    lines = [i for i in dt.by_page.get(page, []) if dt.lines[i].y1 <= top + TOP_SLACK]
    anchors, stop_y, closed = _anchors(dt, lines, cols)
    if not anchors:
        return [], closed
    cells = _cells(dt, lines, anchors, stop_y)
    return [_item(dt, value, cells[a], cols) for a, value in anchors], closed


def extract_line_items(dt: DocText, *, credit_note: bool = False) -> list[dict]:
    items: list[dict] = []
    cols = None
    open_table = False
    for page in sorted(dt.by_page):
        rows = _rows(dt, page)
        found = None
        for k in range(len(rows)):
            found = _header(dt, rows, k)
            if found:
                break
        if found:
            cols, top, open_table = found, found["_bottom"][0], True
        elif open_table and cols is not None:
            top = dt.page_size[page][1]
        else:
            continue
        page_items, closed = _read_page(dt, page, cols, top)
        items.extend(page_items)
        if closed:
            open_table = False
    if credit_note:
        for it in items:
            for k in ("net_amount", "unit_price", "quantity"):
                if it[k] is not None:
                    it[k] = abs(it[k])
    return items
