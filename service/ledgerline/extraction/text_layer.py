"""Field finding on the text layer: labels, their neighbours, typed values and confidence.

Every candidate value carries the label weight times a position factor (on the label's own line,
to its right on the same row, or just below it).  Amounts are then chosen jointly so that
net + tax = gross holds where the page allows it.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from decimal import Decimal
from itertools import product

from stdnum import iban as _iban
from stdnum.eu import vat as _vat

from .labels import BUYER_CONTEXT, BUYER_LABEL, CREDIT_NOTE_TITLES, LABELS, SELLER_LABEL, match_labels
from .layout import DocText
from .numbers import find_dates

AMOUNT_FIELDS = ("net_total", "tax_total", "gross_total", "amount_due")
DATE_FIELDS = ("issue_date", "due_date")
ID_FIELDS = ("invoice_number", "purchase_order")
LABEL_FIELDS = ID_FIELDS + DATE_FIELDS + AMOUNT_FIELDS + ("currency",)

POS_SAME, POS_RIGHT, POS_BELOW = 1.0, 0.95, 0.8
TOLERANCE = Decimal("0.02")


@dataclass
class Cand:
    field: str
    value: object
    score: float
    raw: str | None
    page: int | None
    bbox: list | None
    line: int | None = None
    derived: bool = False

    def out_value(self):
        v = self.value
        if isinstance(v, _dt.date):
            return v.isoformat()
        return v


# --------------------------------------------------------------------------- value readers
_ID_TOKEN = re.compile(r"[A-Za-z0-9#][A-Za-z0-9/\-_.#:]*[A-Za-z0-9]|[0-9]{2,}")
_ID_LEAD = re.compile(r"^[\s:#.\-–]*(?:(?:n[°º]|no\.?|nr\.?|nummer|number|num(?:ero)?\.?)\s*[:.]?\s*)?[:#\s]*",
                      re.IGNORECASE)
_NOT_ID_WORDS = {"page", "seite", "datum", "date", "vom", "du", "del", "van", "of", "from"}


_NR_IN_TEXT = re.compile(r"(?:^|(?<=[\s(),]))(?:n\s?[°º]|no\.?|nr\.?|nummer|number|numero|num\.|#)\s*[:.]?\s*",
                         re.IGNORECASE)


def _id_token(text: str, start: int) -> tuple[str, int, int] | None:
    m = _ID_TOKEN.match(text, start)
    if not m:
        return None
    tok = m.group(0).rstrip(".:")
    if not any(c.isdigit() for c in tok) or len(tok) > 40 or len(tok) < 2:
        return None
    if tok.lower() in _NOT_ID_WORDS:
        return None
    for _d, ds, de in find_dates(tok):
        if de - ds >= len(tok) - 1:  # the whole token is a date
            return None
    end = m.start() + len(tok)
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})*[.,]\d{2}", tok) or re.match(r"[.,]\d", text[end:end + 2]):
        return None  # an amount, not an identifier
    return tok, m.start(), end


def read_id(text: str) -> tuple[str, int, int] | None:
    """An identifier right after a label: 'No. 4711', ': RE-2024/12', '(380) Nr. 471102'."""
    lead = _ID_LEAD.match(text)
    got = _id_token(text, lead.end() if lead else 0)
    if got:
        return got
    for m in _NR_IN_TEXT.finditer(text, 0, min(len(text), 40)):
        got = _id_token(text, m.end())
        if got:
            return got
    return None


def read_amount(dt: DocText, i: int, lo: int, hi: int):
    """Last amount on line i inside [lo, hi) that is not a percentage: (value, start, end, strong)."""
    text = dt.lines[i].text
    best = None
    for value, s, e, has_dec in dt.amounts(i):
        if s < lo or e > hi:
            continue
        after = text[e:e + 3].lstrip()
        if after.startswith("%"):
            continue
        if not has_dec and not re.search(r"[€$£¥₹]|\b[A-Z]{3}\b|\bRs\b", text[max(lo, s - 5):e + 5]):
            # bare integers are weak; accept only when nothing else is on the segment
            if re.search(r"[A-Za-z]{2,}", text[e:hi]) or len(text[lo:hi].strip()) > 12:
                continue
        best = (value, s, e, has_dec)
    return best


def read_date(dt: DocText, text: str):
    found = find_dates(text, month_first=dt.month_first)
    return found[0] if found else None


# --------------------------------------------------------------------------- label hits
_EXCL = re.compile(r"(?:excl|exkl|excluding|exclusive|ohne|zzgl|zuzgl|zuzuglich|plus|before|without|"
                   r"hors|sin|senza|ex|w/o)\.?\s*\(?\s*$")
_INCL = re.compile(r"(?:incl|inkl|including|inclusive|with|mit|con|avec|incluido|compris|inclusief)\.?\s*\(?\s*$")


def _resolve(hits, folded: str = ""):
    """Clean up the label hits of one line.

    Hits inside a longer hit go; "excl. VAT" / "inkl. USt." qualify the total before them (net /
    gross) instead of being a VAT label; adjacent amount labels ("Rechnungssumme Netto") merge
    into the later, more specific one.
    """
    hits = sorted(hits, key=lambda h: (h.start, -(h.end - h.start)))
    kept = []
    for h in hits:
        if any(k.start <= h.start and h.end <= k.end and (k.end - k.start) > (h.end - h.start)
               for k in hits):
            continue
        if any(k.start == h.start and k.end == h.end and k.field == h.field for k in kept):
            continue
        kept.append(h)
    if not folded or len(kept) < 2:
        return kept
    out = []
    for h in kept:
        prev = out[-1] if out else None
        if h.field == "tax_total" and prev is not None and prev.field in AMOUNT_FIELDS:
            pre = folded[max(prev.end, h.start - 14):h.start]
            if _EXCL.search(pre) or _INCL.search(pre):
                prev.field = "net_total" if _EXCL.search(pre) else "gross_total"
                prev.weight = max(prev.weight, 0.9)
                prev.end = h.end
                tail = re.match(r"[.)\s]*\)", folded[h.end:])
                if tail:
                    prev.end = h.end + tail.end()
                continue
        if (prev is not None and prev.field == "gross_total" and h.field in AMOUNT_FIELDS
                and h.start - prev.end <= 3 and not folded[prev.end:h.start].strip(" -")):
            prev.field, prev.end = h.field, h.end
            prev.weight = max(prev.weight, h.weight)
            continue
        out.append(h)
    return out


def _segment(hits, h, length):
    nxt = [k.start for k in hits if k.start >= h.end and k is not h]
    return h.end, (min(nxt) if nxt else length)


def _value_from(dt: DocText, field: str, i: int, lo: int, hi: int):
    """(value, raw, start, end, strength) for field on line i in [lo, hi) or None."""
    text = dt.lines[i].text
    seg = text[lo:hi]
    if field in AMOUNT_FIELDS:
        got = read_amount(dt, i, lo, hi)
        if got:
            v, s, e, strong = got
            return v, text[s:e].strip(), s, e, 1.0 if strong else 0.7
    elif field in DATE_FIELDS:
        got = read_date(dt, seg)
        if got:
            d, s, e = got
            return d, seg[s:e], lo + s, lo + e, 1.0
    elif field in ID_FIELDS:
        got = read_id(seg)
        if got:
            tok, s, e = got
            return tok, tok, lo + s, lo + e, 1.0
    elif field == "currency":
        m = _ISO_RE.search(seg)
        if m and m.group(0) in CURRENCIES:
            return m.group(0), m.group(0), lo + m.start(), lo + m.end(), 1.0
    return None


def _right_values(dt: DocText, field: str, i: int) -> list[tuple[int, tuple]]:
    """Values for field in the cells to the right of line i, up to the next label cell."""
    out = []
    for j in dt.right_of(i)[:6]:
        hi_j = len(dt.folded[j])
        nh = dt.labels(j, LABEL_FIELDS, _plain_hits)
        if nh:
            first = min(nh, key=lambda k: k.start)
            if first.start == 0:
                break  # the next cell is another label
            hi_j = first.start
        got = _value_from(dt, field, j, 0, hi_j)
        if got:
            out.append((j, got))
            if field not in AMOUNT_FIELDS:
                break
        if hi_j < len(dt.folded[j]):
            break
    return out


def _plain_hits(dt: DocText, i: int, fields: tuple) -> list:
    """Label hits of line i without context conditions from neighbouring lines."""
    return _resolve(match_labels(dt.folded[i], fields), dt.folded[i])


def _column_header_field(dt: DocText, j: int) -> str | None:
    """The amount field named by the column header above cell j, if it sits under one."""
    ln = dt.lines[j]
    best, best_gap = None, 14 * ln.height
    for k in dt.by_page[ln.page]:
        other = dt.lines[k]
        gap = other.y0 - ln.y1
        if k == j or gap < 0 or gap > best_gap or len(dt.folded[k]) > 30 or dt.amounts(k):
            continue
        if other.x1 < ln.x0 - 8 or other.x0 > ln.x1 + 8:
            continue
        best, best_gap = k, gap
    if best is None:
        return None
    hits = dt.labels(best, AMOUNT_FIELDS, _plain_hits)
    hits = [h for h in hits if h.weight >= 0.8]
    return hits[-1].field if hits else None


def _add_right(dt: DocText, h, i: int, base: float, add) -> bool:
    """Candidates from the cells right of a label; cells under their own column header
    ("HT | TVA | TTC") count for that header's field."""
    right = _right_values(dt, h.field, i)
    if not right:
        return False
    plain = []
    for j, got in right:
        col = _column_header_field(dt, j) if len(right) > 1 else None
        if col is not None and col != h.field:
            add(col, j, got, 0.9 * POS_RIGHT)
        else:
            plain.append((j, got))
    for k, (j, got) in enumerate(plain):
        if h.field == "tax_total":
            # VAT rows read "rate  basis  tax": the last amount to the right is the tax
            add(h.field, j, got, base * POS_RIGHT * (1.0 if k == len(plain) - 1 else 0.8))
        else:
            add(h.field, j, got, base * POS_RIGHT * (1.0 if k == 0 else 0.75))
    return True


_ITEM_HEADER = re.compile(
    r"\b(?:description|beschreibung|bezeichnung|designation|descripcion|omschrijving|descrizione|"
    r"artikel|article|product|produkt|produit|item|qty|quantity|menge|quantite|cantidad|aantal)\b")


def _in_item_header(dt: DocText, i: int) -> bool:
    """Is line i a cell of a line-item table header (whose columns hold item values, not totals)?"""
    ln = dt.lines[i]
    for j in dt.by_page[ln.page]:
        other = dt.lines[j]
        if -0.5 * ln.height <= other.y0 - ln.y0 <= 2.5 * ln.height and _ITEM_HEADER.search(dt.folded[j]):
            if len(dt.folded[j]) < 40:
                return True
    return False


def _column_values(dt: DocText, field: str, i: int, xr=None) -> list[tuple[int, tuple]]:
    """Values in the column under a header cell: consecutive rows of figures, stopping at a gap,
    a label or a row with running text (then it is an item table, not a summary)."""
    out = []
    cur = i
    for _ in range(8):
        nxt = dt.below(cur, max_lines=2.6, xr=xr)[:1]
        if not nxt:
            break
        j = nxt[0]
        got = _value_from(dt, field, j, 0, len(dt.folded[j]))
        if got is None:
            if out or field not in AMOUNT_FIELDS:
                break
            cur = j  # a second header line ("Positions-" / "betrag")
            continue
        out.append((j, got))
        if field not in AMOUNT_FIELDS:
            break
        cur = j
    return out


_LETTERS = re.compile(r"[a-z]{2}")


def label_candidates(dt: DocText) -> dict[str, list[Cand]]:
    cands: dict[str, list[Cand]] = {f: [] for f in LABEL_FIELDS}

    def add(field, j, got, score):
        v, raw, s, e, strength = got
        ln = dt.lines[j]
        cands[field].append(Cand(field, v, score * strength, raw, ln.page, ln.span_bbox(s, e), j))

    for i, folded in enumerate(dt.folded):
        if not _LETTERS.search(folded):
            continue  # figures only: a value, never a label
        hits = _resolve(match_labels(folded, LABEL_FIELDS, prev=lambda i=i: dt.context_before(i)), folded)
        if not hits:
            continue
        prose = 0.6 if len(folded) > 70 else 1.0
        for h in hits:
            lo, hi = _segment(hits, h, len(folded))
            base = h.weight * prose
            got = _value_from(dt, h.field, i, lo, hi)
            if got:
                add(h.field, i, got, base * POS_SAME)
                if h.field not in AMOUNT_FIELDS:
                    continue
                # "Tax 15% on $ 112.90 ... $ 16.94": the figure on the label's line may be a basis
                _add_right(dt, h, i, base * 0.95, add)
                continue
            if hi < len(folded) and h.field not in AMOUNT_FIELDS:
                continue  # another label follows on the same line: the value is not ours
            if h.field in AMOUNT_FIELDS:
                if _add_right(dt, h, i, base, add):
                    continue
            else:
                right = _right_values(dt, h.field, i)
                if right:
                    add(h.field, right[0][0], right[0][1], base * POS_RIGHT)
                    continue
            weak = 0.75 if h.weight < 0.8 else 1.0
            if h.field in AMOUNT_FIELDS and _in_item_header(dt, i):
                continue
            span = dt.lines[i].span_bbox(h.start, h.end)
            column = _column_values(dt, h.field, i, (span[0], span[2]))
            if not column and h.field not in AMOUNT_FIELDS:
                column = _column_values(dt, h.field, i)  # "... vom" / "05.03.2018" on the next line
            for k, (j, got) in enumerate(column):
                if k == 0:
                    add(h.field, j, got, base * POS_BELOW * weak)
                elif k == len(column) - 1:
                    # a summary table: the last row under a header is its total
                    add(h.field, j, got, base * POS_BELOW * weak * 1.05)
    return cands


# --------------------------------------------------------------------------- currency
CURRENCIES = {
    "EUR", "USD", "GBP", "CHF", "INR", "JPY", "CNY", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK",
    "PLN", "CZK", "HUF", "RON", "BGN", "HRK", "ISK", "TRY", "RUB", "UAH", "BRL", "MXN", "ARS",
    "CLP", "COP", "ZAR", "SGD", "HKD", "KRW", "TWD", "THB", "MYR", "IDR", "PHP", "VND", "AED",
    "SAR", "ILS", "EGP", "MAD", "TND", "XOF", "XAF", "NGN", "KES", "PKR", "BDT", "LKR", "QAR",
}
_ISO_RE = re.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])")
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
        return Cand("currency", best.value, min(0.97, 0.85 + 0.1 * best.score), best.raw, best.page,
                    best.bbox, best.line), None
    counts: dict[str, int] = {}
    first: dict[str, tuple[int, int, int]] = {}
    for i, ln in enumerate(dt.lines):
        t = ln.text
        for m in _ISO_RE.finditer(t):
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
                return (Cand("currency", "USD", 0.5, "$", ln.page, ln.span_bbox(s, s + 1), i),
                        "currency: only a '$' sign is printed; USD assumed")
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
    above = [j for j in dt.by_page[ln.page]
             if dt.lines[j].y0 >= ln.y1 - 1 and abs(dt.lines[j].x0 - x0) < 40
             and dt.lines[j].y0 - ln.y1 < 16 * ln.height]
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
            c = Cand("buyer_vat_id" if is_buyer else "seller_vat_id", compact, score, raw, ln.page,
                     ln.span_bbox(m.start(), m.end()), i)
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
                    out.append(Cand("iban", compact[:end], 0.95, m.group(1), ln.page,
                                    ln.span_bbox(m.start(), m.end()), i))
                    break
    return out


_PAID = re.compile(
    r"\b(?:prepaid|already\s+paid|amount\s+paid|paid\s+amount|payment\s+received|deposit|advance\s+payment|"
    r"anzahlung\w*|bereits\s+(?:bezahlt|gezahlt)|geleistete|vorauszahlung\w*|acompte|deja\s+(?:paye|regle)|"
    r"montant\s+regle|pagado|anticipo|betaald|vooruitbetaald|aanbetaling|pagato|acconto)\b")
_RATE_IN_ROW = re.compile(r"\d\s?%|%\s?\d")


def _add_tax_sum(dt: DocText, cands: dict) -> None:
    """Several VAT rows without a VAT total: their sum is a tax total candidate."""
    rows = {}
    for c in cands["tax_total"]:
        if c.line is None:
            continue
        row_text = " ".join(dt.lines[j].text for j in dt.row_of(c.line))
        if _RATE_IN_ROW.search(row_text) or re.search(r"\b\d{1,2}(?:[.,]\d{1,2})?\s*$", dt.lines[c.line].text):
            prev = rows.get(c.line)
            if prev is None or c.score > prev.score:
                rows[c.line] = c
    distinct = {}
    for c in rows.values():
        key = (c.page, round(dt.lines[c.line].y0))
        if key not in distinct or c.score > distinct[key].score:
            distinct[key] = c
    if len(distinct) >= 2:
        total = sum((c.value for c in distinct.values()), Decimal("0"))
        score = min(c.score for c in distinct.values()) * 0.85
        cands["tax_total"].append(Cand("tax_total", total, score, None, None, None, derived=True))


def is_credit_note(dt: DocText) -> bool:
    head = [dt.folded[i] for i in dt.by_page.get(1, [])[:25]]
    return any(CREDIT_NOTE_TITLES.search(t) for t in head)


# --------------------------------------------------------------------------- choosing
def _merge(cands: list[Cand]) -> list[Cand]:
    """One candidate per value; repeated evidence raises the score a little."""
    by_value: dict = {}
    lines: dict = {}
    for c in cands:
        key = c.value
        prev = by_value.get(key)
        lines.setdefault(key, set()).add(c.line)
        if prev is None:
            by_value[key] = Cand(c.field, c.value, c.score, c.raw, c.page, c.bbox, c.line, c.derived)
        elif c.score > prev.score:
            prev.score, prev.raw, prev.page, prev.bbox, prev.line = c.score, c.raw, c.page, c.bbox, c.line
    out = list(by_value.values())
    for c in out:
        if len(lines[c.value]) > 1:
            c.score = min(1.0, c.score + 0.08)
    return sorted(out, key=lambda c: -c.score)


_POOL = {"net_total": 6, "tax_total": 10, "gross_total": 6, "amount_due": 4}


def choose_amounts(dt: DocText, cands: dict[str, list[Cand]]) -> tuple[dict[str, Cand | None], bool]:
    """Pick net/tax/gross/due jointly; returns (choice, arithmetic_consistent)."""
    last_page = max(dt.by_page) if dt.by_page else 1
    pools = {}
    for f in AMOUNT_FIELDS:
        merged = _merge(cands.get(f, []))
        for c in merged:
            if c.page == last_page:
                c.score += 0.03
        pools[f] = merged[:_POOL[f]] + [None]
    best, best_score, best_ok = None, -1.0, False
    for n, t, g, d in product(pools["net_total"], pools["tax_total"], pools["gross_total"],
                              pools["amount_due"]):
        s = sum(c.score for c in (n, t, g, d) if c is not None)
        ok = False
        if n is not None and t is not None and g is not None:
            if abs(n.value + t.value - g.value) <= TOLERANCE and g.value != 0:
                s += 1.5
                ok = True
            else:
                s -= 0.6
        elif n is not None and g is not None:
            if n.value == g.value or abs(g.value) < abs(n.value):
                s -= 0.3 if abs(g.value) < abs(n.value) else 0.0
        if g is not None and d is not None:
            if d.value == g.value:
                s += 0.3
            elif abs(d.value) > abs(g.value) + TOLERANCE:
                s -= 0.5
        if n is not None and t is not None and abs(t.value) > abs(n.value):
            s -= 0.5
        if s > best_score:
            best, best_score, best_ok = (n, t, g, d), s, ok
    n, t, g, d = best if best else (None, None, None, None)
    choice = {"net_total": n, "tax_total": t, "gross_total": g, "amount_due": d}
    if best_ok:
        for c in (n, t, g):
            c.score = min(0.98, c.score * 0.5 + 0.5)
    else:
        if g is not None and n is not None and abs(g.value) >= abs(n.value) and (
                t is None or (n.score >= 0.85 and g.score >= 0.85 and t.score < n.score)):
            # confident net and gross, no printed VAT total that fits: their difference is the VAT
            choice["tax_total"] = Cand("tax_total", g.value - n.value, 0.55, None, None, None, derived=True)
        elif g is not None and t is not None and n is None:
            choice["net_total"] = Cand("net_total", g.value - t.value, 0.55, None, None, None, derived=True)
        elif n is not None and t is not None and g is None:
            choice["gross_total"] = Cand("gross_total", n.value + t.value, 0.55, None, None, None, derived=True)
        for c in (n, t, g):
            if c is not None:
                c.score = min(c.score, 0.75)
    return choice, best_ok


def choose_first(cands: list[Cand], prefer_top: bool = True) -> Cand | None:
    merged = _merge(cands)
    if not merged:
        return None
    return merged[0]


def extract_text_fields(dt: DocText) -> tuple[dict[str, Cand | None], list[str], dict]:
    """All header fields from the text layer: (fields, review reasons, facts for later stages)."""
    reasons: list[str] = []
    cands = label_candidates(dt)
    fields: dict[str, Cand | None] = {}
    for f in ("invoice_number", "issue_date"):
        for c in cands[f]:  # header fields live at the top of the first page
            if c.page == 1 and c.line is not None and dt.relative_y(c.line) > 0.6:
                c.score += 0.1
    for f in ID_FIELDS + DATE_FIELDS:
        fields[f] = choose_first(cands[f])
    if fields["issue_date"] is None:
        for i in dt.by_page.get(1, []):
            got = read_date(dt, dt.lines[i].text)
            if got and not re.search(r"(?:liefer|leistung|deliver|livraison|order|bestell|due|fallig)",
                                     dt.folded[i]):
                d, s, e = got
                ln = dt.lines[i]
                fields["issue_date"] = Cand("issue_date", d, 0.4, ln.text[s:e], ln.page, ln.span_bbox(s, e), i)
                break
    if fields["due_date"] is not None and fields["issue_date"] is not None:
        if fields["due_date"].value == fields["issue_date"].value and fields["due_date"].line == fields["issue_date"].line:
            fields["due_date"] = None
    _add_tax_sum(dt, cands)
    credit = is_credit_note(dt)
    if credit:  # a credit note states its sign in its title; EN 16931 amounts are positive
        for f in AMOUNT_FIELDS:
            for c in cands[f]:
                c.value = abs(c.value)
    amounts, consistent = choose_amounts(dt, cands)
    if amounts["amount_due"] is None and amounts["gross_total"] is not None and not _PAID.search(dt.full_folded):
        g = amounts["gross_total"]
        amounts["amount_due"] = Cand("amount_due", g.value, min(0.6, g.score), None, None, None, derived=True)
    fields.update(amounts)
    cur, reason = currency_candidate(dt, cands["currency"])
    fields["currency"] = cur
    if reason:
        reasons.append(reason)
    seller_vat, buyer_vat = vat_candidates(dt)
    fields["seller_vat_id"] = choose_first(seller_vat)
    fields["buyer_vat_id"] = choose_first(buyer_vat)
    ibans = iban_candidates(dt)
    fields["iban"] = ibans[0] if ibans else None
    facts = {"credit_note": credit, "amounts_consistent": consistent,
             "vat_checksum_failed": {k for k in ("seller_vat_id", "buyer_vat_id")
                                     if fields[k] is not None and fields[k].derived}}
    for k in facts["vat_checksum_failed"]:
        fields[k].derived = False
    return fields, reasons, facts

