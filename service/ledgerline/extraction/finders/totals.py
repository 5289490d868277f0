"""Choosing net, VAT, gross and amount due together so that they add up where the page allows."""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import product

from ..candidates import Cand
from ..document import AMOUNT_FIELDS
from ..geometry import DocText
from ..vocabulary import VOCABULARY as V

TOLERANCE = Decimal("0.02")


_RATE_IN_ROW = re.compile(r"\d\s?%|%\s?\d")


def add_tax_sum(dt: DocText, cands: dict) -> None:
    """Several VAT rows without a VAT total: their sum is a tax total candidate."""
    rows = {}
    for c in cands["tax_total"]:
        if c.line is None:
            continue
        row_text = " ".join(dt.lines[j].text for j in dt.row_of(c.line))
        if _RATE_IN_ROW.search(row_text) or re.search(
            r"\b\d{1,2}(?:[.,]\d{1,2})?\s*$", dt.lines[c.line].text
        ):
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
    return any(V.credit_note_titles.search(t) for t in head)


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
            by_value[key] = Cand(
                c.field, c.value, c.score, c.raw, c.page, c.bbox, c.line, c.derived
            )
        elif c.score > prev.score:
            prev.score, prev.raw, prev.page, prev.bbox, prev.line = (
                c.score,
                c.raw,
                c.page,
                c.bbox,
                c.line,
            )
    out = list(by_value.values())
    for c in out:
        if len(lines[c.value]) > 1:
            c.score = min(1.0, c.score + 0.08)
    return sorted(out, key=lambda c: -c.score)


_POOL = {"net_total": 6, "tax_total": 10, "gross_total": 6, "amount_due": 4}


def choose_amounts(
    dt: DocText, cands: dict[str, list[Cand]]
) -> tuple[dict[str, Cand | None], bool]:
    """Pick net/tax/gross/due jointly; returns (choice, arithmetic_consistent)."""
    last_page = max(dt.by_page) if dt.by_page else 1
    pools = {}
    for f in AMOUNT_FIELDS:
        merged = _merge(cands.get(f, []))
        for c in merged:
            if c.page == last_page:
                c.score += 0.03
        pools[f] = merged[: _POOL[f]] + [None]
    best, best_score, best_ok = None, -1.0, False
    for n, t, g, d in product(
        pools["net_total"], pools["tax_total"], pools["gross_total"], pools["amount_due"]
    ):
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
        if (
            g is not None
            and n is not None
            and abs(g.value) >= abs(n.value)
            and (t is None or (n.score >= 0.85 and g.score >= 0.85 and t.score < n.score))
        ):
            # confident net and gross, no printed VAT total that fits: their difference is the VAT
            choice["tax_total"] = Cand(
                "tax_total", g.value - n.value, 0.55, None, None, None, derived=True
            )
        elif g is not None and t is not None and n is None:
            choice["net_total"] = Cand(
                "net_total", g.value - t.value, 0.55, None, None, None, derived=True
            )
        elif n is not None and t is not None and g is None:
            choice["gross_total"] = Cand(
                "gross_total", n.value + t.value, 0.55, None, None, None, derived=True
            )
        for c in (n, t, g):
            if c is not None:
                c.score = min(c.score, 0.75)
    return choice, best_ok


def choose_first(cands: list[Cand], prefer_top: bool = True) -> Cand | None:
    merged = _merge(cands)
    if not merged:
        return None
    return merged[0]
