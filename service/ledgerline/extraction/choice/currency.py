"""The invoice currency: a labelled code wins; else the currency the page names most often.

Fails closed: a code, a symbol or a word must be printed. A '$' names a currency only where the
page says which dollar (the issuer's country, from its address, VAT id, phone or domain: the
finders resolve it beside the amounts); a bare '$' alone gives no currency and a review reason.
"""

from __future__ import annotations

from ..candidates import Candidate

LABELLED_BASE, LABELLED_SPAN, LABELLED_CEILING = 0.85, 0.1, 0.97
UNANIMOUS = 0.9  # every mention names the same currency
SPLIT_BASE, SPLIT_SPAN = 0.6, 0.3  # otherwise: by the winner's share of the votes
UNPLACED_FACTOR = 0.9  # named by a word only: no place on the page to show


def choose_currency(
    labelled: list[Candidate], mentions: list[Candidate]
) -> tuple[Candidate | None, str | None]:
    """(choice, review reason); ``labelled`` already scored."""
    if labelled:
        best = max(labelled, key=lambda c: c.score)
        score = min(LABELLED_CEILING, LABELLED_BASE + LABELLED_SPAN * best.score)
        return Candidate(
            "currency", best.value, best.raw, best.page, best.bbox, best.line, best.evidence, score
        ), None
    counts: dict[str, int] = {}
    first: dict[str, Candidate] = {}
    for c in mentions:
        if c.evidence.kind == "dollar_sign":
            continue
        counts[c.value] = counts.get(c.value, 0) + c.evidence.facts["votes"]
        if c.page is not None:
            first.setdefault(c.value, c)
    if counts:
        code = max(counts, key=lambda c: counts[c])
        total = sum(counts.values())
        conf = (
            UNANIMOUS if counts[code] == total else SPLIT_BASE + SPLIT_SPAN * counts[code] / total
        )
        if code in first:
            c = first[code]
            return Candidate(
                "currency", code, c.raw, c.page, c.bbox, c.line, c.evidence, conf
            ), None
        return Candidate("currency", code, None, None, None, score=conf * UNPLACED_FACTOR), None
    if any(c.evidence.kind == "dollar_sign" for c in mentions):
        return None, ("currency: only a '$' sign is printed and the page does not say which "
                      "dollar (no country, address or tax id names one)")
    return None, "currency: no currency printed on the invoice"
