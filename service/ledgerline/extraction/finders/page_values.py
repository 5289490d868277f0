"""Every value of a type the page prints, labelled or not: the candidates no label points at.

The label finders (:mod:`.header_fields`, :mod:`.parties`) read a value where a known label
points at it; a page whose label is in a language the vocabulary lacks, in a header row above
a value row, or in a totals table with several rates gives them nothing. These finders add every
amount, identifier-like token, date and name-like line of the page as a candidate of each field
of its type, with only where it sits as evidence; the ranker's features then read the labels
around it (:mod:`..ranker.features`). Nothing is scored here.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..candidates import BELOW, Candidate, Evidence
from ..document import AMOUNT_FIELDS, DATE_FIELDS, ID_FIELDS
from ..geometry import DocText
from ..text import fold
from ..values.dates import find_dates
from ..vocabulary import VOCABULARY as V
from .header_fields import _plain_hits, cites_a_law, in_item_column
from .parties import _first_part, _namelike, printed_legal_form, with_form_letters

PAGE_AMOUNT, PAGE_ID, PAGE_DATE, PAGE_NAME = "page_amount", "page_id", "page_date", "page_name"

MAX_ID_CHARS = 40
MIN_ID_CHARS = 2
# Name-like lines: the first lines of page 1 (letterhead, parties) and the last lines of every
# page (footers carry the seller's legal name).
HEAD_NAME_LINES, FOOT_NAME_LINES = 40, 12
_ID_TOKEN = re.compile(r"(?<![\w/.-])[A-Za-z0-9#][A-Za-z0-9/\-_.#:]*[A-Za-z0-9]|(?<![\w/.-])\d(?![\w/])")
# A short word and a colon before a name: a sub-label in a language the vocabulary may lack.
_SUB_LABEL = re.compile(r"^[^\W\d_]{2,20}(?:\s[^\W\d_]{2,12})?\s?:\s*(\S.*)$")
_MIXED = re.compile(r"[a-z][A-Z]|[A-Z].*[A-Z]|\d")
_CURRENCY_MARK = re.compile(
    r"[€$£¥₹]|\b[A-Z]{3}\b|\bRs\b|\bkr\b|K[čc]|z[łl]|\bFt\b|\b[Ee]uros?\b|\b[Dd]ollars?\b"
)
_GLUED = re.compile(r"[\w/.-]")
_AMOUNT_LIKE = re.compile(r"\d{1,3}(?:[.,' ]\d{3})*[.,]\d{2}")
_LEADING_ZERO = re.compile(r"[^\d]*0\d")
_NUMBERED_ON = re.compile(r"[/-]\d")  # "DPR 642/72": a number continued by another


def _cands(dt: DocText, fields, i: int, value, s: int, e: int, kind: str, **facts):
    """One candidate per field for the value at line i, [s, e): one box, one evidence."""
    ln = dt.lines[i]
    evidence = Evidence(kind, relative_y=dt.relative_y(i), facts=facts)
    bbox = ln.span_bbox(s, e)
    raw = ln.text[s:e]
    return [Candidate(f, value, raw, ln.page, bbox, i, evidence) for f in fields]


def amount_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Every amount on every line that is not a percentage, for each amount field. A number
    without decimals counts only with a currency beside it or alone in its cell ("38290"), never
    inside an identifier, a date or an address ("RE-2024-117", "20457 Hamburg"), nor when it
    starts with a zero ("00000": amounts are not padded) or another number follows it after a
    slash or a hyphen ("642/72"). "1168 Euro" has its currency beside it."""
    out: dict[str, list[Candidate]] = {f: [] for f in AMOUNT_FIELDS}
    for i, ln in enumerate(dt.lines):
        text = ln.text
        for value, s, e, has_dec in dt.amounts(i):
            if text[e : e + 3].lstrip().startswith("%"):
                continue
            if not has_dec and (_LEADING_ZERO.match(text[s:e].strip())
                                or _NUMBERED_ON.match(text, e)):
                continue  # "00000", "0427", "642/72": a code's digits, never an amount
            if not has_dec and not _CURRENCY_MARK.search(text[max(0, s - 5) : e + 5]):
                if text.strip() != text[s:e].strip() or _GLUED.search(text[max(0, s - 1) : s]):
                    continue
            got = _cands(dt, AMOUNT_FIELDS, i, value, s, e, PAGE_AMOUNT, decimals=has_dec, start=s)
            for c in got:
                out[c.field].append(c)
    return out


def _date_spans(text: str, month_first: bool) -> list[tuple[int, int]]:
    return [(s, e) for _d, s, e in find_dates(text, month_first=month_first)]


def _id_labelled(dt: DocText, i: int, under_labels: set[int]) -> bool:
    """Does an identifier label stand on line i, in the cell left of it or over it?"""
    if i in under_labels or dt.labels(i, ID_FIELDS, _plain_hits):
        return True
    row = dt.row_of(i)
    k = row.index(i)
    return k > 0 and bool(dt.labels(row[k - 1], ID_FIELDS, _plain_hits))


HEADER_VALUE_GAP = 2.6  # line heights from a header cell down to its value


def _under_id_labels(dt: DocText) -> set[int]:
    """The value cells under identifier labels that stand alone in their cell: a header row
    ("Numer faktury") over a value row ("2/11/2023")."""
    out = set()
    for i, folded in enumerate(dt.folded):
        hits = dt.labels(i, ID_FIELDS, _plain_hits)
        if not hits or any(c.isdigit() for c in folded[max(h.end for h in hits) :]):
            continue
        out.update(dt.below(i, max_lines=HEADER_VALUE_GAP)[:1])
    return out


def id_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Identifier-like tokens (letters, digits and separators with at least one digit) that are
    neither dates nor amounts, for the invoice number and the purchase order. Beside an
    identifier label, any token counts: "Invoice no. 4", "Reference: TESTREF", "No. 2/11/2023"
    (``evidence.facts["date_like"]`` says it reads as a date). A law's citation never counts:
    "Art. 21", "DPR 633/72", "§ 19 Abs. 1", "Directive 2006/112/EC" (:func:`.header_fields.cites_a_law`)."""
    out: dict[str, list[Candidate]] = {f: [] for f in ID_FIELDS}
    under_labels = _under_id_labels(dt)
    for i, ln in enumerate(dt.lines):
        text = ln.text
        labelled = _id_labelled(dt, i, under_labels)
        if not labelled and not any(c.isdigit() for c in text):
            continue
        dates = _date_spans(text, dt.month_first)
        phones = [p.span() for p in _PHONE_SHAPED.finditer(text)]
        for m in _ID_TOKEN.finditer(text):
            tok = m.group(0).rstrip(".:-")
            s, e = m.start(), m.start() + len(tok)
            value = tok.lstrip("#")
            if cites_a_law(dt, i, s) or _a_citation(value):
                continue
            date_like = any(ds <= s and e <= de + 1 for ds, de in dates)
            if labelled:
                if not value or len(tok) > MAX_ID_CHARS or _AMOUNT_LIKE.fullmatch(tok):
                    continue
                if not any(c.isdigit() for c in value) and not (
                    value.isupper() or "-" in value or (len(value) > 2 and _MIXED.search(value))
                ):
                    continue  # a word of the label's line, not a code
            elif (
                not MIN_ID_CHARS <= len(value) <= MAX_ID_CHARS
                or not any(c.isdigit() for c in tok)
                or date_like
                or _AMOUNT_LIKE.fullmatch(tok)
                or any(ps <= s and e <= pe for ps, pe in phones)
            ):
                continue
            for c in _cands(dt, ID_FIELDS, i, value, s, e, PAGE_ID, start=s, date_like=date_like):
                out[c.field].append(c)
    return out


# A telephone number as North America prints it ("123-456-7890", "(412) 237-1100"): unlabelled,
# it is a contact's, never an invoice's or an order's number.
_PHONE_SHAPED = re.compile(r"(?<![\w-])\(?\d{3}\)?[-. ]\d{3}[-.]\d{4}(?![\w-])")
_LEAD_LETTERS = re.compile(r"\D+")


def _a_citation(token: str) -> bool:
    """Is the token a law's citation itself: its abbreviation ("DPR") or glued to its number
    after a full stop ("art.6")?"""
    lead = _LEAD_LETTERS.match(token)
    if lead is None or not (lead.end() == len(token) or token[lead.end() - 1] == "."):
        return False
    return V.legal_reference.search(fold(lead.group(0))) is not None


ITEM_DATE_FIELDS = tuple(f for f in DATE_FIELDS if f != "issue_date")


def date_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Every date the page prints, for the issue and the due date."""
    out: dict[str, list[Candidate]] = {f: [] for f in DATE_FIELDS}
    for i, ln in enumerate(dt.lines):
        if not any(c.isdigit() for c in ln.text):
            continue
        # an item's date ("Datum" of a service, the day a consignment went) is not the issue date
        fields = ITEM_DATE_FIELDS if in_item_column(dt, i) else DATE_FIELDS
        for d, s, e in find_dates(ln.text, month_first=dt.month_first):
            for c in _cands(dt, fields, i, d, s, e, PAGE_DATE, start=s):
                out[c.field].append(c)
    return out


def name_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Name-like lines at the head of page 1 and at the foot of every page, and every line
    with a legal form, for the seller and the buyer."""
    picked: list[int] = list(dt.by_page.get(1, [])[:HEAD_NAME_LINES])
    for lines in dt.by_page.values():
        picked.extend(lines[-FOOT_NAME_LINES:])
    picked.extend(i for i, ln in enumerate(dt.lines) if printed_legal_form(ln.text))
    out: dict[str, list[Candidate]] = {"seller_name": [], "buyer_name": []}
    for i in sorted(set(picked)):
        if not _namelike(dt, i) or V.page_title.match(dt.folded[i]):
            continue
        got = _first_part(dt.lines[i].text)
        if got is None:
            continue
        name, s, e = got
        variants = [(name, False)]
        m = _SUB_LABEL.match(name)
        lead = V.seller_label_lead.match(fold(name)) or V.buyer_label_lead.match(fold(name))
        if m and _namelike_text(m.group(1)):
            variants.append((m.group(1), True))  # "Nazwa: ABC S.A." -> "ABC S.A."
        elif lead and _namelike_text(name[lead.end() :]):
            variants.append((name[lead.end() :], True))  # "REMIT TO Muster Inc" -> "Muster Inc"
        for value, stripped in variants:
            fields = ("seller_name", "buyer_name")
            for c in _cands(dt, fields, i, with_form_letters(value), s, e, PAGE_NAME,
                            after_sub_label=stripped):
                out[c.field].append(c)
    return out


def _namelike_text(text: str) -> bool:
    return len(text) >= 2 and bool(re.search(r"[^\W\d_]{2,}", text))


SUM_OF_TAX_ROWS = "sum_of_tax_rows"
_RATE_IN_ROW = re.compile(r"\d\s?%|%\s?\d")
A_COLUMN = 0  # facts["from_end"] of the sum of a column of VAT amounts


def tax_sum_candidates(dt: DocText, tax: list[Candidate]) -> list[Candidate]:
    """A totals table with one row per VAT rate and no VAT total: the sum of the rows' tax is a
    tax-total candidate. A row reads "rate  base  tax" or "rate  base  tax  gross", so two sums
    are offered: of each row's last figure and of the one before it (``facts["rows"]``,
    ``facts["from_end"]``). A VAT breakdown whose rates stand in a column of their own ("USt. %"
    over "19", no percent sign in the row) prints its VAT amounts in a column under a tax header:
    the sum of that column is offered too (``facts["from_end"]`` :data:`A_COLUMN`)."""
    return _rate_row_sums(dt, tax) + _column_sums(dt, tax)


def _rate_row_sums(dt: DocText, tax: list[Candidate]) -> list[Candidate]:
    rows: dict = {}
    for c in tax:
        if c.evidence.kind != "label" or c.line is None or c.bbox is None:
            continue
        row = dt.row_of(c.line)
        if not _RATE_IN_ROW.search(" ".join(dt.lines[j].text for j in row)):
            continue
        key = (c.page, round(dt.lines[row[0]].y0))
        rows.setdefault(key, {})[round(c.bbox[0], 1)] = c.value
    if len(rows) < 2:
        return []
    out = []
    for from_end in (1, 2):
        picked = [sorted(r.items())[-from_end][1] for r in rows.values() if len(r) >= from_end]
        if len(picked) == len(rows):
            out.append(_sum_candidate(picked, len(rows), from_end))
    return out


def _column_sums(dt: DocText, tax: list[Candidate]) -> list[Candidate]:
    """The sum of every column of two or more VAT amounts under one tax header, down to the
    first row labelled for another total (the totals under the table); not of a rate column
    (its header prints the percent sign)."""
    columns: dict[int, list[Candidate]] = {}
    for c in tax:
        ev = c.evidence
        if ev.kind != "label" or ev.relation != BELOW or ev.label_line is None or c.line is None:
            continue
        if "%" not in dt.lines[ev.label_line].text:
            columns.setdefault(ev.label_line, []).append(c)
    out = []
    for cells in columns.values():
        values = []
        for c in sorted(cells, key=lambda c: c.evidence.rank):
            if _labelled_for_another_total(dt, c.line):
                break
            values.append(c.value)
        if len(values) >= 2:
            out.append(_sum_candidate(values, len(values), A_COLUMN))
    return out


_OTHER_TOTALS = tuple(f for f in AMOUNT_FIELDS if f != "tax_total")


def _labelled_for_another_total(dt: DocText, i: int) -> bool:
    return any(dt.labels(j, _OTHER_TOTALS, _plain_hits) for j in dt.row_of(i) if j != i)


def _sum_candidate(values: list[Decimal], rows: int, from_end: int) -> Candidate:
    evidence = Evidence(SUM_OF_TAX_ROWS, facts={"rows": rows, "from_end": from_end})
    total = sum(values, Decimal(0))
    return Candidate("tax_total", total, None, None, None, None, evidence, derived=True)


def page_value_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    found: dict[str, list[Candidate]] = {}
    for finder in (amount_candidates, id_candidates, date_candidates, name_candidates):
        found.update(finder(dt))
    return found
