"""Line items from the text layer: find the table header, map its columns, read rows.

A table continues onto the next page when no totals row closed it; columns found on the first
page are reused there (a repeated header on the new page replaces them).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from .labels import COLUMN_HEADERS, STOP_ITEMS
from .layout import DocText
from .numbers import parse_percent

_KIND_ORDER = ("vat_rate", "quantity", "unit_price", "net_amount", "description")
_QTY_RE = re.compile(r"^\s*(-?\d{1,7}(?:[.,]\d{1,5})?)(?:\s|$|[a-zA-Z(])")
_TOTAL_WORDS = re.compile(
    r"\b(?:sub[\s-]?total|total|summe|gesamtbetrag|zwischensumme|rechnungssumme|positionssumme|"
    r"nettobetrag|bruttobetrag|montant\s+(?:ht|ttc)|sous[\s-]total|subtotaal|totaal|totale|"
    r"imponibile|base\s+imponible|steueraufschlusselung|belegsummen|zahlbetrag)\b")


def _rows(dt: DocText, page: int) -> list[list[int]]:
    """Lines of a page grouped into rows, top to bottom."""
    rows: list[list[int]] = []
    for i in dt.by_page.get(page, []):
        ln = dt.lines[i]
        if rows:
            ref = dt.lines[rows[-1][0]]
            if dt.same_row(ref, ln):
                rows[-1].append(i)
                continue
        rows.append([i])
    for r in rows:
        r.sort(key=lambda i: dt.lines[i].x0)
    return rows


def _kinds(folded: str) -> list[str]:
    return [k for k in _KIND_ORDER if COLUMN_HEADERS[k].search(folded)]


def _header_columns(dt: DocText, row: list[int]) -> dict[str, tuple[float, float]] | None:
    cols: dict[str, tuple[float, float]] = {}
    for i in row:
        folded = dt.folded[i]
        if len(folded) > 60 or dt.amounts(i):
            return None
        for k in _kinds(folded):
            if k not in cols:
                ln = dt.lines[i]
                cols[k] = (ln.x0, ln.x1)
                break
    has_money = "net_amount" in cols or "unit_price" in cols
    if has_money and len(cols) >= 3 or (len(cols) >= 2 and "net_amount" in cols and "description" in cols):
        return cols
    return None


def _extend_header(dt: DocText, rows, k: int, cols: dict) -> None:
    """Stacked header cells above/below the header row fill in missing columns."""
    ref = dt.lines[rows[k][0]]
    for off in (-2, -1, 1, 2):
        if not 0 <= k + off < len(rows):
            continue
        for i in rows[k + off]:
            ln = dt.lines[i]
            if abs(ln.y0 - ref.y0) > 2.6 * ref.height or dt.amounts(i):
                continue
            for kind in _kinds(dt.folded[i]):
                if kind not in cols:
                    cols[kind] = (ln.x0, ln.x1)
                    break


def _in_col(x0: float, x1: float, col: tuple[float, float], slack: float = 30.0) -> bool:
    return x1 >= col[0] - slack and x0 <= col[1] + slack


def _dec(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None


def _read_row(dt: DocText, row: list[int], cols: dict, amount_x1: float) -> dict | None:
    # the line amount: an amount whose right edge sits under the amount column
    net = None
    net_i = None
    for i in row:
        ln = dt.lines[i]
        for value, s, e, has_dec in dt.amounts(i):
            if not has_dec:
                continue
            if ln.text[e:e + 2].strip().startswith("%"):
                continue
            bb = ln.span_bbox(s, e)
            if abs(bb[2] - amount_x1) <= 25 or (bb[0] <= amount_x1 <= bb[2] + 25):
                net, net_i = value, i
    if net is None:
        return None
    item = {"description": None, "quantity": None, "unit_price": None, "net_amount": net,
            "vat_rate": None}
    desc_parts = []
    for i in row:
        if i == net_i:
            continue
        ln = dt.lines[i]
        text = ln.text
        if "%" in text and item["vat_rate"] is None:
            item["vat_rate"] = parse_percent(text)
        if "quantity" in cols and _in_col(ln.x0, ln.x1, cols["quantity"], 20) and item["quantity"] is None:
            m = _QTY_RE.match(text)
            if m:
                item["quantity"] = _dec(m.group(1))
                continue
        if "unit_price" in cols and _in_col(ln.x0, ln.x1, cols["unit_price"], 20) and item["unit_price"] is None:
            amts = [a for a in dt.amounts(i) if not text[a[2]:a[2] + 2].strip().startswith("%")]
            if amts:
                item["unit_price"] = amts[-1][0]
                continue
        if "description" in cols and ln.x1 > cols["description"][0] - 40 and not dt.amounts(i) and "%" not in text:
            desc_parts.append(text)
        elif "description" not in cols and not dt.amounts(i):
            desc_parts.append(text)
    if desc_parts:
        item["description"] = " ".join(desc_parts)[:500]
    return item


def extract_line_items(dt: DocText) -> list[dict]:
    items: list[dict] = []
    cols = None
    amount_x1 = None
    open_table = False
    for page in sorted(dt.by_page):
        rows = _rows(dt, page)
        start = 0
        # a (repeated) header on this page
        for k, row in enumerate(rows):
            found = _header_columns(dt, row)
            if found:
                _extend_header(dt, rows, k, found)
                cols, start, open_table = found, k + 1, True
                col = cols.get("net_amount") or cols.get("unit_price")
                amount_x1 = col[1]
                break
        else:
            if not open_table:
                continue
        if cols is None or amount_x1 is None:
            continue
        last_item_y = None
        for row in rows[start:]:
            folded = " ".join(dt.folded[i] for i in row)
            first = dt.folded[row[0]]
            if STOP_ITEMS.match(first) or (_TOTAL_WORDS.search(folded) and not _looks_like_item(dt, row)):
                open_table = False
                break
            item = _read_row(dt, row, cols, amount_x1)
            if item is not None:
                items.append(item)
                last_item_y = dt.lines[row[0]].y0
            elif items and last_item_y is not None and items[-1]["description"] is None:
                texts = [dt.lines[i].text for i in row if not dt.amounts(i)]
                if texts:
                    items[-1]["description"] = " ".join(texts)[:500]
    return items


def _looks_like_item(dt: DocText, row: list[int]) -> bool:
    """A row whose first cell is a position number is an item even if it says 'total'."""
    return bool(re.match(r"^\d{1,4}$", dt.lines[row[0]].text.strip())) and len(row) >= 3
