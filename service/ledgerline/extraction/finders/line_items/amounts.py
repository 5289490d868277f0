"""Which column holds the line's net amount: arithmetic first, the header words second."""

from __future__ import annotations

from decimal import Decimal

from .cells import AMOUNT_KINDS
from .header import Header
from .rows import Row

# Arithmetic: quantity × price matches an amount within a cent, plus half a cent per unit.
CENT, HALF_CENT = Decimal("0.011"), Decimal("0.005")
ARITHMETIC_SHARE = 0.5  # of the rows that print all three figures
HUNDRED, CENTS = Decimal(100), Decimal("0.01")


def matches(q: Decimal, p: Decimal, t: Decimal, discount: Decimal | None = None) -> bool:
    expected = q * p
    if discount is not None:
        expected = expected * (HUNDRED - discount) / HUNDRED
    return abs(expected - t) <= CENT + HALF_CENT * abs(q)


def arithmetic_columns(header: Header, rows: list[Row]) -> list[int]:
    """Columns whose figure is quantity × price (less the discount) in most rows that print
    the three with a quantity other than one (where price and amount would be the same)."""
    kinds = [c.kind for c in header.columns]
    printed = {k for r in rows for k in r.numbers}
    # any column may hold the quantity ("Amount" for "Menge"), a money column the price
    quantities = [k for k, kind in enumerate(kinds) if kind != "description" and k in printed]
    prices = [k for k in quantities if kinds[k] in (*AMOUNT_KINDS, None)]
    totals = prices
    disc = header.index("discount")
    out = []
    for t, q, p in ((t, q, p) for t in totals for q in quantities for p in prices):
        if len({q, p, t}) < 3:
            continue
        seen = hits = 0
        for r in rows:
            qv, pv, tv = r.number(q), r.amount(p), r.amount(t)
            if qv is None or pv is None or tv is None or qv in (0, 1):
                continue
            seen += 1
            d = r.number(disc) if disc is not None else None
            hits += matches(qv, pv, tv) or (d is not None and matches(qv, pv, tv, abs(d)))
        if seen and hits >= ARITHMETIC_SHARE * seen and t not in out:
            out.append(t)
    return out


def by_header(header: Header, rows: list[Row]) -> int | None:
    """The line-amount column the header words name: the first net amount (after a discount
    column, before the VAT columns), else the gross amount, else the price, else the rightmost
    column of figures."""
    cols = header.columns
    nets = [k for k, c in enumerate(cols) if c.kind == "net_amount"]
    disc = header.index("discount")
    if disc is not None and any(k > disc for k in nets):
        nets = [k for k in nets if k > disc]
    vat = [k for k, c in enumerate(cols) if c.kind in ("vat_amount", "vat_rate")]
    if vat and any(k < min(vat) for k in nets):
        nets = [k for k in nets if k < min(vat)]
    if nets:
        return nets[0]
    gross = header.index("gross_amount")
    if gross is not None:
        return gross
    prices = [k for k, c in enumerate(cols) if c.kind == "unit_price"]
    if prices:
        return prices[-1]
    with_figures = [k for k in range(len(cols)) if any(r.amount(k) is not None for r in rows)]
    return with_figures[-1] if with_figures else None


def amount_column(header: Header, rows: list[Row]) -> int | None:
    """The column of the line amounts: the one the header names, unless the arithmetic of
    the rows shows another (a net one before a gross one); under a header whose amount cells
    were not read, only the one the arithmetic shows."""
    sums = arithmetic_columns(header, rows)
    if header.unread and not sums:
        return None
    named = by_header(header, rows)
    plain = [k for k in sums if not header.columns[k].gross]  # net before gross
    if not sums or (named in sums and (plain == [] or named in plain)):
        return named
    plain = plain or sums
    return next((k for k in plain if header.columns[k].kind == "net_amount"), plain[0])


def quantity_by_arithmetic(header: Header, rows: list[Row], total: int) -> int | None:
    """Where no header cell names the quantity (a misread "Quantity"), the unnamed column
    whose figure times the unit price is the line amount in most rows that print the three,
    one of them at least with a quantity other than one."""
    price = header.index("unit_price")
    if header.index("quantity") is not None or price is None or price == total:
        return None
    return _by_arithmetic(header, rows, lambda k: (k, price, total))


def price_by_arithmetic(header: Header, rows: list[Row], total: int) -> int | None:
    """Where no header cell names the unit price (its cell unread), the unnamed column whose
    figure times the quantity is the line amount in most rows that print the three."""
    qty = header.index("quantity")
    if header.index("unit_price") is not None or qty is None or qty == total:
        return None
    return _by_arithmetic(header, rows, lambda k: (qty, k, total))


def _by_arithmetic(header: Header, rows: list[Row], roles) -> int | None:
    """The first unnamed column k whose (quantity, price, amount) columns `roles(k)` multiply
    out in most rows that print the three, one of them at least with a quantity other than one."""
    for k, col in enumerate(header.columns):
        q, p, t = roles(k)
        if col.kind is not None or len({q, p, t}) < 3:
            continue
        seen = hits = told = 0
        for r in rows:
            qv, pv, tv = r.number(q), r.amount(p), r.amount(t)
            if qv is None or pv is None or tv is None:
                continue
            seen += 1
            if matches(qv, pv, tv):
                hits += 1
                told += qv not in (0, 1)
        if told and hits >= ARITHMETIC_SHARE * seen:
            return k
    return None
