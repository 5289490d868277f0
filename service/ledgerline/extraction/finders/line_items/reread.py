"""An item's amount that the table's totals row does not add up to, read again.

Where a row closing the table states the sum of the items above it and their amounts add up to
another figure, one of them may be misread: OCR takes a 5 for a 6 ("160" for "150.00") on a
till receipt's worn print. The figure the sum asks of each item (the stated total less the other
items) is looked for in a second, independent reading of that item's printed amount, where the
source can read the page again (a second recogniser over an OCR'd page's picture); an item takes
it only where that reading gives exactly it, and only where one item's does; and only an amount
one digit away from the figure asked is read again (a misread character, not a total of
another kind). The items of a
table that adds up, and those of a page the source cannot read again (a text layer), are never
read again: the check costs nothing where the arithmetic closes.
"""

from __future__ import annotations

from decimal import Decimal

from ...geometry import DocText
from ...values.amounts import find_amounts
from .rows import Figure

# The second reading's own confidence at which its figure may stand for the first reading's.
REREAD_SURE = 0.9


def settle_by_total(dt: DocText, items: list[dict], printed: list[Figure | None],
                    stated: Decimal | None) -> bool:
    """Give the one item whose amount the second reading says is misread the amount the
    ``stated`` total asks of it, in place; ``printed``: each item's amount as the first reading
    has it (None where its net amount is not that figure: taken off a gross amount, or made by
    the row's arithmetic). True where an item changed."""
    amounts = [it["net_amount"] for it in items]
    if stated is None or not items or None in amounts or sum(amounts) == stated:
        return False
    fixes = []
    for k, figure in enumerate(printed):
        if figure is None:
            continue
        wanted = stated - (sum(amounts) - amounts[k])
        if wanted <= 0 or not one_digit_apart(amounts[k], wanted):
            continue
        if _read_again_as(dt, figure, wanted):
            fixes.append((k, wanted))
    if len(fixes) != 1:
        return False
    k, wanted = fixes[0]
    items[k]["net_amount"] = wanted
    return True


def one_digit_apart(printed: Decimal, wanted: Decimal) -> bool:
    """Are the two amounts written with as many digits, one of them another ("160.00" for
    "150.00")? What a misread character makes of a figure; a total that is another figure
    than the items' sum (a gross total under net amounts, a sum after a discount) differs in
    more, and is never read again for."""
    a, b = f"{printed:.2f}", f"{wanted:.2f}"
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _read_again_as(dt: DocText, figure: Figure, wanted: Decimal) -> bool:
    """Does a second reading of the figure's place read ``wanted`` there, and surely?"""
    again = dt.read_again.get(dt.lines[figure.line].page)
    if again is None:
        return False
    text, sure = again.read(list(figure.box))
    if sure < REREAD_SURE:
        return False
    return any(value == wanted for value, *_ in find_amounts(text, dt.decimal))
