"""Which chosen net and VAT totals the page states: only those are given.

A finance team books the net and the VAT an invoice states: the VAT it may deduct is the VAT
amount the invoice prints, and the total without VAT is the figure the invoice gives as such.
A figure the extractor computed, or a page figure chosen for a field that no label and no
arithmetic ties to it, is not what the invoice states, and giving it as the invoice's VAT or
net total invites a wrong booking. Out of source (each source left out, `bench/ranker_loso.py`,
2026-12-04), the net and VAT totals the page does not state were all of this kind: the one
total of an invoice without VAT also taken as its net; a VAT of zero from an empty tax column,
a "Credit $0.00" row or an identifier ("00000"); a net or VAT computed from the other totals
(none of the three computed out of source was right); a subtotal before shipping or a discount,
which with the VAT does not make the total. Such a value is withheld: the field is null (the page
does not state it) and its review note says what was found instead (:func:`withheld_note`).

A net or VAT total is given when the page states it:

- a label of its own field names one of the places it is printed (on its line, in the cell to
  its left, over its column, on the line above), or it is the sum of the printed VAT rows; or
- it makes the gross total with the other one, all three printed, and the VAT is not zero: net
  + 0 = gross confirms neither (zeros fill discount columns, credit rows and empty tax columns,
  and the one total of an invoice without VAT adds up with any of them), so a VAT of zero needs
  its label, and a net beside it a label of its own. Nor do two line items' amounts that add up
  to the total confirm each other as its net and VAT: they are the lines;

and, for the net, the totals do not contradict it: with the VAT, it makes the gross total, and
without a VAT amount the gross total is not below it. A net that does not is a subtotal before
charges, discounts or other rates, not the invoice's total without VAT.
"""

from __future__ import annotations

from decimal import Decimal

from .features import FEATURE_INDEX, Row
from .joint import adds_up

NET, TAX, GROSS = "net_total", "tax_total", "gross_total"
# The places around a value whose label class may name its field (:mod:`.features`).
_NAMING_SLOTS = tuple(FEATURE_INDEX[f"{slot}_names_field"] for slot in ("left", "cell", "col",
                                                                         "above"))
_LAB_WEIGHT = FEATURE_INDEX["lab_weight"]
_LAB_OTHER = FEATURE_INDEX["lab_field_is_other"]
_SUM_ROWS = FEATURE_INDEX["sum_rows"]

# Why a value is withheld, said in its review note.
COMPUTED = "computed from the other totals, not printed"
NO_EVIDENCE = "no label names it and the totals do not confirm it"
CONTRADICTED = "with the other totals it does not make the gross total"


def names_it(row: Row) -> bool:
    """Does a label of the row's own field name this place, or is it the printed VAT rows'
    sum?"""
    x = row.x
    if x[_LAB_WEIGHT] > 0 and not x[_LAB_OTHER]:
        return True
    return any(x[k] for k in _NAMING_SLOTS) or x[_SUM_ROWS] > 0


def _labelled(value, rows: list[Row]) -> bool:
    return any(r.value == value and names_it(r) for r in rows)


def _printed(pick):
    return None if pick is None or pick.value is None or pick.derived else abs(pick.value)


def unstated(picks: dict, rows: dict[str, list[Row]],
             item_amounts: frozenset = frozenset()) -> dict[str, str]:
    """{field: why} for the chosen net and VAT totals the page does not state (see the module's
    docstring); ``picks``: the chosen totals (``value``, ``derived``, ``row``: where the value is
    printed), ``rows``: every field's feature rows, ``item_amounts``: the line items' net
    amounts (magnitudes)."""
    n, t, g = (_printed(picks.get(f)) for f in (NET, TAX, GROSS))
    lines = n in item_amounts and t in item_amounts
    out = {}
    tax = picks.get(TAX)
    if tax is not None and tax.value is not None:
        confirmed = None not in (n, t, g) and t != 0 and adds_up(n, t, g) and not lines
        why = _unstated(tax, confirmed, rows.get(TAX, []))
        if why:
            out[TAX] = why
            t = None
    net = picks.get(NET)
    if net is not None and net.value is not None:
        confirmed = None not in (n, t, g) and t != 0 and adds_up(n, t, g) and not lines
        why = _unstated(net, confirmed, rows.get(NET, []))
        if not why and g is not None and not _makes_gross(n, t, g):
            why = CONTRADICTED
        if why:
            out[NET] = why
    return out


def _unstated(pick, confirmed: bool, rows: list[Row]) -> str:
    if pick.derived:
        return COMPUTED
    if not (confirmed or _labelled(pick.value, rows)):
        return NO_EVIDENCE
    return ""


def states_no_vat(picks: dict, rows: dict[str, list[Row]], vat_rates: frozenset) -> bool:
    """Does the page state one total and no VAT at all? Its gross total is printed, no VAT
    total is chosen and no label names any figure as one, no percentage is printed (a VAT rate
    printed without its amount leaves the VAT open), and no net total is given other than the
    gross total itself, withheld. Such an invoice (a small business's, a US invoice without
    sales tax, a receipt) states no net and no VAT, and both are rightly null: nothing is left
    for net + VAT = gross to check. ``picks``: the chosen totals, withheld ones with what was
    found (``found``)."""
    net, tax, gross = (picks.get(f) for f in (NET, TAX, GROSS))
    if gross is None or gross.value is None or gross.derived or vat_rates:
        return False
    if tax is None or tax.value is not None or any(names_it(r) for r in rows.get(TAX, [])):
        return False
    return net is None or (net.value is None and net.found in (None, gross.value))


def same_place(a: Row | None, b: Row | None) -> bool:
    """Are two rows (of one field or two) the same printed value?"""
    if a is None or b is None:
        return False
    places = {(c.line, tuple(c.bbox or ())) for c in a.cands}
    return any((c.line, tuple(c.bbox or ())) in places for c in b.cands)


def _makes_gross(n: Decimal, t: Decimal | None, g: Decimal) -> bool:
    """Can the net be the total without VAT of this gross total? With the VAT printed, they add
    up; without it, the gross is not below the net (a VAT may be printed as a rate alone)."""
    return g >= n if t is None else adds_up(n, t, g)


def withheld_note(value, why: str) -> str:
    """The review note of a withheld value: what was found, and why it is not given."""
    return f"the page does not state it ({value} was found, but {why})"
