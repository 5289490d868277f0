"""Seller and buyer names: hand-tuned priors per kind of evidence, then the best name.

Evidence, strongest first: a party label heading the block the name is in; the sender line
above the address window and the recipient block below it; the account holder of the bank
details; a company name with a legal form (in the letterhead or footer more than in the body);
the first line of the letterhead. A name also found as the buyer's is never the seller.
"""

from __future__ import annotations

import re

from ..candidates import RIGHT, Candidate
from ..finders import parties as found
from ..geometry import DocText
from ..vocabulary import VOCABULARY as V

LABELLED_SCORE = {"seller_name": 0.85, "buyer_name": 0.8}
BESIDE_LABEL_FACTOR = 0.95  # the name in the cell right of the label, not under it
PRIOR = {
    found.SENDER_LINE: 0.75,
    found.BELOW_SENDER_LINE: 0.7,
    found.ACCOUNT_HOLDER: 0.6,
    found.LETTERHEAD: 0.35,
    found.RECIPIENT_BLOCK: 0.5,
    found.SIGNATURE_BLOCK: 0.6,
}
LEGAL_FORM_IN_MARGIN, LEGAL_FORM_IN_BODY = 0.65, 0.45
LATER_PAGE_PENALTY = 0.1  # a legal-form name not on page 1
STRONG = 0.8  # names this sure absorb the weaker ones they contain
MERGED_BONUS, MERGED_CEILING = 0.1, 0.97
REPEATED_BONUS, REPEATED_CEILING = 0.08, 0.95  # a legal-form name printed more than once


def _prior(c: Candidate) -> float:
    ev = c.evidence
    if ev.kind == found.PARTY_LABEL:
        score = LABELLED_SCORE[c.field]
        return score * BESIDE_LABEL_FACTOR if ev.relation == RIGHT else score
    if ev.kind == found.LEGAL_FORM:
        zone = LEGAL_FORM_IN_MARGIN if ev.facts["margin"] else LEGAL_FORM_IN_BODY
        if c.page != 1:
            zone -= LATER_PAGE_PENALTY
        return zone
    return PRIOR[ev.kind]


def _key(value) -> str:
    return re.sub(r"\W", "", str(value).lower())


def _strip_declared_form(dt: DocText, cands: list[Candidate]) -> None:
    """French mentions state the legal form apart from the name ("SARL au capital de 120 000 €"):
    there the company's name (dénomination) is the printed name without that form."""
    m = next(filter(None, (rx.search(dt.full_folded) for rx in V.declared_capital)), None)
    if not m:
        return
    form = m.group(1)
    for c in cands:
        name = str(c.value)
        stripped = re.sub(rf"[\s,]+{form}\.?$", "", name, flags=re.IGNORECASE)
        if stripped != name and len(stripped) >= 2:
            c.value = stripped


def _merge_names(labelled: list[Candidate], others: list[Candidate]) -> list[Candidate]:
    """One candidate per name.  A name inside a labelled block's longer name (the legal-form
    line of a two-line name) supports that block instead of competing with it."""
    by_name: dict[str, Candidate] = {}
    for c in sorted(labelled, key=lambda c: -c.score) + sorted(others, key=lambda c: -c.score):
        key = _key(c.value)
        hit = by_name.get(key)
        if hit is None and c not in labelled:
            hit = next((v for k, v in by_name.items() if key and key in k and v in labelled), None)
        if hit is None:
            by_name[key] = c
        else:
            hit.score = min(MERGED_CEILING, max(hit.score, c.score) + MERGED_BONUS)
    return list(by_name.values())


def choose_seller(dt: DocText, seller: list[Candidate], buyer: list[Candidate]):
    for c in seller:
        c.score = _prior(c)
    counts: dict[str, int] = {}
    for c in seller:
        if c.evidence.kind == found.LEGAL_FORM:
            key = c.evidence.facts["name_key"]
            counts[key] = counts.get(key, 0) + 1
    buyer_names = {str(c.value).lower() for c in buyer}
    seller = [c for c in seller if str(c.value).lower() not in buyer_names]
    _strip_declared_form(dt, seller)
    seller = _merge_names(
        [c for c in seller if c.score >= STRONG], [c for c in seller if c.score < STRONG]
    )
    for c in seller:
        n = counts.get(str(c.value).lower(), 0)
        if n > 1:
            c.score = min(REPEATED_CEILING, c.score + REPEATED_BONUS * (n - 1))
    return max(seller, key=lambda c: (c.score, -c.page, -(c.line or 0))) if seller else None


def choose_parties(dt: DocText, seller: list[Candidate], buyer: list[Candidate]) -> dict:
    """{"seller_name": …, "buyer_name": …}; ``buyer`` holds the labelled candidates first, then
    the unlabelled address blocks, which count only when nothing labels the buyer."""
    labelled_buyer = [c for c in buyer if c.evidence.kind != found.RECIPIENT_BLOCK]
    best_seller = choose_seller(dt, seller, labelled_buyer)
    if labelled_buyer:
        candidates = labelled_buyer
    else:
        seller_key = _key(best_seller.value) if best_seller else None
        candidates = [
            c
            for c in buyer
            if not (
                seller_key
                and (c.evidence.facts["key"] in seller_key or seller_key in c.evidence.facts["key"])
            )
        ][:1]
    for c in candidates:
        c.score = _prior(c)
    best_buyer = max(candidates, key=lambda c: c.score) if candidates else None
    return {"seller_name": best_seller, "buyer_name": best_buyer}
