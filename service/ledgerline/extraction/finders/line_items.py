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

from ..geometry import DocText
from ..values.amounts import parse_percent
from ..vocabulary import COLUMN_KINDS
from ..vocabulary import VOCABULARY as V
from .labels import match_labels

_QTY_RE = re.compile(r"^\s*(-?\d{1,7}(?:[.,]\d{1,5})?)(?=\s|$|[a-zA-Z(])")
_TOTALS = ("gross_total", "net_total", "tax_total", "amount_due")


def _strong_total_label(folded: str) -> bool:
    for h in match_labels(folded, _TOTALS):
        if h.weight >= 0.8 and h.start <= 3:
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


def _header(dt: DocText, rows, k: int) -> dict | None:
    cols: dict[str, tuple[float, float]] = {}
    for i in rows[k]:
        f = dt.folded[i]
        if len(f) > 45 or dt.amounts(i):
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
                    abs(ln.y0 - ref.y0) > 2.6 * ref.height
                    or dt.amounts(i)
                    or len(dt.folded[i]) > 30
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
    for row in rows[k + 1 : k + 25]:
        for i in row:
            ln = dt.lines[i]
            for value, s, e, has_dec in dt.amounts(i):
                if has_dec and not ln.text[e : e + 2].strip().startswith("%"):
                    edges.append(ln.span_bbox(s, e)[2])
    if not edges:
        return None
    right = max(edges)
    near = [x for x in edges if right - x <= 12]
    if len(near) < max(1, len(edges) // 6):
        return None
    return (right - 45, right)


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
        if abs(bb[2] - col[1]) <= 30 or _overlap(bb[0], bb[2], col[0], col[1], 4):
            best = value
    return best


def _read_page(dt: DocText, page: int, cols: dict, top: float) -> tuple[list[dict], bool]:
    """Items on one page under y=top; returns (items, table_closed)."""
    amount_col = cols["net_amount"]
    lines = [i for i in dt.by_page.get(page, []) if dt.lines[i].y1 <= top + 0.5]
    anchors: list[tuple[int, Decimal]] = []
    closed = False
    stop_y = None
    skipped_rows: list = []
    desc_x0 = cols["description"][0] if "description" in cols else min(c[0] for c in cols.values())
    for i in lines:
        ln = dt.lines[i]
        f = dt.folded[i]
        if V.totals_row.match(f) or V.item_section.match(f):
            if ln.x0 >= amount_col[0] - 80:
                skipped_rows.append(ln)  # an intermediate subtotal printed in the amount column
                continue
            closed, stop_y = True, ln.y1
            break
        if (
            ln.x1 < amount_col[0] - 5
            and f.endswith(":")
            and ln.x0 < desc_x0 - 20
            and not dt.amounts(i)
        ):
            closed, stop_y = True, ln.y1  # a new section heading at the left margin
            break
        if ln.x1 < amount_col[0] - 5 and _strong_total_label(f):
            closed, stop_y = True, ln.y1
            break
        if ln.x0 < amount_col[0] - 60:
            continue
        value = _anchor_amount(dt, i, amount_col)
        if value is not None:
            anchors.append((i, value))
    if stop_y is not None:
        anchors = [(i, v) for i, v in anchors if dt.lines[i].y0 > stop_y - 1]
    anchors = [
        (i, v) for i, v in anchors if not any(dt.same_row(dt.lines[i], r) for r in skipped_rows)
    ]
    if not anchors:
        return [], closed
    # every other line goes to the vertically nearest anchor within about a line
    centre = {i: (dt.lines[i].y0 + dt.lines[i].y1) / 2 for i in lines}
    cells: dict[int, list[int]] = {a: [] for a, _ in anchors}
    anchor_ids = {a for a, _ in anchors}
    for i in lines:
        if i in anchor_ids or (stop_y is not None and dt.lines[i].y1 <= stop_y):
            continue
        best, dist = None, None
        for a, _ in anchors:
            d = abs(centre[i] - centre[a])
            if d <= 1.25 * dt.lines[a].height and (dist is None or d < dist):
                best, dist = a, d
        if best is not None:
            cells[best].append(i)
    items = []
    for a, value in anchors:
        item = {
            "description": None,
            "quantity": None,
            "unit_price": None,
            "net_amount": value,
            "vat_rate": None,
        }
        desc = []
        for i in sorted(cells[a], key=lambda i: dt.lines[i].x0):
            ln, text = dt.lines[i], dt.lines[i].text
            if "%" in text and item["vat_rate"] is None and len(text) < 25:
                item["vat_rate"] = parse_percent(text)
                continue
            if (
                "quantity" in cols
                and _overlap(ln.x0, ln.x1, *cols["quantity"], 15)
                and item["quantity"] is None
            ):
                m = _QTY_RE.match(text)
                if m:
                    item["quantity"] = _dec(m.group(1))
                    continue
            if (
                "unit_price" in cols
                and _overlap(ln.x0, ln.x1, *cols["unit_price"], 15)
                and item["unit_price"] is None
            ):
                amts = [
                    x for x in dt.amounts(i) if not text[x[2] : x[2] + 2].strip().startswith("%")
                ]
                if amts:
                    item["unit_price"] = amts[-1][0]
                    continue
            if ln.x1 < amount_col[0] and not re.fullmatch(r"[\d\s.,%€$£-]+", text):
                desc.append(text)
        if desc:
            item["description"] = " ".join(desc)[:500]
        items.append(item)
    return items, closed


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
