"""The chat provider's parts that need no server: the strict schema built from invoice-v2, the
bounded working state, and the layout text a model reads."""
from __future__ import annotations

import json

import jsonschema

from ledgerline.adapters.providers.findings_schema import findings_schema, response_format
from ledgerline.adapters.providers.layout_text import page_text
from ledgerline.adapters.providers.working_state import MAX_CONFLICTS, MAX_TOTALS_SEEN, WorkingState
from ledgerline.extraction.document import FIELD_NAMES, LINE_ITEM_KEYS
from tests.standins.openai_api import _strict_problem


def objects(node):
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


def test_the_schema_is_strict_and_made_of_invoice_v2s_own_fields():
    schema = findings_schema()
    assert list(schema["properties"]["fields"]["properties"]) == list(FIELD_NAMES)
    assert list(schema["properties"]["line_items"]["items"]["properties"]) == list(
        LINE_ITEM_KEYS)
    for node in objects(schema):  # OpenAI's strict subset: closed objects, all required
        assert node["additionalProperties"] is False
        assert set(node["required"]) == set(node["properties"])
    assert _strict_problem(schema, "schema") is None
    assert response_format()["json_schema"]["strict"] is True
    text = json.dumps(schema)
    assert "pattern" not in text and "format" not in text.replace("formats", "")


def test_an_answer_in_the_schema_validates_and_one_with_extra_keys_does_not():
    fields = {name: {"value": None, "printed": None} for name in FIELD_NAMES}
    good = {"fields": fields, "line_items": [], "table_columns": [], "table_continues": False}
    jsonschema.validate(good, findings_schema())
    bad = dict(good, fields=dict(fields, note={"value": "x", "printed": None}))
    try:
        jsonschema.validate(bad, findings_schema())
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("an unknown field passed")


def findings(page_fields: dict, items=(), continues=False, columns=()):
    return {"fields": {k: {"value": v, "printed": v} for k, v in page_fields.items()},
            "line_items": list(items), "table_continues": continues,
            "table_columns": list(columns)}


def test_the_working_state_stays_bounded_over_a_hundred_pages_of_disagreement():
    state = WorkingState()
    sizes = []
    for page in range(1, 101):
        items = state.merge(findings({"invoice_number": f"NO-{page}",
                                      "gross_total": f"{page}00.00"},
                                     items=[{"description": f"row {page}"}] * 20,
                                     continues=True, columns=["Item", "Qty", "Amount"]),
                            lambda text, p=page: p)
        assert len(items) == 20  # the rows go to the document, not into the state
        sizes.append(len(state.for_prompt()))
    assert len(state.conflicts) == MAX_CONFLICTS and state.conflicts_dropped == 99 - MAX_CONFLICTS
    assert len(state.totals_seen) == MAX_TOTALS_SEEN
    # constant once the caps are reached (but for the digits of the page numbers)
    assert max(sizes[20:]) - min(sizes[20:]) <= 10
    assert state.table_rows == 2000 and state.table_columns == ["Item", "Qty", "Amount"]


def test_exact_values_are_kept_exactly_and_the_last_pages_totals_win():
    state = WorkingState()
    state.merge(findings({"invoice_number": "INV-0042/7", "gross_total": "1000.00"}),
                lambda text: 1)
    state.merge(findings({"invoice_number": "INV-0042/7", "gross_total": "1234.56"}),
                lambda text: 2)
    assert state.fields["invoice_number"].value == "INV-0042/7"
    assert state.fields["invoice_number"].page == 1  # confirmed where it was first read
    assert (state.fields["gross_total"].value, state.fields["gross_total"].page) == ("1234.56", 2)
    assert state.totals_seen == [{"field": "gross_total", "value": "1000.00", "page": 1}]
    assert state.conflicts == [] and state.review_reasons() == []
    sent = json.loads(state.for_prompt())
    assert sent["confirmed_fields"]["invoice_number"] == {"value": "INV-0042/7", "page": 1}


def test_layout_text_keeps_columns_and_vertical_gaps():
    page = {"number": 1, "width": 612, "height": 792, "lines": [
        ["Invoice no.", 50, 700, 100, 710], ["INV-1", 300, 700, 330, 710],
        ["Total", 50, 600, 80, 610], ["119.00", 300, 600, 330, 610]]}
    rows = page_text(page).split("\n")
    assert rows[0].index("Invoice no.") == 10 and rows[0].index("INV-1") == 60
    assert rows[-1].index("119.00") == 60
    assert "" in rows  # the gap between the two rows
