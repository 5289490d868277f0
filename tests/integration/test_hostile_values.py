"""A corpus of hostile extracted values, generated here: for every schema field and every
column the results table copies, a value just over its limit, NUL and other control
characters, lone surrogates, absurd numbers and dates, wrong types. Through the real upload
path and worker, on both backends, each upload ends `completed` (values normalised or dropped,
review reasons given) or `failed` with a specific code, after exactly one model call, and what
is stored is valid invoice-v2."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import model_calls, results
from ledgerline.adapters.extractor import FIELD_NAMES, TEXT_LIMITS
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, document, pdf_bytes

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas"
                     / "invoice-v2.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
# The results table's copied columns and their widths (adapters/db/tables.py).
COLUMN_WIDTHS = {"invoice_number": 200, "seller_name": 300, "gross_total": 40, "currency": 3,
                 "issue_date": 10}
NASTY_TEXT = ["NUL\x00inside", "\x01\x02\x1b[31mred\x7f", "lone \ud800 surrogate",
              "\udfff", "\x00", "tab\tand\nnewline\r", "\u0085next line", "   "]
NASTY_VALUES = [12345, 1.5, True, ["a"], {"v": 1}, float("nan")]


def hostile_cases() -> list[tuple[str, object]]:
    """(field, value) pairs; None as the field means a whole-document mutation."""
    cases = []
    for name in FIELD_NAMES:
        limit = TEXT_LIMITS.get(name) or COLUMN_WIDTHS.get(name) or 40
        cases += [(name, "x" * (limit + 1)), (name, "9" * (limit + 1))]
        cases += [(name, text) for text in NASTY_TEXT]
        cases += [(name, value) for value in NASTY_VALUES]
    for name in ("net_total", "tax_total", "gross_total", "amount_due"):
        cases += [(name, "1" * 19 + ".00"), (name, "1.0000001"), (name, "1e308"),
                  (name, "-0"), (name, "١٢٣")]
    for name in ("issue_date", "due_date"):
        cases += [(name, "2026-02-30"), (name, "0001-01-01"), (name, "9999-12-31"),
                  (name, "2026-1-1"), (name, "20260101")]
    cases += [("currency", c) for c in ("XYZ", "eur", "EURO", "€", "US$", "zzz")]
    cases += [("iban", "DE00 1234"), ("iban", "GB82WEST12345698765432" + "0" * 20)]
    return cases


def build(content_hash: str, field: str, value) -> dict:
    doc = document(content_hash, "HOSTILE-1")
    doc["fields"][field]["value"] = value
    doc["fields"][field]["raw"] = value if isinstance(value, str) else None
    doc["fields"][field]["confidence"] = float("inf")
    doc["fields"][field]["bbox"] = [0, 1, float("nan"), 3]
    doc["fields"][field]["page"] = 10 ** 30
    doc["line_items"] = [{"description": "\x00" * 3 + "x" * 5000, "quantity": "1" * 60,
                          "unit_price": "NaN", "net_amount": 3, "vat_rate": None},
                         "not an item"]
    doc["validations"] = [{"rule": "br-co-15", "status": "maybe", "detail": None},
                          {"rule": "BR-CO-10", "status": "pass", "detail": "\ud800ok"}]
    doc["review"] = {"required": False, "reasons": ["\x00", 7]}
    return doc


class Hostile(ControlledExtractor):
    """Returns, per upload, the hostile document registered for its content hash."""

    def __init__(self):
        super().__init__()
        self.plans: dict[str, tuple[str, object]] = {}

    def extract(self, path, content_hash, context=None):
        super().extract(path, content_hash)
        return build(content_hash, *self.plans[content_hash])


def test_no_extracted_value_makes_a_job_loop_or_fail_to_store(make_services):
    extractor = Hostile()
    services = make_services(extractor=extractor)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    headers = {"Authorization": f"Bearer {tenant.keys['customer']}",
               "Content-Type": "application/pdf"}
    invoices = []
    for row, case in enumerate(hostile_cases()):
        body = pdf_bytes(f"hostile-{row}")
        resp = client.post("/v1/accounts/acme/invoices", data=body, headers=headers)
        assert resp.status_code == 202, resp.json
        extractor.plans[resp.json["content_hash"]] = case
        invoices.append((row, case, resp.json["id"]))
    worker = Worker(services)
    while worker.run_once():
        pass

    for row, (field, given), invoice_id in ((r, c, i) for r, c, i in invoices):
        got = client.get(f"/v1/accounts/acme/invoices/{invoice_id}", headers=headers).json
        assert got["status"] in ("completed", "failed"), row
        if got["status"] == "failed":
            assert got["error"]["code"] not in (None, "worker_error", "result_unstorable"), row
            continue
        extraction = got["extraction"]
        VALIDATOR.validate(extraction)
        value = extraction["fields"][field]["value"]
        if not (isinstance(given, str) and _plain(given) == _plain(value or "")):
            # changed beyond white space and letter case: said so
            assert extraction["review"]["required"], row
            assert any(r.startswith(f"{field}:") for r in extraction["review"]["reasons"]), row
        if isinstance(value, str):
            assert len(value) <= COLUMN_WIDTHS.get(field, TEXT_LIMITS.get(field, 34)), row
            assert all(ch >= " " for ch in value), row
    with transaction(services.engine, write=False) as conn:
        calls = conn.execute(select(model_calls.c.job_id, model_calls.c.outcome)).all()
        stored = conn.execute(select(results.c.document)).scalars().all()
    assert len(calls) == len(invoices) == len({c.job_id for c in calls})  # one call each
    assert {c.outcome for c in calls} <= {"published", "failed"}
    for text in stored:
        VALIDATOR.validate(json.loads(text))
    assert not Worker(services).run_once()  # nothing left to claim: no job loops


def _plain(text: str) -> str:
    return "".join(text.split()).upper()


@pytest.mark.parametrize("field, value, kept", [
    ("currency", "chf", "CHF"), ("currency", "JPY", "JPY"), ("currency", "XYZ", None),
    ("issue_date", "2026-02-28", "2026-02-28"), ("issue_date", "2026-02-30", None),
    ("gross_total", "1234567890123456.78", "1234567890123456.78"),
    ("gross_total", "1" * 19, None), ("iban", "de89 3704 0044 0532 0130 00",
                                      "DE89370400440532013000"),
])
def test_values_are_normalised_or_dropped_with_a_reason(field, value, kept):
    from ledgerline.adapters.extractor import conform
    from tests.fakes import VERSIONS

    doc = document("blake3:" + "a" * 64, "N-1")
    doc["fields"][field]["value"] = value
    out = conform(doc, content_hash="blake3:" + "a" * 64, versions=VERSIONS)
    VALIDATOR.validate(out)
    assert out["fields"][field]["value"] == kept
    assert (kept is None) == any(r.startswith(f"{field}:") for r in out["review"]["reasons"])
