"""The JSON Schema a chat model answers in (OpenAI structured output, `strict`), built from
invoice-v2's own fields and line-item keys.

Strict structured output accepts a subset of JSON Schema: every property required,
`additionalProperties: false` everywhere, nullable types instead of optional keys, and (to stay
within what every OpenAI-compatible server enforces) no patterns, formats or length limits. The
forms the values must take are said in descriptions; the port's check (`conform`) drops what
does not match, each with a review reason.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

SCHEMA_NAME = "invoice_page_findings"
VALUE_FORMS = {
    "documentTypeField": "invoice, or credit_note for a credit note or a correction that reduces "
                         "what is owed",
    "textField": "the value as printed, on one line",
    "dateField": "a calendar date as YYYY-MM-DD",
    "currencyField": "an ISO 4217 code such as EUR",
    "ibanField": "the IBAN without spaces",
    "amountField": "a plain decimal number with '.' and no thousands separators or currency, "
                   "negative with a leading '-'",
}
ITEM_FORMS = {
    "description": "the item's description as printed",
    "quantity": "a plain decimal number",
    "unit_price": "a plain decimal number",
    "net_amount": "the line's net amount, a plain decimal number",
    "vat_rate": "the VAT rate in percent, a plain decimal number such as 19",
}


def _nullable(description: str) -> dict:
    return {"type": ["string", "null"], "description": description}


def _object(properties: dict) -> dict:
    return {"type": "object", "additionalProperties": False,
            "required": list(properties), "properties": properties}


@lru_cache(maxsize=1)
def invoice_schema() -> dict:
    text = resources.files("ledgerline").joinpath("schemas/invoice-v2.schema.json").read_text()
    return json.loads(text)


@lru_cache(maxsize=1)
def findings_schema() -> dict:
    """What the model reports for one window of pages."""
    invoice = invoice_schema()
    fields = {}
    for name, spec in invoice["properties"]["fields"]["properties"].items():
        form = VALUE_FORMS[spec["$ref"].rsplit("/", 1)[-1]]
        fields[name] = _object({
            "value": _nullable(f"{name.replace('_', ' ')} as shown on these pages: {form}; "
                               "null if these pages do not show it"),
            "printed": _nullable("the exact text it was read from, as printed"),
        })
    item_keys = invoice["properties"]["line_items"]["items"]["properties"]
    item = _object({key: _nullable(ITEM_FORMS[key]) for key in item_keys})
    return _object({
        "fields": _object(fields),
        "line_items": {"type": "array", "items": item,
                       "description": "the item rows printed on these pages, in order"},
        "table_columns": {"type": "array", "items": {"type": "string"},
                          "description": "the item table's column headings, if a table is "
                                         "still open at the end of these pages"},
        "table_continues": {"type": "boolean",
                            "description": "whether the item table goes on after these pages"},
    })


def response_format() -> dict:
    return {"type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": findings_schema()}}
