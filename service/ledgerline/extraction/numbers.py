"""Locale-tolerant parsing of printed amounts, percentages and dates.

Amounts come back as :class:`decimal.Decimal` (never floats).  Separators seen on invoices:
``1.234,56`` ``1 234,56`` ``1,234.56`` ``1'234.56`` (and the typographic apostrophe / thin
spaces).  A lone separator followed by exactly three digits (``1,234``) is ambiguous; the caller
passes the document's decimal separator as ``decimal_hint`` to settle it.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from decimal import Decimal, InvalidOperation, localcontext

__all__ = [
    "parse_amount",
    "find_amounts",
    "parse_percent",
    "parse_date",
    "find_dates",
    "guess_decimal_separator",
    "format_amount",
    "normalise_spaces",
]

_SPACES = "\u00a0\u202f\u2009\u2007\u2008\u200a"
_SPACE_RE = re.compile(f"[{_SPACES}]")
_APOSTROPHES = "'\u2019\u02bc"
_MINUS = "-\u2212\u2013\u2012"

# A number token: optional sign, digit groups with separators, optional decimals.
_NUM_CORE = (
    r"(?:\d{1,3}(?:[ .,'\u2019](?=\d{3}(?!\d))\d{3})+(?:[.,]\d{1,4})?"  # grouped
    r"|\d+(?:[.,]\d{1,4})?"  # plain
    r"|[.,]\d{1,2})"
)
_AMOUNT_RE = re.compile(
    rf"(?P<lp>\()?\s*(?P<sign>[{_MINUS}+])?\s*"
    r"(?P<cur1>[A-Z]{3}|[$€£¥₹]|CHF|Fr\.|Rs\.?)?\s*"
    rf"(?P<sign2>[{_MINUS}])?\s*"
    rf"(?P<num>{_NUM_CORE})"
    r"(?![\d])"
    r"\s*(?P<cur2>[A-Z]{3}(?![A-Za-z])|[$€£¥₹]|CHF)?"
    rf"(?P<tsign>[{_MINUS}](?![\d]))?"
    r"\s*(?P<rp>\))?"
)


def normalise_spaces(text: str) -> str:
    """NFC-normalise and turn the many Unicode spaces into plain spaces."""
    text = unicodedata.normalize("NFC", text)
    return _SPACE_RE.sub(" ", text)


def guess_decimal_separator(text: str) -> str | None:
    """Return ',' or '.' when the text shows a clear majority of one decimal style."""
    comma = len(re.findall(r"(?<![\d.,])\d{1,3}(?:[. ']\d{3})*,\d{2}(?![\d,.])", text))
    dot = len(re.findall(r"(?<![\d.,])\d{1,3}(?:[, ']\d{3})*\.\d{2}(?![\d,.])", text))
    if comma > dot:
        return ","
    if dot > comma:
        return "."
    return None


def _number_to_decimal(num: str, decimal_hint: str | None) -> tuple[Decimal, bool] | None:
    """(value, printed_with_decimals) for a bare number token."""
    num = num.replace(" ", "")
    for a in _APOSTROPHES:
        num = num.replace(a, "")
    last_dot, last_comma = num.rfind("."), num.rfind(",")
    dec: str | None
    if last_dot >= 0 and last_comma >= 0:
        dec = "." if last_dot > last_comma else ","
    elif last_dot >= 0 or last_comma >= 0:
        sep = "." if last_dot >= 0 else ","
        head, _, tail = num.rpartition(sep)
        if num.count(sep) > 1:
            dec = None  # 1.234.567: grouping only
        elif len(tail) == 3 and head and not head.startswith("0"):
            dec = sep if decimal_hint == sep else None  # 1,234: grouping unless told otherwise
        else:
            dec = sep
    else:
        dec = None
    if len(num) > 40:
        return None  # not an amount anyone prints
    if dec is None:
        digits = num.replace(".", "").replace(",", "")
    else:
        other = "," if dec == "." else "."
        int_part, _, frac = num.rpartition(dec)
        digits = (int_part.replace(other, "") or "0") + "." + frac
    try:
        return Decimal(digits), dec is not None
    except InvalidOperation:
        return None


def parse_amount(text: str, decimal_hint: str | None = None) -> Decimal | None:
    """Parse one amount from ``text`` (which should hold little else); None if not an amount."""
    if text is None:
        return None
    s = normalise_spaces(str(text)).strip()
    if not s:
        return None
    m = _AMOUNT_RE.fullmatch(s)
    if m is None:
        return None
    parsed = _number_to_decimal(m.group("num"), decimal_hint)
    if parsed is None:
        return None
    value = parsed[0]
    negative = bool(
        (m.group("sign") and m.group("sign") != "+")
        or m.group("sign2")
        or m.group("tsign")
        or (m.group("lp") and m.group("rp"))
    )
    return -value if negative else value


_FIND_RE = re.compile(
    rf"(?<![\w.,/])(?P<paren>\()?(?P<sign>[{_MINUS}])?\s?"
    r"(?P<cur1>[$€£¥₹]\s?)?"
    rf"(?P<sign2>[{_MINUS}])?"
    rf"(?P<num>\d{{1,3}}(?:(?P<g>[ .,'\u2019])\d{{3}}(?:(?P=g)\d{{3}})*)?(?:[.,]\d{{2,4}})?"
    rf"|\d+(?:[.,]\d{{2,4}})?)"
    r"(?![\d])(?!\.\d)(?!,\d)"
    r"(?P<cur2>\s?[$€£¥₹])?"
    rf"(?P<tsign>[{_MINUS}](?!\d))?(?P<rparen>\))?"
)


_LEADERS = re.compile(r"\.{2,}|_{2,}|…+|-{3,}|·{2,}")  # dot leaders keep their length


def find_amounts(
    text: str, decimal_hint: str | None = None
) -> list[tuple[Decimal, int, int, bool]]:
    """All amount-looking tokens in a line: (value, start, end, has_decimals)."""
    s = _LEADERS.sub(lambda m: " " * len(m.group()), normalise_spaces(text))
    out = []
    for m in _FIND_RE.finditer(s):
        num = m.group("num")
        # dates, times and identifiers are not amounts
        tail = s[m.end() : m.end() + 1]
        if tail and (tail.isalpha() and tail not in "€$£¥₹") and not tail.isspace():
            if not s[m.end() :].lstrip().startswith(("%",)):
                continue
        parsed = _number_to_decimal(num, decimal_hint)
        if parsed is None:
            continue
        value, has_dec = parsed
        neg = bool(
            m.group("sign")
            or m.group("sign2")
            or m.group("tsign")
            or (m.group("paren") and m.group("rparen"))
        )
        out.append((-value if neg else value, m.start(), m.end(), has_dec))
    return out


def parse_percent(text: str) -> Decimal | None:
    m = re.search(r"(\d{1,2}(?:[.,]\d{1,3})?)\s*%", normalise_spaces(text or ""))
    if not m:
        return None
    return Decimal(m.group(1).replace(",", "."))


def format_amount(value: Decimal | None) -> str | None:
    """Canonical decimal string: at least two decimals, more only when they are significant.

    None for values no invoice carries (more than 18 integer digits, NaN, infinities)."""
    if value is None:
        return None
    value = Decimal(value)
    if not value.is_finite() or value.adjusted() > 18 or value.adjusted() < -12:
        return None if value != 0 else "0.00"
    with localcontext() as ctx:
        ctx.prec = 60
        q = value.quantize(Decimal("0.01"))
        if q != value:
            q = value.normalize()
        s = format(q, "f")
    if s.startswith("-") and Decimal(s) == 0:
        s = s[1:]
    return s


# ---------------------------------------------------------------- dates
_MONTHS: dict[str, int] = {}


def _add_months(names: str) -> None:
    for i, group in enumerate(names.split(";"), start=1):
        for name in group.split(","):
            name = name.strip()
            if name:
                _MONTHS[name] = i


# en, de, fr, es, nl, it (full names and common abbreviations; lower case, accents kept)
_add_months(
    "january,jan;february,feb;march,mar;april,apr;may;june,jun;july,jul;"
    "august,aug;september,sep,sept;october,oct;november,nov;december,dec"
)
_add_months(
    "januar,jänner,jän;februar,feber;märz,mär,maerz;april;mai;juni;juli;"
    "august;september;oktober,okt;november;dezember,dez"
)
_add_months(
    "janvier,janv;février,fevrier,févr,fevr,fév;mars;avril,avr;mai;juin;juillet,juil;"
    "août,aout,aoû;septembre;octobre;novembre;décembre,decembre,déc"
)
_add_months(
    "enero,ene;febrero;marzo;abril,abr;mayo;junio;julio;agosto,ago;septiembre,setiembre,set;"
    "octubre;noviembre;diciembre,dic"
)
_add_months(
    "januari;februari;maart,mrt;april;mei;juni;juli;augustus;september;oktober;november;december"
)
_add_months(
    "gennaio,gen;febbraio;marzo;aprile;maggio,mag;giugno,giu;luglio,lug;agosto;settembre;"
    "ottobre,ott;novembre;dicembre"
)

_MONTH_ALT = "|".join(sorted((re.escape(k) for k in _MONTHS), key=len, reverse=True))
_DATE_PATTERNS = [
    # ISO 2024-03-05
    ("ymd", re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")),
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
    # August 3, 2014 / Aug 3 , 2014
    (
        "mdy_name",
        re.compile(
            rf"(?<![A-Za-z])({_MONTH_ALT})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(\d{{4}})(?!\d)",
            re.IGNORECASE,
        ),
    ),
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
    s = normalise_spaces(text)
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
                elif b > 12:
                    d = _mkdate(y, a, b)
                elif month_first and g[1] == "/":
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
