"""Candidates: every value the finders read for a field, with the evidence that speaks for it.

Finders (``finders/``) generate candidates and never score them; the choice step (``choice/``)
scores the evidence and picks one value per field. A candidate's ``score`` is 0 until the choice
step sets it. :class:`Evidence` holds what a person would look at: which label points at the
value (its text, weight and language), where the value sits relative to that label (same line,
right of it, below it, under a column header), how clearly it reads as a value of its type, and
kind-specific facts (a VAT id's checksum, whether a tax row prints a rate, ...).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

# Where a value sits relative to the label that names its field.
SAME_LINE = "same_line"
RIGHT = "right"  # a cell further right on the label's row
BELOW = "below"  # in the column under the label
UNDER_COLUMN_HEADER = "under_column_header"  # right of the label, but under another header


@dataclass(frozen=True, slots=True)
class Evidence:
    kind: str  # what found the value: "label", "first_date", "party_label", "iso_code", ...
    label_field: str | None = None  # the field the label names
    label_weight: float | None = None  # how specific the label is (vocabulary weight)
    label_language: str | None = None  # "en", "de", …, or "*" for cross-language labels
    label_text: str | None = None  # the label as printed (folded)
    label_line: int | None = None  # the label's line (index into the geometry index)
    relation: str | None = None  # SAME_LINE, RIGHT, BELOW, UNDER_COLUMN_HEADER
    rank: int = 0  # 0 for the nearest value in that relation, then 1, 2, …
    last: bool = False  # the last of several values in that relation (a column's total)
    beside_value: bool = False  # right of a label whose own line already carries a value
    prose: bool = False  # the label sits in a long line of running text
    weak_label: bool = False  # the label only hints at the field
    strength: float = 1.0  # how clearly the text reads as a value of its type
    relative_y: float | None = None  # of the value's line: 0 at the bottom, 1 at the top
    facts: dict = field(default_factory=dict)  # kind-specific, documented where they are set


NO_EVIDENCE = Evidence("derived")


@dataclass
class Candidate:
    field: str
    value: object
    raw: str | None
    page: int | None
    bbox: list | None
    line: int | None = None
    evidence: Evidence = NO_EVIDENCE
    score: float = 0.0  # set by the choice step
    derived: bool = False  # computed from other values, not read from the page

    def out_value(self):
        v = self.value
        if isinstance(v, _dt.date):
            return v.isoformat()
        return v
