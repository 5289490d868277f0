"""Currency, VAT identifiers and IBANs on the text layer.

Currency fails closed: a code, a symbol or a word must be printed; a bare '$' becomes USD only
with a review reason.  VAT ids are checked with python-stdnum and assigned to buyer or seller by
their label or the party block they sit in.
"""

from __future__ import annotations

import re

from stdnum import iban as _iban
from stdnum.eu import vat as _vat

from .candidates import Cand
from .labels import BUYER_CONTEXT, BUYER_LABEL, LABELS, SELLER_LABEL
from .layout import DocText

CURRENCIES = {
    "EUR",
    "USD",
    "GBP",
    "CHF",
    "INR",
    "JPY",
    "CNY",
    "CAD",
    "AUD",
    "NZD",
    "SEK",
    "NOK",
    "DKK",
    "PLN",
    "CZK",
    "HUF",
    "RON",
    "BGN",
    "HRK",
    "ISK",
    "TRY",
    "RUB",
    "UAH",
    "BRL",
    "MXN",
    "ARS",
    "CLP",
    "COP",
    "ZAR",
    "SGD",
    "HKD",
    "KRW",
    "TWD",
    "THB",
    "MYR",
    "IDR",
    "PHP",
    "VND",
    "AED",
    "SAR",
    "ILS",
    "EGP",
    "MAD",
    "TND",
    "XOF",
    "XAF",
    "NGN",
    "KES",
    "PKR",
    "BDT",
    "LKR",
    "QAR",
}
ISO_CODE = re.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])")
_SYMBOLS = {"€": "EUR", "£": "GBP", "₹": "INR", "₺": "TRY", "₽": "RUB", "₩": "KRW", "zł": "PLN"}
_WORDS = [
    (re.compile(r"\beuros?\b"), "EUR"),
    (re.compile(r"\bus\s*dollars?\b|\bu\.s\.\s*dollars?\b|\bus\$"), "USD"),
    (re.compile(r"\brupees?\b|\brs\.?\s?\d|\binr\b"), "INR"),
    (re.compile(r"\bpounds?\s+sterling\b"), "GBP"),
    (re.compile(r"\bschweizer\s+franken\b|\bfrancs?\s+suisses?\b|\bsfr\.?\b"), "CHF"),
]


def currency_candidate(dt: DocText, labelled: list[Cand]) -> tuple[Cand | None, str | None]:
    """(candidate, review reason).  Never guesses: a bare '$' is USD only with a reason."""
    if labelled:
        best = max(labelled, key=lambda c: c.score)
        return Cand(
            "currency",
            best.value,
            min(0.97, 0.85 + 0.1 * best.score),
            best.raw,
            best.page,
            best.bbox,
            best.line,
        ), None
    counts: dict[str, int] = {}
    first: dict[str, tuple[int, int, int]] = {}
    for i, ln in enumerate(dt.lines):
        t = ln.text
        for m in ISO_CODE.finditer(t):
            code = m.group(0)
            if code in CURRENCIES and (dt.amounts(i) or len(t) < 40):
                counts[code] = counts.get(code, 0) + 2
                first.setdefault(code, (i, m.start(), m.end()))
        for sym, code in _SYMBOLS.items():
            k = t.find(sym)
            if k >= 0:
                counts[code] = counts.get(code, 0) + t.count(sym)
                first.setdefault(code, (i, k, k + len(sym)))
    for rx, code in _WORDS:
        m = rx.search(dt.full_folded)
        if m:
            counts[code] = counts.get(code, 0) + 1
    if counts:
        code = max(counts, key=lambda c: counts[c])
        total = sum(counts.values())
        conf = 0.9 if counts[code] == total else 0.6 + 0.3 * counts[code] / total
        if code in first:
            i, s, e = first[code]
            ln = dt.lines[i]
            return Cand("currency", code, conf, ln.text[s:e], ln.page, ln.span_bbox(s, e), i), None
        return Cand("currency", code, conf * 0.9, None, None, None), None
    k = dt.full_text.find("$")
    if k >= 0:
        for i, ln in enumerate(dt.lines):
            s = ln.text.find("$")
            if s >= 0:
                return (
                    Cand("currency", "USD", 0.5, "$", ln.page, ln.span_bbox(s, s + 1), i),
                    "currency: only a '$' sign is printed; USD assumed",
                )
    return None, "currency: no currency printed on the invoice"


# --------------------------------------------------------------------------- identifiers
_VAT_RE = re.compile(r"\b((?:[A-Z]{2}|CHE)[\s.\-]?(?:[0-9A-Z][\s.\-]?){7,13}[0-9A-Z])\b")
_IBAN_RE = re.compile(r"\b([A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30})\b")
_VAT_LABEL = LABELS["seller_vat_id"]


def _vat_label_near(dt: DocText, i: int, start: int) -> bool:
    before = dt.folded[i][:start]
    if any(e[0].search(before) for e in _VAT_LABEL):
        return True
    row = dt.row_of(i)
    k = row.index(i)
    if k > 0 and any(e[0].search(dt.folded[row[k - 1]]) for e in _VAT_LABEL):
        return True
    return False


def _party_of(dt: DocText, i: int) -> str | None:
    """'buyer' or 'seller' when line i sits in a block headed by a party label above it."""
    ln = dt.lines[i]
    x0 = min(dt.lines[k].x0 for k in dt.row_of(i) if dt.lines[k].x0 <= ln.x0)  # the label column
    above = [
        j
        for j in dt.by_page[ln.page]
        if dt.lines[j].y0 >= ln.y1 - 1
        and abs(dt.lines[j].x0 - x0) < 40
        and dt.lines[j].y0 - ln.y1 < 16 * ln.height
    ]
    above.sort(key=lambda j: dt.lines[j].y0)
    for j in above:
        f = dt.folded[j]
        if BUYER_LABEL.match(f):
            return "buyer"
        if SELLER_LABEL.match(f):
            return "seller"
    return None


def vat_candidates(dt: DocText) -> tuple[list[Cand], list[Cand]]:
    """(seller, buyer) VAT id candidates."""
    seller, buyer = [], []
    for i, ln in enumerate(dt.lines):
        t = ln.text
        if not re.search(r"[A-Z]{2}", t):
            continue
        for m in _VAT_RE.finditer(t):
            raw = m.group(1)
            compact = re.sub(r"[\s.\-]", "", raw).upper()
            if compact.startswith("CHE"):
                compact = "CHE" + compact[3:]
            if not any(c.isdigit() for c in compact[2:4]) and not compact.startswith("CHE"):
                continue
            valid = False
            try:
                valid = _vat.is_valid(compact)
            except Exception:  # stdnum raises only its own errors, but stay defensive
                valid = False
            labelled = _vat_label_near(dt, i, m.start())
            if not valid and not labelled:
                continue
            if _IBAN_RE.fullmatch(compact) and _iban.is_valid(compact):
                continue
            if not valid and not re.fullmatch(r"[A-Z]{2}[0-9A-Z]{8,12}", compact):
                continue
            score = (0.95 if valid else 0.6) if labelled else 0.75
            ctx = dt.folded[i][: m.start()]
            if not ctx.strip(" :"):
                ctx = dt.context_before(i)
            if BUYER_CONTEXT.search(ctx):
                is_buyer = True
            elif re.search(r"\b(?:seller|supplier|vendor|our|unsere?|notre|nuestro|onze)\b", ctx):
                is_buyer = False
            else:
                is_buyer = _party_of(dt, i) == "buyer"
            c = Cand(
                "buyer_vat_id" if is_buyer else "seller_vat_id",
                compact,
                score,
                raw,
                ln.page,
                ln.span_bbox(m.start(), m.end()),
                i,
            )
            c.derived = not valid  # reused as "checksum failed"
            (buyer if is_buyer else seller).append(c)
    return seller, buyer


def iban_candidates(dt: DocText) -> list[Cand]:
    out = []
    for i, ln in enumerate(dt.lines):
        for m in _IBAN_RE.finditer(ln.text):
            compact = m.group(1).replace(" ", "")
            # the regex may run into the next word; shrink until the checksum holds
            for end in range(len(compact), 14, -1):
                if _iban.is_valid(compact[:end]):
                    out.append(
                        Cand(
                            "iban",
                            compact[:end],
                            0.95,
                            m.group(1),
                            ln.page,
                            ln.span_bbox(m.start(), m.end()),
                            i,
                        )
                    )
                    break
    return out
