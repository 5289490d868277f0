"""VAT identifiers and IBANs on the page.

VAT ids are checked with python-stdnum (the VAT number module of every country it knows) and
assigned to buyer or seller by their label or the party block they sit in; IBANs must pass their
checksum.
"""

from __future__ import annotations

import re

import stdnum
from stdnum import iban as _iban

from ..candidates import Candidate, Evidence
from ..geometry import DocText
from ..vocabulary import VOCABULARY as V

_VAT_RE = re.compile(r"\b((?:[A-Z]{2}|CHE)[\s.\-]?(?:[0-9A-Z][\s.\-]?){7,13}[0-9A-Z])\b")
_IBAN_RE = re.compile(r"\b([A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30})\b")
_VAT_LABEL = V.labels["seller_vat_id"]
# VAT-number prefixes that are not the country's ISO code (Greece's EL, Northern Ireland's XI)
_PREFIX_COUNTRY = {"EL": "gr", "XI": "gb"}


def _vat_module(country: str):
    try:
        return stdnum.get_cc_module(country.lower(), "vat")
    except ImportError:
        return None


def vat_checksum(value: str, country: str | None = None) -> bool | None:
    """Whether ``value`` is a valid VAT number: by its prefix's country, else by ``country``
    (an id given without its prefix); None where python-stdnum knows no VAT number there."""
    compact = re.sub(r"[\s.\-/,]", "", str(value)).upper()
    prefix = compact[:2]
    module = _vat_module(_PREFIX_COUNTRY.get(prefix, prefix)) if prefix.isalpha() else None
    if module is None and country:
        module = _vat_module(country)
    if module is None:
        return None
    try:
        return bool(module.is_valid(compact))
    except Exception:  # noqa: BLE001 - stdnum raises only its own errors, but stay defensive
        return False


def _vat_label_near(dt: DocText, i: int, start: int) -> bool:
    before = dt.folded[i][:start]
    if any(label.pattern.search(before) for label in _VAT_LABEL):
        return True
    row = dt.row_of(i)
    k = row.index(i)
    if k > 0 and any(label.pattern.search(dt.folded[row[k - 1]]) for label in _VAT_LABEL):
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
        if V.buyer_label.match(f):
            return "buyer"
        if V.seller_label.match(f):
            return "seller"
    return None


def _party_context(dt: DocText, i: int, start: int) -> tuple[str | None, str]:
    """Whose VAT id the one at line i, column start is, and what says so: the words before it
    ("Your VAT id", "Unsere USt-IdNr."), else the party label heading its block."""
    ctx = dt.folded[i][:start]
    if not ctx.strip(" :"):
        ctx = dt.context_before(i)
    if V.buyer_context.search(ctx):
        return "buyer", "context"
    if V.seller_context.search(ctx):
        return "seller", "context"
    return _party_of(dt, i), "block"


def vat_candidates(dt: DocText) -> tuple[list[Candidate], list[Candidate]]:
    """(seller, buyer) VAT id candidates: checksum-valid ones anywhere, others beside a label.

    ``evidence.facts``: ``checksum_valid``, ``labelled`` (a VAT-id label before it on its line or
    in the cell to its left) and ``party_by`` ("context" or "block")."""
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
            valid = vat_checksum(compact) is True
            labelled = _vat_label_near(dt, i, m.start())
            if not valid and not labelled:
                continue
            if _IBAN_RE.fullmatch(compact) and _iban.is_valid(compact):
                continue
            if not valid and not re.fullmatch(r"[A-Z]{2}[0-9A-Z]{8,12}", compact):
                continue
            party, why = _party_context(dt, i, m.start())
            is_buyer = party == "buyer"
            evidence = Evidence(
                "vat_id",
                relative_y=dt.relative_y(i),
                facts={"checksum_valid": valid, "labelled": labelled, "party_by": why},
            )
            c = Candidate(
                "buyer_vat_id" if is_buyer else "seller_vat_id",
                compact,
                raw,
                ln.page,
                ln.span_bbox(m.start(), m.end()),
                i,
                evidence,
            )
            (buyer if is_buyer else seller).append(c)
    return seller, buyer


def iban_candidates(dt: DocText) -> list[Candidate]:
    out = []
    for i, ln in enumerate(dt.lines):
        for m in _IBAN_RE.finditer(ln.text):
            compact = m.group(1).replace(" ", "")
            # the regex may run into the next word; shrink until the checksum holds
            for end in range(len(compact), 14, -1):
                if _iban.is_valid(compact[:end]):
                    out.append(
                        Candidate(
                            "iban",
                            compact[:end],
                            m.group(1),
                            ln.page,
                            ln.span_bbox(m.start(), m.end()),
                            i,
                            Evidence("iban", relative_y=dt.relative_y(i)),
                        )
                    )
                    break
    return out
