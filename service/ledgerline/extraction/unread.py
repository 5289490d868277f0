"""Labels OCR read with no value beside them: a value the page prints that could not be read.

A stain, a fold or a smudge over a printed value leaves its label legible and the value not.
The ranker then takes the best of what is left (a company registration number for the invoice
number, the delivery date for the issue date), as sure of it as if the page printed nothing
else: on the text layers it learned from, a label's value is never illegible, and the scans its
OCR calibration was fitted on had no such stains. So where OCR read a field's label with no
value of the field at, beside or below it, the field's value is not taken without review
(:mod:`.pipeline`), whatever its confidence.
"""

from __future__ import annotations

from .finders import FoundCandidates
from .finders.header_fields import PROSE_LINE_CHARS, WEAK_LABEL_WEIGHT
from .finders.labels import match_labels, resolve
from .geometry import DocText

# The fields of one printed value each, found by their labels, that a document is accepted on.
FIELDS = ("invoice_number", "issue_date")


def unread_labels(dt: DocText, found: FoundCandidates) -> dict[str, str]:
    """field -> the label, as OCR read it, of each field whose label stands on an OCR'd line
    without a value of the field found from it. Prose and weak labels (that only hint at their
    field) do not count: running text names fields without printing them."""
    out = {}
    for field in FIELDS:
        used = {c.evidence.label_line for c in found.fields.get(field, ())
                if c.evidence.kind == "label"}
        for i, folded in enumerate(dt.folded):
            if i in used or dt.lines[i].confidences is None or len(folded) > PROSE_LINE_CHARS:
                continue
            hits = [h for h in resolve(match_labels(folded, (field,)), folded)
                    if h.field == field and h.weight >= WEAK_LABEL_WEIGHT]
            if hits:
                out[field] = folded[hits[0].start:hits[0].end]
                break
    return out
