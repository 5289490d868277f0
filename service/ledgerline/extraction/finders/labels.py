"""Label hits on one line of folded text, and their resolution into the labels that count.

A hit is a place where a field's label is printed, with the label's weight (how specific it is)
and its language. :func:`match_labels` finds every hit of the vocabulary's labels; :func:`resolve`
keeps the ones that count when labels overlap or qualify each other.
"""

from __future__ import annotations

import re
from functools import cache

from ..document import AMOUNT_FIELDS
from ..vocabulary import VOCABULARY as V

# "excl. VAT" / "inkl. USt." qualify a total when they come at most this many characters
# before the VAT label; the qualified total then counts at least this much.
QUALIFIER_REACH = 14
QUALIFIED_TOTAL_WEIGHT = 0.9
# "Rechnungssumme Netto": amount labels at most this many characters apart merge.
ADJACENT_LABEL_GAP = 3


class LabelHit:
    __slots__ = ("end", "field", "language", "start", "weight")

    def __init__(self, field: str, start: int, end: int, weight: float, language: str = "*"):
        self.field, self.start, self.end, self.weight = field, start, end, weight
        self.language = language

    def __repr__(self) -> str:
        return f"LabelHit({self.field!r}, {self.start}, {self.end}, {self.weight})"


@cache
def _any_label(field: str) -> re.Pattern:
    """One pattern that finds whether any label of this field could be on a line."""
    return re.compile("|".join(f"(?:{label.pattern.pattern})" for label in V.labels[field]))


def warm() -> None:
    """Compile every field's pattern now. The sandbox's fork server does, before it forks a
    child per document; compiled in the child, they cost each document tens of milliseconds."""
    for field in V.labels:
        _any_label(field)


def match_labels(folded: str, fields, prev=None) -> list[LabelHit]:
    """Label hits of the given fields in a folded line (all matches, overlaps included).

    ``prev`` gives the text before the line (the cell to its left or the line above), as a string
    or a callable; context conditions of a hit at the start of a line read it.
    """
    if not any(_any_label(name).search(folded) for name in fields):
        return []
    hits = []
    prev_text = None
    for name in fields:
        for label in V.labels[name]:
            before, not_before = label.before, label.not_before
            for m in label.pattern.finditer(folded):
                if m.end() <= m.start():
                    continue
                head = folded[: m.start()]
                if (
                    not head.strip()
                    and prev is not None
                    and (before is not None or not_before is not None)
                ):
                    if prev_text is None:
                        prev_text = prev() if callable(prev) else prev
                    head = prev_text + " "
                if before is not None and not before.search(head):
                    continue
                if not_before is not None and not_before.search(head):
                    continue
                hits.append(LabelHit(name, m.start(), m.end(), label.weight, label.language))
    return hits


def resolve(hits: list[LabelHit], folded: str = "") -> list[LabelHit]:
    """Clean up the label hits of one line.

    Hits inside a longer hit go; "excl. VAT" / "inkl. USt." qualify the total before them (net /
    gross) instead of being a VAT label; adjacent amount labels ("Rechnungssumme Netto") merge
    into the later, more specific one.
    """
    hits = sorted(hits, key=lambda h: (h.start, -(h.end - h.start)))
    kept = []
    for h in hits:
        if any(
            k.start <= h.start and h.end <= k.end and (k.end - k.start) > (h.end - h.start)
            for k in hits
        ):
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
            pre = folded[max(prev.end, h.start - QUALIFIER_REACH) : h.start]
            if V.excluding.search(pre) or V.including.search(pre):
                prev.field = "net_total" if V.excluding.search(pre) else "gross_total"
                prev.weight = max(prev.weight, QUALIFIED_TOTAL_WEIGHT)
                prev.end = h.end
                tail = re.match(r"[.)\s]*\)", folded[h.end :])
                if tail:
                    prev.end = h.end + tail.end()
                continue
        if (
            prev is not None
            and prev.field == "gross_total"
            and h.field in AMOUNT_FIELDS
            and h.start - prev.end <= ADJACENT_LABEL_GAP
            and not folded[prev.end : h.start].strip(" -")
        ):
            prev.field, prev.end = h.field, h.end
            prev.weight = max(prev.weight, h.weight)
            continue
        out.append(h)
    return out
