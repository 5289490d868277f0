"""The hand-tuned scores of candidate evidence.

A label's candidate scores the label's weight times a factor for where the value sits (on the
label's line, right of it, below it) times how clearly it reads as a value; the other kinds of
evidence have a fixed prior. These numbers were tuned by hand on the corpus; the learned ranker
weighs their verdict on the number, the dates and the parties as one of its features.
"""

from __future__ import annotations

from ..candidates import BELOW, RIGHT, SAME_LINE, UNDER_COLUMN_HEADER, Candidate, Evidence

# Where the value sits relative to its label.
POS_SAME, POS_RIGHT, POS_BELOW = 1.0, 0.95, 0.8
PROSE_FACTOR = 0.6  # a label inside running text
BESIDE_VALUE_FACTOR = 0.95  # right of a label whose own line already holds a figure
COLUMN_HEADER_WEIGHT = 0.9  # a cell under its own column header ("HT | TVA | TTC")
LATER_RIGHT_FACTOR = 0.75  # the second and further values right of a label
EARLIER_TAX_FACTOR = 0.8  # VAT rows read "rate  basis  tax": only the last is the tax
WEAK_LABEL_BELOW_FACTOR = 0.75
COLUMN_TOTAL_FACTOR = 1.05  # the last row under a header is a summary table's total
FIRST_DATE_SCORE = 0.4  # the first date of page 1, for an invoice that labels none
HEADER_BONUS = 0.1  # invoice number and issue date at the top of page 1
HEADER_TOP = 0.6

VAT_ID_SCORE = {  # (checksum valid, labelled) -> score
    (True, True): 0.95,
    (False, True): 0.6,
    (True, False): 0.75,
}
IBAN_SCORE = 0.95


def label_score(ev: Evidence) -> float | None:
    """The score of a label's candidate; None for values the rules do not consider (the middle
    rows of a column under a label)."""
    base = ev.label_weight * (PROSE_FACTOR if ev.prose else 1.0)
    if ev.relation == SAME_LINE:
        score = base * POS_SAME
    elif ev.relation == UNDER_COLUMN_HEADER:
        score = COLUMN_HEADER_WEIGHT * POS_RIGHT
    elif ev.relation == RIGHT:
        if ev.beside_value:
            base = base * BESIDE_VALUE_FACTOR
        if ev.label_field == "tax_total":
            order = 1.0 if ev.last else EARLIER_TAX_FACTOR
        else:
            order = 1.0 if ev.rank == 0 else LATER_RIGHT_FACTOR
        score = base * POS_RIGHT * order
    elif ev.relation == BELOW:
        weak = WEAK_LABEL_BELOW_FACTOR if ev.weak_label else 1.0
        if ev.rank == 0:
            score = base * POS_BELOW * weak
        elif ev.last:
            score = base * POS_BELOW * weak * COLUMN_TOTAL_FACTOR
        else:
            return None
    else:
        raise ValueError(f"unknown label relation {ev.relation!r}")
    return score * ev.strength


def scored_labels(cands: list[Candidate]) -> list[Candidate]:
    """The label candidates the rules consider, with their scores set."""
    out = []
    for c in cands:
        if c.evidence.kind != "label":
            continue
        score = label_score(c.evidence)
        if score is not None:
            c.score = score
            out.append(c)
    return out


def header_bonus(cands: list[Candidate]) -> None:
    """Invoice numbers and issue dates are printed at the top of the first page."""
    for c in cands:
        if c.page == 1 and c.line is not None and c.evidence.relative_y > HEADER_TOP:
            c.score += HEADER_BONUS


def vat_id_score(c: Candidate) -> float:
    facts = c.evidence.facts
    return VAT_ID_SCORE[(facts["checksum_valid"], facts["labelled"])]
