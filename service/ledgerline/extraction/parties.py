"""Seller and buyer names from the text layer.

Evidence, strongest first: a party label ("Seller:", "Rechnungsempfänger", "Bill to", ...) with
the name beside or under it; a company name with a legal form (GmbH, B.V., SARL, Inc., ...) in
the letterhead or the footer; the line next to the seller's VAT id.  A name inside the buyer's
block is never taken for the seller.
"""

from __future__ import annotations

import re

from .labels import BUYER_CONTEXT, SELLER_CONTEXT
from .layout import DocText
from .text_layer import Cand

_LEGAL_FORM = re.compile(
    r"(?:\b(?:gmbh|ag|kg|ohg|ug|gbr|e\.\s?k\.|mbh|se|sarl|s\.a\.r\.l\.|sas|sasu|eurl|sa|s\.a\.|s\.l\.|sl|"
    r"s\.a\.u\.|b\.v\.|bv|n\.v\.|nv|v\.o\.f\.|vof|s\.r\.l\.|srl|s\.p\.a\.|spa|s\.n\.c\.|snc|inc\.?|llc|"
    r"ltd\.?|limited|plc|llp|corp\.?|corporation|co\.|pvt\.?\s+ltd\.?|gmbh\s*&\s*co\.?\s*kg)(?=$|[\s,.)]))",
)
_NOT_NAME = re.compile(
    r"\b(?:invoice|rechnung|facture|factura|fattura|factuur|gutschrift|avoir|credit note|page|seite|"
    r"date|datum|tel|fax|phone|e-?mail|www\.|http|iban|bic|swift|ust|vat|tva|btw|steuer|tax|"
    r"strasse|straße|street|rue|calle|via|straat|postfach|amtsgericht|registergericht|handelsregister|"
    r"geschaftsfuhrer|managing|directors?|capital|capital social|siret|siren|rcs|hrb|kvk|"
    r"bank|konto|account|total|summe|betrag|amount|stylesheet|seller|buyer|verkaufer|kaufer)\b"
)
_PARTY_SPLIT = re.compile(r"\s+[-–|·•]\s+|\s*[|·•]\s*|,\s+(?=\d)|\s{3,}")
_SELLER_LABEL = re.compile(
    r"^(?:seller|vendor|supplier|from|sold\s+by|service\s+provider|issued\s+by|verkaufer|lieferant|"
    r"leverancier|verkoper|fournisseur|vendeur|emetteur|proveedor|vendedor|emisor|fornitore|"
    r"venditore|cedente(?:\s+prestatore)?|rechnungssteller|absender)\b[^a-z0-9]*"
)
_BUYER_LABEL = re.compile(
    r"^(?:bill(?:ed)?\s+to|invoice\s+to|sold\s+to|customer|client|buyer|recipient|kunde|kaufer"
    r"(?:/leistungsempfanger)?|leistungsempfanger|rechnungsempfanger|rechnungsadresse|empfanger|"
    r"factuuradres|klant|afnemer|destinataire|facture\s+a|facturer\s+a|adresse\s+de\s+facturation|"
    r"cliente|destinatario|acquirente|cessionario(?:\s+committente)?|comprador|facturar\s+a)\b[^a-z0-9]*"
)


def _clean_name(text: str) -> str | None:
    t = text.strip(" ,;:-–|·•\t")
    t = re.sub(r"\s+", " ", t)
    if len(t) < 2 or len(t) > 80 or not re.search(r"[A-Za-zÀ-ÿ]{2,}", t):
        return None
    if sum(c.isdigit() for c in t) > len(t) / 3:
        return None
    return t


def _name_part(dt: DocText, i: int) -> tuple[str, int, int] | None:
    """The company-name part of a line that may also hold an address (split on separators)."""
    text = dt.lines[i].text
    pos = 0
    for part in _PARTY_SPLIT.split(text):
        start = text.find(part, pos)
        pos = start + len(part)
        name = _clean_name(part)
        if name:
            return name, start, start + len(part)
    return None


def _after_label(dt: DocText, i: int, rx: re.Pattern) -> tuple[int, int, int] | None:
    """Where the name following a party label sits: (line, start, end)."""
    folded = dt.folded[i]
    m = rx.match(folded)
    if not m:
        return None
    rest = dt.lines[i].text[m.end():]
    name = _clean_name(rest)
    if name and not _NOT_NAME.search(name.lower()):
        s = dt.lines[i].text.find(name, m.end())
        return i, s, s + len(name)
    for j in dt.below(i, max_lines=2.2)[:3]:
        if _NOT_NAME.search(dt.folded[j]) and not _LEGAL_FORM.search(dt.folded[j]):
            continue
        got = _name_part(dt, j)
        if got:
            return j, got[1], got[2]
    return None


def _cand(dt: DocText, field: str, where, score: float) -> Cand:
    j, s, e = where
    ln = dt.lines[j]
    name = _clean_name(ln.text[s:e]) or ln.text[s:e]
    return Cand(field, name, score, ln.text[s:e], ln.page, ln.span_bbox(s, e), j)


def extract_parties(dt: DocText, seller_vat: Cand | None) -> dict[str, Cand | None]:
    seller: list[Cand] = []
    buyer: list[Cand] = []
    buyer_lines: set[int] = set()
    for i, folded in enumerate(dt.folded):
        if len(folded) > 60:
            continue
        where = _after_label(dt, i, _BUYER_LABEL)
        if where:
            buyer.append(_cand(dt, "buyer_name", where, 0.8))
            # the buyer's block: the next few lines under the label
            buyer_lines.update(dt.below(i, max_lines=8)[:6])
            buyer_lines.add(where[0])
            continue
        where = _after_label(dt, i, _SELLER_LABEL)
        if where:
            seller.append(_cand(dt, "seller_name", where, 0.85))
    # legal-form names in the letterhead / footer
    counts: dict[str, int] = {}
    for i, folded in enumerate(dt.folded):
        if i in buyer_lines or not _LEGAL_FORM.search(folded):
            continue
        got = _name_part(dt, i)
        if not got or not _LEGAL_FORM.search(got[0].lower()):
            continue
        if _NOT_NAME.search(got[0].lower()) or BUYER_CONTEXT.search(folded[: got[1]]):
            continue
        ry = dt.relative_y(i)
        zone = 0.7 if (ry > 0.72 or ry < 0.2) else 0.5
        if dt.lines[i].page != 1:
            zone -= 0.1
        counts[got[0].lower()] = counts.get(got[0].lower(), 0) + 1
        seller.append(_cand(dt, "seller_name", (i, got[1], got[2]), zone))
    for c in seller:
        n = counts.get(str(c.value).lower(), 0)
        if n > 1:
            c.score = min(0.95, c.score + 0.08 * (n - 1))
    # a seller name is never the buyer's name
    buyer_names = {str(c.value).lower() for c in buyer}
    seller = [c for c in seller if str(c.value).lower() not in buyer_names or c.score >= 0.85]
    best_seller = max(seller, key=lambda c: (c.score, -c.page, -(c.line or 0))) if seller else None
    best_buyer = max(buyer, key=lambda c: c.score) if buyer else None
    _ = SELLER_CONTEXT, seller_vat
    return {"seller_name": best_seller, "buyer_name": best_buyer}
