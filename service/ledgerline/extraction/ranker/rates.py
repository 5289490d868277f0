"""Whether a net and a VAT total agree with a VAT rate the page prints.

net + tax = gross says little on its own when the three figures are the wrong ones: a subtotal,
its discount and the figure after it add up as well as a net, its VAT and the gross do. The VAT
is also the net at the rate the invoice states ("VAT 19 %", "Tax rate 15%"): a chosen net and
VAT that are, are the pair the page states. :func:`rate_agreement` says so for the confidence
(:mod:`.confidence`): 1 where the VAT is the net at a printed rate, else 0. Not the other way
round: a percentage on an invoice is as often an interest rate, a discount or a share, and the
rate itself may be printed without its sign in a VAT column ("ALV %" over "24"), so no printed
rate fitting says nothing against the pair (out of source, four right nets of 40 had none).
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..geometry import DocText
from ..text import normalise_text

# A percentage of one or two digits ("19 %", "7,5%", "15.00%"): 100 % and more is no VAT rate.
_PERCENT = re.compile(r"(?<![\d.,])(\d{1,2}(?:[.,]\d{1,3})?)\s*%")
# The VAT may miss the net times the rate by rounding: per line, so by a cent or this share.
CENT = Decimal("0.01")
ROUNDING_SHARE = Decimal("0.005")


def printed_rates(dt: DocText) -> frozenset[Decimal]:
    """Every percentage under 100 the page prints, as a number (19 for "19 %")."""
    return frozenset().union(*(_line_rates(ln.text) for ln in dt.lines))


def _line_rates(text: str) -> set[Decimal]:
    return {Decimal(m.group(1).replace(",", ".")) for m in _PERCENT.finditer(normalise_text(text))}


def rate_agreement(net: Decimal | None, tax: Decimal | None, rates: frozenset) -> float:
    """1: the VAT is the net at one of ``rates``, to the cent or half a percent of the VAT
    (rounded per line); 0: not, or nothing to check (no net, a VAT of zero: exempt or reverse
    charge whatever rate the page names)."""
    if net is None or tax is None or net == 0 or tax == 0:
        return 0.0
    net, tax = abs(net), abs(tax)
    slack = max(CENT, ROUNDING_SHARE * tax)
    return 1.0 if any(abs(net * r / 100 - tax) <= slack for r in rates) else 0.0


def breakdown_rows(dt: DocText) -> list[tuple[Decimal, Decimal, Decimal]]:
    """(rate, net, VAT) of every row of the page that prints one VAT rate and, beside it, a net
    and a VAT at that rate: a row of a VAT breakdown ("22 %  2.597,35  571,42  3.168,77")."""
    out, seen = [], set()
    for i, ln in enumerate(dt.lines):
        rates = _line_rates(ln.text)
        if len(rates) != 1:
            continue
        row = tuple(dt.row_of(i))
        if row in seen:
            continue
        seen.add(row)
        rate = next(iter(rates))
        amounts = [abs(a[0]) for j in row for a in dt.amounts(j) if a[3]]  # with decimals
        for net in amounts:
            for tax in amounts:
                if tax < net and rate_agreement(net, tax, frozenset({rate})):
                    out.append((rate, net, tax))
    return out


def one_rate_of_several(net: Decimal | None, tax: Decimal | None, dt: DocText) -> bool:
    """Are the net and VAT one row of a VAT breakdown that prints other rates too? Then they are
    that rate's share, not the invoice's totals, however well they add up: the totals are the
    rows' sums (a photo that lost the totals row had its 22 % row taken for them)."""
    if net is None or tax is None:
        return False
    rows = breakdown_rows(dt)
    mine = {rate for rate, n, t in rows if n == abs(net) and t == abs(tax)}
    return bool(mine) and any(rate not in mine for rate, _n, _t in rows)
