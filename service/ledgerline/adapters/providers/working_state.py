"""The bounded working state a long document is read with, one page window at a time.

Sending every earlier page again with each new one makes a document's input grow with the
square of its pages (t·n(n+1)/2 tokens for n pages of t tokens). Instead each request carries
the current window and this state: the fields confirmed so far with the page each came from,
the item table still open (its columns and how many rows it had), the totals seen, and the
conflicts not yet resolved. The model reports what the window shows; this code, not the model,
merges it into the state, so exact values stay exact (copied, never paraphrased) and the state
never becomes prose. Every part is capped, so a request's input is bounded by a constant and a
document's total grows linearly with its pages. Line items are collected outside the state:
they go into the document, not into the next request.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...extraction.document import AMOUNT_FIELDS, FIELD_NAMES

MAX_VALUE_CHARS = 200  # a longer value is no invoice field; kept out of the state
MAX_TOTALS_SEEN = 8    # the latest totals read (a long invoice carries subtotals forward)
MAX_CONFLICTS = 8      # unresolved readings beyond this are counted, not carried
MAX_COLUMNS = 12


@dataclass
class Reading:
    value: str
    printed: str | None
    page: int


@dataclass
class WorkingState:
    fields: dict[str, Reading] = field(default_factory=dict)
    table_columns: list[str] = field(default_factory=list)
    table_rows: int = 0        # item rows read so far, all windows together
    table_open: bool = False
    totals_seen: list[dict] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    conflicts_dropped: int = 0

    def for_prompt(self) -> str:
        """The state as the next request sends it: compact JSON, bounded in size."""
        return json.dumps({
            "confirmed_fields": {name: {"value": r.value, "page": r.page}
                                 for name, r in self.fields.items()},
            "open_item_table": ({"columns": self.table_columns, "rows_so_far": self.table_rows}
                                if self.table_open else None),
            "totals_seen": self.totals_seen,
            "unresolved_conflicts": self.conflicts,
        }, ensure_ascii=False, separators=(",", ":"))

    def merge(self, findings: dict, page_of) -> list[dict]:
        """Take in one window's findings; return its line items. `page_of(printed)` says on
        which of the window's pages a reading's printed text is."""
        for name in FIELD_NAMES:
            reported = (findings.get("fields") or {}).get(name) or {}
            value = reported.get("value")
            if isinstance(value, str) and value.strip() and len(value) <= MAX_VALUE_CHARS:
                printed = reported.get("printed")
                printed = printed if isinstance(printed, str) and printed.strip() else None
                self._take(name, Reading(value.strip(), printed, page_of(printed or value)))
        items = [i for i in findings.get("line_items") or [] if isinstance(i, dict)]
        self.table_rows += len(items)
        self.table_open = bool(findings.get("table_continues"))
        columns = [c for c in findings.get("table_columns") or [] if isinstance(c, str)]
        if columns:
            self.table_columns = [c[:MAX_VALUE_CHARS] for c in columns[:MAX_COLUMNS]]
        elif not self.table_open:
            self.table_columns = []
        return items

    def _take(self, name: str, reading: Reading) -> None:
        known = self.fields.get(name)
        if known is None or known.value == reading.value:
            self.fields.setdefault(name, reading)
            return
        if name in AMOUNT_FIELDS:
            # Totals: the later page's figure is the invoice's (earlier pages carry subtotals
            # forward); what was replaced is remembered among the totals seen.
            self._remember_total(name, known)
            self.fields[name] = reading
            return
        self._conflict(name, known, reading)

    def _remember_total(self, name: str, reading: Reading) -> None:
        self.totals_seen.append({"field": name, "value": reading.value, "page": reading.page})
        del self.totals_seen[:-MAX_TOTALS_SEEN]

    def _conflict(self, name: str, kept: Reading, other: Reading) -> None:
        if len(self.conflicts) >= MAX_CONFLICTS:
            self.conflicts_dropped += 1
            return
        self.conflicts.append({"field": name, "kept": {"value": kept.value, "page": kept.page},
                               "other": {"value": other.value, "page": other.page}})

    def review_reasons(self) -> list[str]:
        reasons = [f"{c['field']}: page {c['kept']['page']} shows {c['kept']['value']!r}, page "
                   f"{c['other']['page']} {c['other']['value']!r}" for c in self.conflicts]
        if self.conflicts_dropped:
            reasons.append(f"{self.conflicts_dropped} more conflicting readings not listed")
        return reasons

