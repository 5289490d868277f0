"""The net total the line items imply: their sum, less the document-level allowances and plus
the charges the page prints.

The sum of the items is a feature of the totals (:mod:`.features`): where it is the net total,
it tells the net from a subtotal or one VAT rate's base. But an invoice with a discount on the
whole document ("Discount 5 %" under the items) or a charge ("Surcharge", EN 16931's document
level allowances and charges) has a net total of items - allowances + charges (EN 16931's
BT-109 = BT-106 - BT-107 + BT-108): there the items' sum is the subtotal before them, and
evidence for the wrong figure. A model trained on such invoices with the plain sum learns that
the sum may be the net or not, and one with few of them takes the subtotal for the net.

An allowance or charge is a money figure (printed with decimals, no percentage: that is its
rate) whose label starts with an allowance or charge word, after a total or sum word or none
(``Vocabulary.allowance_label``, ``charge_label``); the label is read from any of the cells left
of the figure on its row. A figure equal to the items' sum is a subtotal named after the
discount ("Total before discount"). Pages print an allowance more than once (each one, then
their sum) or a figure beside it that is not its amount, so the carried sum is the items' sum
through some of the allowances and charges found, and it is used only where it is a figure the
page prints, and only one such figure: else the plain sum is kept (a deduction from the gross
rather than the net, or a word read on another kind of row, lands on no printed figure).
"""

from __future__ import annotations

from decimal import Decimal
from itertools import combinations

from ..geometry import DocText
from ..text import normalise_text
from ..vocabulary import VOCABULARY as V
from .features import column_amounts

# Beyond this many distinct allowances and charges, only all of them together are tried (2^n
# sums, and the more there are, the likelier one lands on a printed figure by chance).
MAX_STEPS = 6
# A column of totals: each figure at most this many line heights under the one before. Wider
# than the ranker's column feature (3): the figure to pay often stands apart, under a rule, and
# the arithmetic that must hold to the cent keeps a figure that merely stands there out.
STEP_HEIGHTS = 4.5
_CENT = Decimal("0.01")


def items_sum(items: list) -> Decimal | None:
    """The items' net amounts added up, as a magnitude; None where an item has no net amount
    (or there are none)."""
    amounts = [li.get("net_amount") for li in items]
    if not amounts or any(a is None for a in amounts):
        return None
    return abs(sum(amounts, Decimal(0)))


def items_net(dt: DocText, plain: Decimal) -> Decimal:
    """The items' sum ``plain`` carried through the document-level allowances and charges the
    page prints (some of them: see the module's docstring), where that lands on exactly one
    printed figure other than the sum itself; else ``plain``."""
    allowances, charges = adjustments(dt, exclude=plain)
    steps = sorted({-a for a in allowances} | set(charges))
    if not steps:
        return plain
    if len(steps) > MAX_STEPS:  # a page of discounts: only all of them together
        choices = [steps]
    else:
        choices = [list(c) for n in range(1, len(steps) + 1) for c in combinations(steps, n)]
    printed = _printed(dt)
    landed = {plain + sum(c, Decimal(0)) for c in choices} & printed
    landed = {v for v in landed if v > 0 and v != plain}
    return landed.pop() if len(landed) == 1 else plain


def adjustments(dt: DocText, exclude: Decimal | None = None) -> tuple[set, set]:
    """(allowances, charges): the distinct magnitudes of the money figures on rows labelled as
    a document-level allowance or charge; ``exclude``: a figure that is neither (the items'
    sum, repeated on a row named after the discount)."""
    allowances: set = set()
    charges: set = set()
    for i in range(len(dt.lines)):
        figures = _money(dt, i)
        if not figures:
            continue
        labels = _labels(dt, i)
        if any(V.cash_discount.search(t) for t in labels):
            continue  # a discount for paying early: the totals stay as they are
        if any(V.allowance_label.match(t) for t in labels):
            kind = allowances
        elif any(V.charge_label.match(t) for t in labels):
            kind = charges
        else:
            continue
        kind.update(a for a in figures if a and a != exclude)
    return allowances, charges


def after_allowances(dt: DocText, page_amounts: dict,
                     reach: int) -> dict[Decimal, tuple[Decimal, bool, frozenset]]:
    """{subtotal: (the figure after its allowances, whether only allowances lie between, the
    allowances' magnitudes)}: in a column of totals (``page_amounts`` as
    :class:`.features.DocContext` reads them; each amount at most :data:`STEP_HEIGHTS` line
    heights under the one before, ``reach`` of them), a positive figure, an allowance under it
    ("Agency Commission", "Rabatt", "Remise") and under that the figure it leaves: the subtotal
    less one allowance, or less all of them plus what else is printed between (a sales tax, a
    charge). EN 16931's invoice total is the latter (BT-109 = BT-106 − BT-107 + BT-108, plus
    VAT): "Gross Total $1,485.00", "Agency Commission $222.75", "Net Amount Due $1,262.25" is an
    invoice of 1,262.25. The arithmetic must hold to the cent, so a figure that merely stands
    under a discount row is none."""
    out: dict[Decimal, tuple[Decimal, bool, frozenset]] = {}
    for got in page_amounts.values():
        for line, x0, x1, _ded, top, allowance in got:
            if top <= 0 or allowance or top in out:
                continue
            found = _after(dt, column_amounts(got, line, x0, x1), line, top, reach)
            if found is not None:
                out[top] = found
    return out


def _after(dt: DocText, column: list[tuple], line: int, top: Decimal,
           reach: int) -> tuple[Decimal, bool, frozenset] | None:
    """Walk down the column from ``top`` (see :func:`after_allowances`); ``column``, the
    figures printed in it, is used up as they are passed."""
    cur = dt.lines[line]
    between: list[tuple] = []
    while len(between) < reach:
        step = [b for b in column
                if 0 < cur.y0 - dt.lines[b[0]].y0 <= STEP_HEIGHTS * cur.height]
        if not step:
            return None
        nxt = min(step, key=lambda b: abs(dt.lines[b[0]].y0 - cur.y0))
        column.remove(nxt)
        taken = [abs(b[4]) for b in between if b[5]]
        if taken and not nxt[5] and nxt[4] > 0:
            others = [b[4] for b in between if not b[5]]
            gap = top - nxt[4]
            if any(abs(gap - a) <= _CENT for a in taken) or \
                    abs(gap - (sum(taken, Decimal(0)) - sum(others, Decimal(0)))) <= _CENT:
                return nxt[4], not any(others), frozenset(taken)
        between.append(nxt)
        cur = dt.lines[nxt[0]]
    return None


def _labels(dt: DocText, i: int) -> list[str]:
    """The texts a figure on line i may be labelled by: the cells left of the line on its row,
    up to the nearest cell that carries figures of its own, then the line's own text; read from
    each of those cells on ("Nachlass" "netto" "1.000,00"; "Commission" "($739.59)" after a
    paragraph of prose on the same row)."""
    row = dt.row_of(i)
    x0 = dt.lines[i].x0
    left = sorted((j for j in row if j != i and dt.lines[j].x1 <= x0 + 1.0),
                  key=lambda j: dt.lines[j].x0)
    cells: list[str] = []
    for j in reversed(left):
        if _money(dt, j):
            break
        cells.insert(0, dt.folded[j])
    cells.append(dt.folded[i])
    return [" ".join(cells[k:]).strip() for k in range(len(cells))]


def _money(dt: DocText, i: int) -> list[Decimal]:
    """The magnitudes of line i's figures that are money: printed with decimals (a whole number
    is as often a count or a reference, "Nachlass 2"), and no percentages."""
    text = normalise_text(dt.lines[i].text)
    return [abs(v) for v, _start, end, decimals in dt.amounts(i)
            if decimals and not text[end:].lstrip().startswith("%")]


def _printed(dt: DocText) -> set:
    return {abs(v) for i in range(len(dt.lines)) for v, *_ in dt.amounts(i)}
