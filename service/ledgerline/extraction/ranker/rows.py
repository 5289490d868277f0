"""A document's candidates as feature rows, per ranked field: what training and inference share.

:func:`document_rows` runs the finders' output through the hand-tuned rules (whose verdict is a
feature) and :mod:`.features`, and returns a :class:`DocumentRows`: per field, the rows (one per
printed place of a value) and their feature matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..choice import Choice, choose
from ..document import AMOUNT_FIELDS
from ..finders import FoundCandidates
from ..geometry import DocText
from .features import FEATURE_NAMES, DocContext, Row, field_rows

# The fields the ranker chooses; the others (currency, VAT ids, IBAN) keep their own choice.
RANKED_FIELDS = (
    "invoice_number",
    "issue_date",
    "due_date",
    "purchase_order",
    "seller_name",
    "buyer_name",
    "net_total",
    "tax_total",
    "gross_total",
    "amount_due",
)


@dataclass
class DocumentRows:
    rows: dict[str, list[Row]]
    matrices: dict[str, np.ndarray]  # field -> (len(rows), len(FEATURE_NAMES)) float32
    rules: Choice  # the hand-tuned choice: currency, VAT ids and IBAN come from it as they are


def document_rows(dt: DocText, found: FoundCandidates) -> DocumentRows:
    rules = choose(dt, found)
    scores = {id(c): c.score for cands in found.fields.values() for c in cands}
    ctx = DocContext(dt, found.facts.credit_note)
    rows, matrices = {}, {}
    for f in RANKED_FIELDS:
        pick = rules.fields.get(f)
        pick_value = None if pick is None else pick.value
        if f in AMOUNT_FIELDS and pick_value is not None and found.facts.credit_note:
            pick_value = abs(pick_value)
        got = field_rows(ctx, f, found.fields[f], pick_value, scores)
        rows[f] = got
        matrices[f] = (
            np.asarray([r.x for r in got], dtype=np.float32)
            if got
            else np.zeros((0, len(FEATURE_NAMES)), dtype=np.float32)
        )
    return DocumentRows(rows, matrices, rules)
