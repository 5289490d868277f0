"""Where the page names a currency (the labelled "Currency: EUR" comes with the header fields)."""

from __future__ import annotations

from ..candidates import Candidate, Evidence
from ..geometry import DocText
from ..values.currencies import CURRENCIES, ISO_CODE, SYMBOLS
from ..vocabulary import VOCABULARY as V

# An ISO code counts on a line that carries an amount or is this short (a "Currency: EUR" cell).
SHORT_LINE_CHARS = 40
CODE_VOTES = 2  # a printed code says more than a symbol or a word


def currency_mentions(dt: DocText) -> list[Candidate]:
    """Every printed sign of a currency, in reading order: ISO codes, unambiguous symbols,
    currency words; last, the first '$' (which alone says USD only by assumption).

    ``evidence.facts["votes"]`` is what the mention counts for: 2 for a code, the number of times
    a symbol occurs on its line, 1 for a word anywhere in the document."""
    out = []
    for i, ln in enumerate(dt.lines):
        t = ln.text
        for m in ISO_CODE.finditer(t):
            code = m.group(0)
            if code in CURRENCIES and (dt.amounts(i) or len(t) < SHORT_LINE_CHARS):
                out.append(_mention(dt, i, code, m.start(), m.end(), "iso_code", CODE_VOTES))
        for sym, code in SYMBOLS.items():
            k = t.find(sym)
            if k >= 0:
                out.append(_mention(dt, i, code, k, k + len(sym), "symbol", t.count(sym)))
    for rx, code in V.currency_words:
        if rx.search(dt.full_folded):
            out.append(
                Candidate(
                    "currency",
                    code,
                    None,
                    None,
                    None,
                    None,
                    Evidence("currency_word", facts={"votes": 1}),
                )
            )
    for i, ln in enumerate(dt.lines):
        s = ln.text.find("$")
        if s >= 0:
            out.append(_mention(dt, i, "USD", s, s + 1, "dollar_sign", 0))
            break
    return out


def _mention(dt: DocText, i: int, code: str, s: int, e: int, kind: str, votes: int) -> Candidate:
    ln = dt.lines[i]
    evidence = Evidence(kind, relative_y=dt.relative_y(i), facts={"votes": votes})
    return Candidate("currency", code, ln.text[s:e], ln.page, ln.span_bbox(s, e), i, evidence)
