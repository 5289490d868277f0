"""The learned field ranker: which candidate is each field's value, and how sure that is.

    choose(dt, found) -> Choice     # the same answer shape as the hand-tuned choice's

For every field it ranks, a LightGBM model (one per field, :mod:`.model`) gives each candidate
place the probability that it holds the field's value, from the features a reader would use
(:mod:`.features`); the totals are then chosen jointly so that they add up (:mod:`.joint`), and
each value's confidence comes from its evidence, calibrated on sources the model had not seen
(:mod:`.confidence`), as does the currency's. Currency, VAT ids and the IBAN keep the hand-tuned
choice, whose verdict on the other fields is one of the ranker's features. The model also holds
each field's acceptance threshold (:mod:`..review`). ``ledgerline-train`` (:mod:`ledgerline_tools.ranker.train`)
rebuilds the model.
"""

from __future__ import annotations

from dataclasses import replace

from ..candidates import Candidate
from ..choice import Choice
from ..finders import FoundCandidates
from ..geometry import DocText
from .model import CURRENCY, FieldPick, describe, load
from .rows import RANKED_FIELDS, document_rows
from .stated import states_no_vat

__all__ = ["RANKED_FIELDS", "choose"]


def _candidate(field: str, pick: FieldPick) -> Candidate | None:
    if pick.value is None:
        return None
    if pick.row is None:
        return Candidate(field, pick.value, None, None, None, score=pick.confidence, derived=True)
    # the label's candidate, where there is one, says best what was read
    best = min(pick.row.cands, key=lambda c: c.evidence.kind != "label")
    return Candidate(
        field, pick.value, best.raw, best.page, best.bbox, best.line, best.evidence,
        score=pick.confidence,
    )


def choose(dt: DocText, found: FoundCandidates, items: list | None = None, ranker=None) -> Choice:
    """``items``: the line items, when the caller has read them already; ``ranker``: the model
    to decide with (the committed one by default; a benchmark passes one trained without the
    document's source)."""
    ranker = ranker or load()
    doc = document_rows(dt, found, items)
    picks = ranker.decide(doc)
    fields = dict(doc.rules.fields)
    for f in RANKED_FIELDS:
        fields[f] = _candidate(f, picks[f])
    currency = fields.get(CURRENCY)
    if currency is not None:  # the rules' choice, with the confidence its evidence earns
        fields[CURRENCY] = replace(currency, score=picks[CURRENCY].confidence)
    notes = {f: describe(f, pick) if pick.value is not None else pick.withheld
             for f, pick in picks.items() if pick.value is not None or pick.withheld}
    evidence = {f: pick.evidence for f, pick in picks.items() if pick.value is not None}
    return Choice(fields, doc.rules.reasons, doc.rules.credit_note, doc.rules.vat_checksum_failed,
                  dict(ranker.thresholds), notes, evidence,
                  states_no_vat(picks, doc.rows, doc.vat_rates))
