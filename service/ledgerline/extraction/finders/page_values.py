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

from ..candidates import Candidate, Evidence
from ..document import AMOUNT_FIELDS, DATE_FIELDS, ID_FIELDS
from ..geometry import DocText
from ..values.dates import find_dates
from ..vocabulary import VOCABULARY as V
from .parties import _first_part, _namelike

PAGE_AMOUNT, PAGE_ID, PAGE_DATE, PAGE_NAME = "page_amount", "page_id", "page_date", "page_name"

MAX_ID_CHARS = 40
MIN_ID_CHARS = 2
# Name-like lines: the first lines of page 1 (letterhead, parties) and the last lines of every
# page (footers carry the seller's legal name).
HEAD_NAME_LINES, FOOT_NAME_LINES = 40, 12
_ID_TOKEN = re.compile(r"(?<![\w/.-])[A-Za-z0-9#][A-Za-z0-9/\-_.#:]*[A-Za-z0-9]|(?<!\w)\d{2,}")
_AMOUNT_LIKE = re.compile(r"\d{1,3}(?:[.,' ]\d{3})*[.,]\d{2}")


def _cand(dt: DocText, field: str, i: int, value, s: int, e: int, kind: str, **facts):
    ln = dt.lines[i]
    evidence = Evidence(kind, relative_y=dt.relative_y(i), facts=facts)
    return Candidate(field, value, ln.text[s:e], ln.page, ln.span_bbox(s, e), i, evidence)


def amount_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Every amount on every line that is not a percentage, for each amount field."""
    out: dict[str, list[Candidate]] = {f: [] for f in AMOUNT_FIELDS}
    for i, ln in enumerate(dt.lines):
        for value, s, e, has_dec in dt.amounts(i):
            if ln.text[e : e + 3].lstrip().startswith("%"):
                continue
            for f in AMOUNT_FIELDS:
                out[f].append(_cand(dt, f, i, value, s, e, PAGE_AMOUNT, decimals=has_dec, start=s))
    return out


def _date_spans(text: str, month_first: bool) -> list[tuple[int, int]]:
    return [(s, e) for _d, s, e in find_dates(text, month_first=month_first)]


def id_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Identifier-like tokens (letters, digits and separators with at least one digit) that are
    neither dates nor amounts, for the invoice number and the purchase order."""
    out: dict[str, list[Candidate]] = {f: [] for f in ID_FIELDS}
    for i, ln in enumerate(dt.lines):
        text = ln.text
        if not any(c.isdigit() for c in text):
            continue
        dates = _date_spans(text, dt.month_first)
        for m in _ID_TOKEN.finditer(text):
            tok = m.group(0).rstrip(".:-")
            s, e = m.start(), m.start() + len(tok)
            if not MIN_ID_CHARS <= len(tok) <= MAX_ID_CHARS or not any(c.isdigit() for c in tok):
                continue
            if any(ds <= s and e <= de + 1 for ds, de in dates) or _AMOUNT_LIKE.fullmatch(tok):
                continue
            value = tok.lstrip("#")
            if len(value) < MIN_ID_CHARS:
                continue
            for f in ID_FIELDS:
                out[f].append(_cand(dt, f, i, value, s, e, PAGE_ID, start=s))
    return out


def date_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Every date the page prints, for the issue and the due date."""
    out: dict[str, list[Candidate]] = {f: [] for f in DATE_FIELDS}
    for i, ln in enumerate(dt.lines):
        if not any(c.isdigit() for c in ln.text):
            continue
        for d, s, e in find_dates(ln.text, month_first=dt.month_first):
            for f in DATE_FIELDS:
                out[f].append(_cand(dt, f, i, d, s, e, PAGE_DATE, start=s))
    return out


def name_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Name-like lines at the head of page 1 and at the foot of every page, and every line
    with a legal form, for the seller and the buyer."""
    picked: list[int] = list(dt.by_page.get(1, [])[:HEAD_NAME_LINES])
    for lines in dt.by_page.values():
        picked.extend(lines[-FOOT_NAME_LINES:])
    picked.extend(i for i, f in enumerate(dt.folded) if V.legal_form.search(f))
    out: dict[str, list[Candidate]] = {"seller_name": [], "buyer_name": []}
    for i in sorted(set(picked)):
        if not _namelike(dt, i) or V.page_title.match(dt.folded[i]):
            continue
        got = _first_part(dt.lines[i].text)
        if got is None:
            continue
        name, s, e = got
        for f in out:
            out[f].append(_cand(dt, f, i, name, s, e, PAGE_NAME))
    return out


def page_value_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    found: dict[str, list[Candidate]] = {}
    for finder in (amount_candidates, id_candidates, date_candidates, name_candidates):
        found.update(finder(dt))
    return found
