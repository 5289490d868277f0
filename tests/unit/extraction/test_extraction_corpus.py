"""Extraction on the shared corpus: schema validity everywhere and an accuracy floor.

Every corpus PDF goes through the full extractor once and must give a schema-valid document;
the text layer alone runs on a fixed sample (bench/accuracy.py measures it on all files).
Test ids are row numbers and failure messages carry row numbers only, never file names
(some carry real company names).
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


# Every row, in a few slices that the test runner can spread over its processes.
SLICES = 6


@pytest.mark.parametrize("part", range(SLICES), ids=lambda i: f"slice{i}")
def test_every_corpus_document_validates_against_the_schema(part, corpus, schema_validator):
    problems = []
    for n, row in enumerate(corpus_rows()):
        if n % SLICES != part:
            continue
        if row["has_text_layer"] != "yes" and row["embedded_xml"] != "yes":
            continue  # scans and photos: no text to read without OCR
        path = corpus / row["pdf"]
        doc = extract_pdf(path, content_hash=_hash(path))
        errors = list(schema_validator.iter_errors(doc))
        if errors:
            problems.append((n, sorted(e.message for e in errors)[:2]))
        json.dumps(doc)  # JSON-serialisable, no Decimals or dates left
        if row["embedded_xml"] == "yes" and row["scorable"] == "yes":
            assert doc["source"] == "embedded_xml", f"row {n}"
    assert not problems, problems[:5]


@pytest.mark.parametrize("idx", range(len(SAMPLE)), ids=lambda i: f"row{i}")
def test_text_layer_documents_validate_against_the_schema(idx, corpus, schema_validator):
    path = corpus / SAMPLE[idx]["pdf"]
    doc = extract_pdf(path, content_hash=_hash(path), use_embedded_xml=False)
    assert doc["source"] == "text_layer"
    errors = sorted(schema_validator.iter_errors(doc), key=str)
    assert not errors, [e.message for e in errors[:3]]


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
