"""Corrections: what a person changed in an invoice's extraction, kept apart from the model's.

The model's document (the cached result) never changes: several invoices may share it, and
another caller's cache hit must see what the model said. An invoice keeps an overlay of its
own (`{"fields": {name: value or None}, "line_items": [...], "validations": [...],
"review": {...}}`), and the invoice shows the document with the overlay on top; each corrected
field says `"source": "correction"`, and the checks are those run again on the corrected
values (domain.rechecks).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from .duplicates import number_key, seller_key

CORRECTION = "correction"
SUMMARY_FIELDS = ("invoice_number", "issue_date", "seller_name", "gross_total", "currency")
LINE_ITEMS = "line_items"
CHECKED = ("validations", "review")


def corrected_field(value) -> dict:
    """A field a person set (or cleared): certain, and read from no page."""
    return {"value": value, "confidence": 1.0, "raw": None, "page": None, "bbox": None,
            "source": CORRECTION}


def corrected_document(document: dict | None, overlay: dict | None) -> dict | None:
    """The model's document with the invoice's corrections on top (a copy)."""
    if document is None or not overlay:
        return document
    shown = copy.deepcopy(document)
    for name, value in overlay.get("fields", {}).items():
        shown["fields"][name] = corrected_field(value)
    if LINE_ITEMS in overlay:
        shown["line_items"] = copy.deepcopy(overlay[LINE_ITEMS])
    for part in CHECKED:  # the checks run again on the corrected values (domain.rechecks)
        if part in overlay:
            shown[part] = copy.deepcopy(overlay[part])
    return shown


def changes(shown: dict, fields: dict, line_items: list | None) -> list[dict]:
    """What a correction changes in the document as shown now: [{field, previous, value}].
    Setting a field to the value it already shows is no change."""
    found = []
    for name, value in fields.items():
        # a document stored before a field existed (invoice-v1 had no document type) lacks it
        previous = shown["fields"].get(name, {}).get("value")
        if previous != value:
            found.append({"field": name, "previous": previous, "value": value})
    if line_items is not None and line_items != shown["line_items"]:
        found.append({"field": LINE_ITEMS, "previous": shown["line_items"],
                      "value": line_items})
    return found


def merged(overlay: dict | None, applied: list[dict]) -> dict:
    """The overlay after a correction's changes."""
    result = {"fields": dict((overlay or {}).get("fields", {}))}
    if overlay and LINE_ITEMS in overlay:
        result[LINE_ITEMS] = overlay[LINE_ITEMS]
    for change in applied:
        if change["field"] == LINE_ITEMS:
            result[LINE_ITEMS] = change["value"]
        else:
            result["fields"][change["field"]] = change["value"]
    return result


def summary(shown: dict) -> dict:
    """The invoice's own copies of the summary fields (filters, CSV, duplicate lookup)."""
    values = {name: shown["fields"][name]["value"] for name in SUMMARY_FIELDS}
    values["seller_key"] = seller_key(values["seller_name"])
    values["number_key"] = number_key(values["invoice_number"])
    return values


def etag(version: int) -> str:
    """The invoice's entity tag (quoted in the header): its version, which every correction
    and review resolution moves on."""
    return str(version)


@dataclass(frozen=True)
class IfMatch:
    """A request's `If-Match`: strong tags, or `*` (any current invoice)."""
    tags: frozenset[str]
    any: bool = False

    def holds(self, version: int) -> bool:
        return self.any or etag(version) in self.tags


def with_machine_values(applied: list[dict], model: dict) -> list[dict]:
    """Each change with what the model read (`machine`), beside the person's values: the
    history keeps both however often a field is corrected."""
    out = []
    for change in applied:
        name = change["field"]
        machine = (model.get(LINE_ITEMS) if name == LINE_ITEMS
                   else (model["fields"].get(name) or {}).get("value"))
        out.append({**change, "machine": machine})
    return out
