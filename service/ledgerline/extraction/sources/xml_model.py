"""What every e-invoice reader (``cii_xml``, ``ubl_xml``, ``ksef_xml``) builds, and the helpers
they read elements with: elements are addressed by local name, so namespace prefixes and minor
namespace drift do not matter, and every number is read as xs:decimal or not at all."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation


@dataclass
class XmlInvoice:
    syntax: str  # "CII", "CII-ZUGFeRD1", "UBL", "KSeF"
    profile: str | None = None  # customisation / guideline id; KSeF: "FA (3)"
    type_code: str | None = None
    credit_note_root: bool = False  # a UBL CreditNote (its type code may say nothing more)
    fields: dict = field(default_factory=dict)  # name -> str | Decimal | None (raw XML text kept)
    raw: dict = field(default_factory=dict)  # name -> text as in the XML
    line_items: list = field(default_factory=list)
    tax_breakdown: list = field(default_factory=list)  # {basis, amount, rate, category}
    totals: dict = field(default_factory=dict)  # line_total, charge_total, allowance_total, prepaid
    warnings: list = field(default_factory=list)  # what was read leniently
    # the country of a VAT id the XML gives without its prefix (KSeF: a Polish NIP)
    vat_countries: dict = field(default_factory=dict)
    root: object = field(default=None, repr=False)  # the parsed document, for the official rules


def local_name(el) -> str:
    """The element's name without its namespace; "" for comments and processing instructions."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def children(el, name: str):
    """The element's children of that local name (none of a missing element)."""
    if el is None:
        return []
    return [c for c in el if local_name(c) == name]


def find_all(el, path: str) -> list:
    """All elements along a '/'-separated path of local names."""
    nodes = [el] if el is not None else []
    for part in path.split("/"):
        nodes = [c for n in nodes for c in children(n, part)]
    return nodes


def find_one(el, path: str):
    """The first element along the path, or None."""
    found = find_all(el, path)
    return found[0] if found else None


def text_at(el, path: str | None = None) -> str | None:
    """The text of the element (or of the first one along the path), whitespace collapsed;
    None when it is missing or empty."""
    node = find_one(el, path) if path else el
    if node is None or node.text is None:
        return None
    t = " ".join(node.text.split())
    return t or None


# xs:decimal, the type of every amount, quantity and rate in UBL, CII and KSeF: ASCII digits,
# an optional sign and point, nothing else. Decimal() alone also reads "1e3", "1_000" and other
# scripts' digits ("١٢٠"), which the official rules refuse; such a value is not a number here.
XS_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def xs_decimal(text: str | None) -> Decimal | None:
    """The number an xs:decimal text writes, or None for anything else."""
    text = text.strip(" \t\r\n") if text is not None else ""
    if not XS_DECIMAL.fullmatch(text):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite() or (value != 0 and not -12 <= value.adjusted() <= 18):
        return None  # NaN, infinities and absurd magnitudes are not amounts
    return value


def amount_in(els, currency: str | None) -> tuple[Decimal | None, str | None]:
    """The amount among repeated elements whose currencyID is the invoice currency."""
    if not els:
        return None, None
    chosen = els[0]
    if currency and len(els) > 1:
        for e in els:
            if e.get("currencyID") == currency:
                chosen = e
                break
    t = text_at(chosen)
    return xs_decimal(t), t
