"""Locale-tolerant parsing of printed amounts and percentages.

Amounts come back as :class:`decimal.Decimal` (never floats).  Separators seen on invoices:
``1.234,56`` ``1 234,56`` ``1,234.56`` ``1'234.56`` (and the typographic apostrophe / thin
spaces).  A lone separator followed by exactly three digits (``1,234``) is ambiguous; the caller
passes the document's decimal separator as ``decimal_hint`` to settle it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext

from ..text import normalise_text

_APOSTROPHES = "'\u2019\u02bc"
# An amount may close with the Japanese yen's or the Chinese yuan's sign ("1,616,650円", "50元"),
# a letter to Python, where another letter after figures makes them an identifier's.
YEN_AND_YUAN = "円元"
_MINUS = "-\u2212\u2013\u2012"

# A number token: optional sign, digit groups with separators, optional decimals.
_NUM_CORE = (
    r"(?:\d{1,3}(?:[ .,'\u2019](?=\d{3}(?!\d))\d{3})+(?:[.,]\d{1,4})?"  # grouped
    r"|\d+(?:[.,]\d{1,4})?"  # plain
    r"|[.,]\d{1,2})"
)
_AMOUNT_RE = re.compile(
    rf"(?P<lp>\()?\s*(?P<sign>[{_MINUS}+])?\s*"
    r"(?P<cur1>[A-Z]{3}|[$€£¥￥₹]|CHF|Fr\.|Rs\.?)?\s*"
    rf"(?P<sign2>[{_MINUS}])?\s*"
    rf"(?P<num>{_NUM_CORE})"
    r"(?![\d])"
    r"\s*(?P<cur2>[A-Z]{3}(?![A-Za-z])|[$€£¥￥₹]|CHF|[円元])?"
    rf"(?P<tsign>[{_MINUS}](?![\d]))?"
    r"\s*(?P<rp>\))?"
)


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
            # 1.234.567: grouping only; 1.234.56, OCR's reading of 1,234.56: a last group that
            # is no group of three is the decimals
            dec = None if len(tail) == 3 else sep
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
        digits = (int_part.replace(other, "").replace(dec, "") or "0") + "." + frac
    try:
        return Decimal(digits), dec is not None
    except InvalidOperation:
        return None


def parse_amount(text: str, decimal_hint: str | None = None) -> Decimal | None:
    """Parse one amount from ``text`` (which should hold little else); None if not an amount."""
    if text is None:
        return None
    s = normalise_text(str(text)).strip()
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
    r"(?P<cur1>[$€£¥￥₹]\s?)?"
    rf"(?P<sign2>[{_MINUS}])?"
    rf"(?P<num>\d{{1,3}}(?:(?P<g>[ .,'\u2019])\d{{3}}(?:(?P=g)\d{{3}})*)?(?:[.,]\d{{2,4}})?"
    rf"|\d+(?:[.,]\d{{2,4}})?)"
    r"(?![\d])(?!\.\d)(?!,\d)"
    r"(?P<cur2>\s?[$€£¥￥₹])?"
    rf"(?P<tsign>[{_MINUS}](?!\d))?(?P<rparen>\))?"
)


_LEADERS = re.compile(r"\.{2,}|_{2,}|…+|-{3,}|·{2,}")  # dot leaders keep their length


# OCR's reading of "300,000.00" with a space after the thousands separator: "300, 000.00". Only
# groups of three closed by decimals under the other mark read so; "1, 234" stays two numbers.
_SPACED_GROUPS = re.compile(r"(?<![\w.,/])\d{1,3}(?:([.,]) \d{3})+(?!\1)[.,]\d{2}(?![\d])")


def _close_spaced_groups(s: str) -> tuple[str, dict[int, int]]:
    """The text with such amounts' spaces moved after them (the length kept, so positions
    hold), and each one's start -> its end as printed."""
    ends: dict[int, int] = {}

    def close(m: re.Match) -> str:
        ends[m.start()] = m.end()
        token = m.group(0)
        return token.replace(" ", "") + " " * token.count(" ")

    return _SPACED_GROUPS.sub(close, s), ends


def find_amounts(
    text: str, decimal_hint: str | None = None
) -> list[tuple[Decimal, int, int, bool]]:
    """All amount-looking tokens in a line: (value, start, end, has_decimals)."""
    s = _LEADERS.sub(lambda m: " " * len(m.group()), normalise_text(text))
    s, spaced = _close_spaced_groups(s)
    out = []
    for m in _FIND_RE.finditer(s):
        num = m.group("num")
        # dates, times and identifiers are not amounts
        tail = s[m.end() : m.end() + 1]
        if tail and (tail.isalpha() and tail not in YEN_AND_YUAN) and not tail.isspace():
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
        end = spaced.get(m.start("num"), m.end())
        out.append((-value if neg else value, m.start(), max(end, m.end()), has_dec))
    return out


def parse_percent(text: str) -> Decimal | None:
    m = re.search(r"(\d{1,2}(?:[.,]\d{1,3})?)\s*%", normalise_text(text or ""))
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
