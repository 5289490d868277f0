"""The invoice currency on the page.

Fails closed: a code, a symbol or a word must be printed; a bare '$' becomes USD only with a
review reason.
"""

from __future__ import annotations

from ..candidates import Cand
from ..geometry import DocText
from ..values.currencies import CURRENCIES, ISO_CODE, SYMBOLS
from ..vocabulary import VOCABULARY as V


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
        for sym, code in SYMBOLS.items():
            k = t.find(sym)
            if k >= 0:
                counts[code] = counts.get(code, 0) + t.count(sym)
                first.setdefault(code, (i, k, k + len(sym)))
    for rx, code in V.currency_words:
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
