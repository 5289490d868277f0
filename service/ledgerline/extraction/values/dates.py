"""Printed dates in the invoice languages: numeric (d.m.y, d/m/y, m/d/y, ISO), with month names,
and the compact CII form; two-digit years and US month-first order resolved."""

from __future__ import annotations

import datetime as _dt
import re

from ..text import normalise_text
from ..vocabulary import VOCABULARY

# Month names of every vocabulary language (CLDR through babel, see vocabulary.load).
_MONTHS: dict[str, int] = VOCABULARY.months

_MONTH_ALT = "|".join(sorted((re.escape(k) for k in _MONTHS), key=len, reverse=True))
_DATE_PATTERNS = [
    # ISO 2024-03-05, and year first with dots as Hungarian writes it: 2024. 03. 05.
    ("ymd", re.compile(r"(?<!\d)(\d{4})(?:[-/]|\.\s?)(\d{1,2})(?:[-/]|\.\s?)(\d{1,2})(?!\d)")),
    # 05.03.2024 / 05/03/2024 / 05-03-2024 / 5.3.24
    (
        "num",
        re.compile(
            r"(?<![\d.,])(\d{1,2})\s?([./-])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?![\d]|[.,]\d)"
        ),
    ),
    # 3 August 2014 / 3. März 2018 / 20 de octubre de 2015 / 20-Oct-2015
    (
        "dmy_name",
        re.compile(
            rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|er|\.)?[\s\-/]*(?:de\s+)?({_MONTH_ALT})\.?(?:\s+de|,)?[\s\-/]*(\d{{4}}|\d{{2}})(?!\d)",
            re.IGNORECASE,
        ),
    ),
    # August 3, 2014 / Aug 3 , 2014 / Aug3,2014 (OCR drops a narrow space after a month)
    (
        "mdy_name",
        re.compile(
            rf"(?<![A-Za-z])({_MONTH_ALT})\.?\s*(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(\d{{4}})(?!\d)",
            re.IGNORECASE,
        ),
    ),
    # 2018年03月23日 / 2017年6月7日 (Chinese and Japanese; OCR may put spaces around the signs)
    ("ymd", re.compile(r"(?<!\d)(\d{4})\s?年\s?(\d{1,2})\s?月\s?(\d{1,2})\s?日")),
    # 20240305 only as a whole token (CII format 102 style)
    ("compact", re.compile(r"(?<!\d)(20\d{2})(0[1-9]|1[0-2])([0-3]\d)(?!\d)")),
]


def _mkdate(y: int, m: int, d: int) -> _dt.date | None:
    if y < 100:
        y += 2000 if y < 70 else 1900
    try:
        return _dt.date(y, m, d)
    except ValueError:
        return None


def find_dates(text: str, *, month_first: bool = False) -> list[tuple[_dt.date, int, int]]:
    """All dates in a piece of text, with their spans, in order of appearance."""
    s = normalise_text(text)
    found: list[tuple[_dt.date, int, int]] = []
    taken: list[tuple[int, int]] = []
    for kind, rx in _DATE_PATTERNS:
        if kind == "compact" and found:
            continue
        for m in rx.finditer(s):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            g = m.groups()
            if kind == "ymd":
                d = _mkdate(int(g[0]), int(g[1]), int(g[2]))
            elif kind == "num":
                a, b, y = int(g[0]), int(g[2]), int(g[3])
                if g[1] == "." or a > 12:
                    d = _mkdate(y, b, a)
                elif b > 12 or (month_first and g[1] == "/"):
                    d = _mkdate(y, a, b)
                else:
                    d = _mkdate(y, b, a)
            elif kind == "dmy_name":
                d = _mkdate(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))
            elif kind == "mdy_name":
                d = _mkdate(int(g[2]), _MONTHS[g[0].lower()], int(g[1]))
            else:
                d = _mkdate(int(g[0]), int(g[1]), int(g[2]))
            if d is not None and 1990 <= d.year <= 2100:
                found.append((d, m.start(), m.end()))
                taken.append((m.start(), m.end()))
    found.sort(key=lambda t: t[1])
    return found


def parse_date(text: str, *, month_first: bool = False) -> _dt.date | None:
    """The first date in ``text`` or None."""
    dates = find_dates(text or "", month_first=month_first)
    return dates[0][0] if dates else None
