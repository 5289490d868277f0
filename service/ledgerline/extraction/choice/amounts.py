"""Choosing net, VAT, gross and amount due together so that they add up where the page allows.

Every combination of the best few candidates of each total (or none) is scored: the sum of the
candidates' scores, plus a bonus where net + VAT = gross, minus penalties for combinations no
invoice prints (VAT above net, amount due above gross). The best combination wins; where it is
consistent its confidence rises, where it is not a missing total may be derived from the others.
"""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import product

from ..candidates import Candidate, Evidence
from ..document import AMOUNT_FIELDS
from ..geometry import DocText

TOLERANCE = Decimal("0.02")  # net + tax may miss gross by this much (rounding per line)
TAX_ROWS_SUM_FACTOR = 0.85  # a sum of VAT rows is a little less sure than its least sure row
REPEATED_VALUE_BONUS = 0.08  # the same value read from several lines
LAST_PAGE_BONUS = 0.03  # totals stand at the end of the document
DERIVED_SCORE = 0.55  # a total computed from the other two


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
        score = min(c.score for c in distinct.values()) * TAX_ROWS_SUM_FACTOR
        evidence = Evidence("sum_of_tax_rows", facts={"rows": len(distinct)})
        cands["tax_total"].append(
            Candidate("tax_total", total, None, None, None, None, evidence, score, derived=True)
        )


# --------------------------------------------------------------------------- choosing
def _merge(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per value; repeated evidence raises the score a little."""
    by_value: dict = {}
    lines: dict = {}
    for c in cands:
        key = c.value
        prev = by_value.get(key)
        lines.setdefault(key, set()).add(c.line)
        if prev is None:
            by_value[key] = Candidate(
                c.field, c.value, c.raw, c.page, c.bbox, c.line, c.evidence, c.score, c.derived
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
            c.score = min(1.0, c.score + REPEATED_VALUE_BONUS)
    return sorted(out, key=lambda c: -c.score)


# How many candidates of each total enter the joint choice (best first).
POOL_SIZE = {"net_total": 6, "tax_total": 10, "gross_total": 6, "amount_due": 4}
CONSISTENT_BONUS = 1.5  # net + tax = gross
INCONSISTENT_PENALTY = 0.6  # all three present, and they do not add up
GROSS_BELOW_NET_PENALTY = 0.3
DUE_EQUALS_GROSS_BONUS = 0.3
DUE_ABOVE_GROSS_PENALTY = 0.5
TAX_ABOVE_NET_PENALTY = 0.5
CONSISTENT_CEILING = 0.98  # confidence of a consistent total: halfway to 1, at most this
INCONSISTENT_CEILING = 0.75  # confidence of a total in an inconsistent choice
CONFIDENT = 0.85  # net and gross this sure, with no VAT total that fits: derive the VAT


def _combination_score(n, t, g, d) -> tuple[float, bool]:
    """(score, net + tax = gross) of one combination; None stands for "not printed"."""
    s = sum(c.score for c in (n, t, g, d) if c is not None)
    ok = False
    if n is not None and t is not None and g is not None:
        if abs(n.value + t.value - g.value) <= TOLERANCE and g.value != 0:
            s += CONSISTENT_BONUS
            ok = True
        else:
            s -= INCONSISTENT_PENALTY
    elif n is not None and g is not None:
        if n.value == g.value or abs(g.value) < abs(n.value):
            s -= GROSS_BELOW_NET_PENALTY if abs(g.value) < abs(n.value) else 0.0
    if g is not None and d is not None:
        if d.value == g.value:
            s += DUE_EQUALS_GROSS_BONUS
        elif abs(d.value) > abs(g.value) + TOLERANCE:
            s -= DUE_ABOVE_GROSS_PENALTY
    if n is not None and t is not None and abs(t.value) > abs(n.value):
        s -= TAX_ABOVE_NET_PENALTY
    return s, ok


def _derived(field: str, value) -> Candidate:
    return Candidate(field, value, None, None, None, score=DERIVED_SCORE, derived=True)


def _settle(choice: dict, consistent: bool) -> None:
    """Confidence of the chosen totals, and a missing one derived where the others allow it."""
    n, t, g = choice["net_total"], choice["tax_total"], choice["gross_total"]
    if consistent:
        for c in (n, t, g):
            c.score = min(CONSISTENT_CEILING, c.score * 0.5 + 0.5)
        return
    if (
        g is not None
        and n is not None
        and abs(g.value) >= abs(n.value)
        and (t is None or (n.score >= CONFIDENT and g.score >= CONFIDENT and t.score < n.score))
    ):
        # confident net and gross, no printed VAT total that fits: their difference is the VAT
        choice["tax_total"] = _derived("tax_total", g.value - n.value)
    elif g is not None and t is not None and n is None:
        choice["net_total"] = _derived("net_total", g.value - t.value)
    elif n is not None and t is not None and g is None:
        choice["gross_total"] = _derived("gross_total", n.value + t.value)
    for c in (n, t, g):
        if c is not None:
            c.score = min(c.score, INCONSISTENT_CEILING)


def choose_amounts(
    dt: DocText, cands: dict[str, list[Candidate]]
) -> tuple[dict[str, Candidate | None], bool]:
    """Pick net/tax/gross/due jointly; returns (choice, arithmetic_consistent)."""
    last_page = max(dt.by_page) if dt.by_page else 1
    pools = {}
    for f in AMOUNT_FIELDS:
        merged = _merge(cands.get(f, []))
        for c in merged:
            if c.page == last_page:
                c.score += LAST_PAGE_BONUS
        pools[f] = merged[: POOL_SIZE[f]] + [None]
    best, best_score, best_ok = None, -1.0, False
    for combination in product(*(pools[f] for f in AMOUNT_FIELDS)):
        s, ok = _combination_score(*combination)
        if s > best_score:
            best, best_score, best_ok = combination, s, ok
    choice = dict(zip(AMOUNT_FIELDS, best or (None,) * len(AMOUNT_FIELDS), strict=True))
    _settle(choice, best_ok)
    return choice, best_ok


def choose_first(cands: list[Candidate]) -> Candidate | None:
    """The best candidate once repeated values are merged."""
    merged = _merge(cands)
    return merged[0] if merged else None
