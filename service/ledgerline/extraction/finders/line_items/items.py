"""Items: rows grouped into one item each, and the item's values."""

from __future__ import annotations

import re
from decimal import Decimal

from ...document import LINE_ITEM_KEYS
from ...values.amounts import parse_percent
from ...vocabulary import VOCABULARY as V
from ..labels import match_labels
from .amounts import CENT, CENTS, HUNDRED, matches
from .cells import PERCENT, to_decimal
from .header import Header
from .rows import Row

# Items: a text row further from the row above than this many times the table's usual row pitch
# starts the next item's description rather than continuing the last one.
ITEM_GAP_PITCHES = 1.35
POSITION_SHARE = 0.5  # of the items whose first cell is a position number: the table numbers rows
POSITION_CHARS = 6
DESCRIPTION_CHARS = 500
POSITION = re.compile(r"^\d{1,4}(?:[.,]\d{1,2})?\.?$")
QTY = re.compile(r"^\s*[x×]?\s*(-?\d{1,7}(?:[.,]\d{1,5})?)(?=\s|$|[^\d.,])")


def is_position(row: Row, header: Header) -> bool:
    """Does the row open with a position number in the table's first column ("1", "2.", "11.0")?"""
    c = row.first
    return (
        c is not None
        and len(c.text) <= POSITION_CHARS
        and bool(POSITION.match(c.text))
        and c.x1 <= header.columns[0].right
    )


def row_pitch(rows: list[Row]) -> float:
    """The table's usual distance from one row to the next (baselines)."""
    steps = sorted(a.y1 - b.y1 for a, b in zip(rows, rows[1:]) if a.y1 > b.y1)
    return steps[len(steps) // 2] if steps else 0.0


def item_blocks(rows: list[Row], total: int, header: Header, leading: bool) -> list[list[Row]]:
    """Rows grouped into items: each starts at a row with an amount (or a position number,
    where the table numbers its rows) and takes the description rows around it. `leading`:
    text rows before the first item belong to it (the table starts under its header)."""
    anchors = [r for r in rows if r.amount(total) is not None]
    numbered = sum(is_position(r, header) for r in anchors)
    by_position = bool(anchors) and numbered >= POSITION_SHARE * len(anchors)
    far = ITEM_GAP_PITCHES * row_pitch(rows)
    blocks: list[list[Row]] = []
    pending: list[Row] = []
    # numbered rows: text far below an item is its own only when another item follows (the
    # table's end unread, a footer is no item's text)
    trailing: list[Row] = []
    prev = None
    for r in rows:
        starts = is_position(r, header) if by_position else r.amount(total) is not None
        if starts:
            if not blocks and not leading:  # a continued page: from its first amount on
                first = [n for n, p in enumerate(pending) if p.amount(total) is not None]
                pending = pending[first[0] :] if first else []
            if blocks:
                blocks[-1].extend(trailing)
            blocks.append([*pending, r])
            pending, trailing = [], []
        elif not blocks or pending or (not by_position and prev.y1 - r.y1 > far):
            pending.append(r)
        elif trailing or prev.y1 - r.y1 > far:
            trailing.append(r)
        else:
            blocks[-1].append(r)
        prev = r
    return [part for b in blocks for part in split_on_amounts(b, total)]


def split_on_amounts(block: list[Row], total: int) -> list[list[Row]]:
    """A block with several amounts is several items, each from its amount's row on."""
    cuts = [k for k, r in enumerate(block) if r.amount(total) is not None]
    if not cuts:
        return []
    cuts[0] = 0
    return [block[a:b] for a, b in zip(cuts, [*cuts[1:], len(block)])]


def quantity_of(rows: list[Row], col: int | None) -> Decimal | None:
    if col is None:
        return None
    for r in rows:
        got = r.number(col)
        if got is not None:
            return got
        for text in r.texts.get(col, ()):
            m = QTY.match(text)
            if m:
                return to_decimal(m.group(1))
    return None


def rate_of(rows: list[Row], header: Header) -> Decimal | None:
    """The row's VAT rate: the VAT column's figure, else a percentage outside the discount."""
    col, disc = header.index("vat_rate"), header.index("discount")
    for r in rows:
        if col is not None:
            if r.number(col) is not None:
                return r.number(col)
            for text in r.texts.get(col, ()):
                got = parse_percent(text)
                if got is not None:
                    return got
        else:
            for k, figures in r.numbers.items():
                for f in figures:
                    if f.percent and k != disc:
                        return f.value
    return None


def description_of(rows: list[Row], header: Header, total: int) -> str | None:
    """The text of the description columns, else of the unnamed text columns before the
    amount."""
    named = [k for k, c in enumerate(header.columns) if c.kind == "description"]
    unnamed = [k for k, c in enumerate(header.columns) if c.kind is None and k < total]
    for cols in (named, unnamed):  # "1 Testy" run into the position column: still the text
        parts = [t for r in rows for k in cols for t in r.texts.get(k, ())]
        if parts:
            return " ".join(parts)[:DESCRIPTION_CHARS]
    return None


# A VAT rate is a percentage no country exceeds, with at most this many decimals (US sales
# tax: 8.875): a figure of a "Tax" column above it is the line's tax amount, not its rate.
MAX_VAT_RATE, RATE_DECIMALS = Decimal(30), 3
IMPLAUSIBLE_RATE = "_implausible_rate"  # an item's mark: its rate column printed no rate
# A row's VAT or gross amount agrees with quantity × price to a cent and this share of it.
AGREES = Decimal("0.001")


def plausible_rate(rate: Decimal | None) -> bool:
    return rate is not None and 0 <= rate <= MAX_VAT_RATE and -rate.as_tuple().exponent <= \
        RATE_DECIMALS


def make_item(rows: list[Row], header: Header, total: int, doc_rate: Decimal | None) -> dict:
    """One item; `doc_rate` is the document's only VAT rate, for gross figures on a line
    that prints none. A rate that cannot be one marks the item (:data:`IMPLAUSIBLE_RATE`)."""
    item = dict.fromkeys(LINE_ITEM_KEYS)
    anchor = next(r for r in rows if r.amount(total) is not None)
    amount = anchor.amount(total)
    price_col = header.index("unit_price")
    price = None
    if price_col is not None and price_col != total:
        price = next((r.amount(price_col) for r in rows if r.amount(price_col) is not None), None)
    qty = quantity_of(rows, header.index("quantity"))
    if qty is not None and price is not None and qty % 10 and not matches(qty, price, amount):
        # a decimal separator lost ("145" for "14.5"), where the arithmetic says so; not a
        # round figure ("10000 kWh" priced per 10), which no lost separator makes
        qty = next((q for q in (qty / 10, qty / 100) if matches(q, price, amount)), qty)
    rate = rate_of(rows, header)
    if rate is not None and not plausible_rate(rate):
        item[IMPLAUSIBLE_RATE] = True
        rate = None
    gross_price = price_col is not None and header.columns[price_col].gross
    gross = header.columns[total].gross
    if not (gross or gross_price) and misread_amount(anchor, header, total, qty, price, rate):
        amount = (qty * price).quantize(CENTS)
    elif (qty is not None and price is not None and amount == amount.to_integral_value()
          and not matches(qty, price, amount) and matches(qty, price, amount / HUNDRED)):
        amount = amount / HUNDRED  # its decimal separator lost ("15748" for 157,48)
    vat = rate if rate is not None or not (gross or gross_price) else doc_rate
    item.update(
        description=description_of(rows, header, total),
        quantity=qty,
        unit_price=excluding_vat(price, vat) if gross_price else price,
        vat_rate=vat,
        net_amount=net_amount_of(amount, qty, price, vat, gross, gross_price),
    )
    return item


def misread_amount(row: Row, header: Header, total: int, qty, price, rate) -> bool:
    """Is the row's amount misread (a digit lost: "52,99" for "252,99")? It is where it is not
    quantity × price but the row prints the VAT of quantity × price at the row's rate, or that
    plus the VAT (its gross amount), to a cent and a thousandth."""
    if qty is None or price is None or not rate:  # at 0 % the VAT and gross tell nothing
        return False
    amount = row.amount(total)
    if amount is None or matches(qty, price, amount):
        return False
    net = qty * price
    tolerance = CENT + abs(net) * AGREES
    told = (header.index("unit_price"), header.index("quantity"), total)
    others = [f.value for k, fs in row.numbers.items() if k not in told for f in fs
              if not f.percent and abs(f.value - net) > tolerance]  # the price printed again
    return any(abs(net * rate / HUNDRED - v) <= tolerance
               or abs(net * (HUNDRED + rate) / HUNDRED - v) <= tolerance for v in others)


def excluding_vat(value: Decimal | None, rate: Decimal | None) -> Decimal | None:
    """A figure that includes VAT, without it; unknown without the rate."""
    if value is None or rate is None:
        return None
    return (value * HUNDRED / (HUNDRED + rate)).quantize(CENTS)


def net_amount_of(amount: Decimal, qty, price, rate, gross_column: bool, gross_price: bool):
    """The line's net amount: the printed one, unless the header or the row shows that it
    includes VAT: quantity × gross price, or quantity × net price plus the row's rate."""
    priced = qty is not None and price is not None
    if gross_column or (gross_price and priced and matches(qty, price, amount)):
        return excluding_vat(amount, rate)
    if rate is not None and priced and not gross_price:
        factor = (HUNDRED + rate) / HUNDRED
        if not matches(qty, price, amount) and matches(qty, price * factor, amount):
            return (qty * price).quantize(CENTS)
    return amount


def is_sum(item: dict, before: list[dict]) -> bool:
    """An unlabelled row repeating the sum of the items above it is their total, no item."""
    if len(before) < 2 or item["quantity"] is not None or item["unit_price"] is not None:
        return False
    amounts = [b["net_amount"] for b in before]
    return None not in amounts and item["net_amount"] == sum(amounts)


def includes_tax(label: str) -> bool:
    """Does a totals row's label say its figure includes VAT ("Total incl. VAT", "Total RM
    Including GST 6%", "Gesamtbetrag brutto")?"""
    if V.tax_included.search(label):
        return True
    return any(V.including.search(label[: h.start]) for h in match_labels(label, ("tax_total",)))


def net_of_gross_lines(items: list[dict], closing: Row, total: int,
                       doc_rate: Decimal | None) -> None:
    """Where the row closing the table, the first totals row under the items, is labelled a
    total that includes VAT ("Total RM Including GST 6%" under a till receipt's lines), the items' amounts
    include it too: no net subtotal or VAT row stands between them. Each item's net amount is
    its amount without the VAT at its own rate, else the one the label prints, else the
    document's only rate. Only where the row prints the items' sum in their amount column (net
    lines under a gross total do not add up to it; a VAT summary's header row, "Stawka VAT,
    Wartość netto, ..., Wartość brutto", prints none), and with a rate."""
    if not items or not V.totals_row.match(closing.label) or not includes_tax(closing.label):
        return
    printed = {to_decimal(m.group(1)) for m in PERCENT.finditer(closing.label)}
    rate = printed.pop() if len(printed) == 1 else doc_rate
    stated = closing.amount(total)
    amounts = [it["net_amount"] for it in items]
    if stated is None or None in amounts or sum(amounts) != stated:
        return
    for it in items:
        vat = it["vat_rate"] if it["vat_rate"] is not None else rate
        if vat is None or not plausible_rate(vat):
            continue
        it["vat_rate"] = vat
        it["net_amount"] = excluding_vat(it["net_amount"], vat)
        if it["unit_price"] is not None:
            it["unit_price"] = excluding_vat(it["unit_price"], vat)
