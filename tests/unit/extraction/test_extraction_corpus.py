"""Extraction on a sample of the shared corpus: schema validity and an accuracy floor.

The full corpus is measured by bench/accuracy.py; here a small, fixed sample keeps the run short.
Test ids are row numbers, never file names (some carry real company names).
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest
from blake3 import blake3

from ledgerline.extraction import extract_pdf

CORPUS = (Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus").resolve()


def corpus_rows() -> list[dict]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


ROWS = [r for r in corpus_rows() if r["scorable"] == "yes"]
SAMPLE = ROWS[::8]


def _hash(path) -> str:
    return "blake3:" + blake3(path.read_bytes()).hexdigest()


def _norm(field, value):
    if value is None:
        return None
    if field.endswith("_total") or field == "amount_due":
        return Decimal(str(value)).normalize()
    return "".join(str(value).split()).casefold()


@pytest.mark.parametrize("idx", range(len(SAMPLE)), ids=lambda i: f"row{i}")
def test_sample_documents_validate_against_schema(idx, corpus, schema_validator):
    row = SAMPLE[idx]
    path = corpus / row["pdf"]
    for use_xml in (True, False):
        doc = extract_pdf(path, content_hash=_hash(path), use_embedded_xml=use_xml)
        errors = sorted(schema_validator.iter_errors(doc), key=str)
        assert not errors, [e.message for e in errors[:3]]
        json.dumps(doc)  # JSON-serialisable, no Decimals or dates left


def test_text_layer_accuracy_floor_on_clear_invoices(corpus):
    """Stylesheet renderings print every key field plainly: the text layer must find them."""
    picks = [r for r in ROWS if "/EN16931/" in r["pdf"] and "intarsys" in r["pdf"]][:6]
    if not picks:
        pytest.skip("no clear sample files in this corpus")
    fields = ("invoice_number", "issue_date", "currency", "net_total", "tax_total", "gross_total")
    hits = total = 0
    for row in picks:
        truth = json.loads((corpus / row["truth"]).read_text(encoding="utf-8"))
        path = corpus / row["pdf"]
        doc = extract_pdf(path, content_hash=_hash(path), use_embedded_xml=False)
        assert doc["source"] == "text_layer"
        for f in fields:
            if truth.get(f) is None:
                continue
            total += 1
            hits += _norm(f, doc["fields"][f]["value"]) == _norm(f, truth[f])
    assert total and hits / total >= 0.9, f"{hits}/{total}"


def test_embedded_xml_matches_truth_exactly(corpus):
    picks = [r for r in ROWS if r["embedded_xml"] == "yes"][::15]
    fields = (
        "invoice_number",
        "issue_date",
        "currency",
        "seller_name",
        "buyer_name",
        "net_total",
        "tax_total",
        "gross_total",
        "amount_due",
        "due_date",
    )
    for row in picks:
        truth = json.loads((corpus / row["truth"]).read_text(encoding="utf-8"))
        path = corpus / row["pdf"]
        doc = extract_pdf(path, content_hash=_hash(path))
        assert doc["source"] == "embedded_xml"
        for f in fields:
            if truth.get(f) is not None:
                assert _norm(f, doc["fields"][f]["value"]) == _norm(f, truth[f]), f
