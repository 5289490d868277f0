"""Textract's AnalyzeExpense answers, in the shapes AWS publishes, as invoice-v2 values.

The TOTAL field is AWS's own documented example ("Total: $55.64", Developer Guide, Analyzing
Invoices and Receipts); the EXPENSE_ROW is its documented line-item example ("Banana 5 $2.5");
the rest follow the same ExpenseField shape (Type, LabelDetection, ValueDetection with
Geometry and Confidence in percent, PageNumber, Currency)."""
from __future__ import annotations

import copy

import pytest

from ledgerline.adapters.extractor import conform
from ledgerline.adapters.providers import documents
from ledgerline.adapters.providers.textract_mapping import map_expense
from ledgerline.domain.cache import ExtractorVersions

# AWS's documented example of a SummaryField, as published.
AWS_TOTAL = {
    "Type": {"Text": "TOTAL", "Confidence": 99.94717407226562},
    "LabelDetection": {
        "Text": "Total:",
        "Geometry": {"BoundingBox": {"Width": 0.09809663146734238, "Height": 0.0234375,
                                     "Left": 0.36822840571403503, "Top": 0.8017578125},
                     "Polygon": [{"X": 0.36822840571403503, "Y": 0.8017578125},
                                 {"X": 0.466325044631958, "Y": 0.8017578125},
                                 {"X": 0.466325044631958, "Y": 0.8251953125},
                                 {"X": 0.36822840571403503, "Y": 0.8251953125}]},
        "Confidence": 97.10792541503906},
    "ValueDetection": {
        "Text": "$55.64",
        "Geometry": {"BoundingBox": {"Width": 0.10395314544439316, "Height": 0.0244140625,
                                     "Left": 0.66837477684021, "Top": 0.802734375},
                     "Polygon": [{"X": 0.66837477684021, "Y": 0.802734375},
                                 {"X": 0.7723279595375061, "Y": 0.802734375},
                                 {"X": 0.7723279595375061, "Y": 0.8271484375},
                                 {"X": 0.66837477684021, "Y": 0.8271484375}]},
        "Confidence": 99.85165405273438},
    "PageNumber": 1,
}
AWS_EXPENSE_ROW = {"Type": {"Text": "EXPENSE_ROW", "Confidence": 99.95216369628906},
                   "ValueDetection": {"Text": "Banana 5 $2.5", "Confidence": 98.11214447021484}}
LETTER = {"number": 1, "width": 612.0, "height": 792.0, "lines": []}


def summary(kind: str, text: str, confidence: float = 98.0, page: int = 1, **more) -> dict:
    return {"Type": {"Text": kind, "Confidence": 99.0},
            "ValueDetection": {"Text": text, "Confidence": confidence,
                               "Geometry": {"BoundingBox": {"Width": 0.1, "Height": 0.02,
                                                            "Left": 0.1, "Top": 0.1},
                                            "Polygon": []}},
            "PageNumber": page, **more}


def item(**fields) -> dict:
    return {"LineItemExpenseFields": [
        {"Type": {"Text": kind, "Confidence": 99.0},
         "ValueDetection": {"Text": text, "Confidence": 97.0}} for kind, text in fields.items()]}


def answer(*fields, items=(), index=1) -> dict:
    return {"ExpenseIndex": index, "SummaryFields": list(fields),
            "LineItemGroups": [{"LineItemGroupIndex": 1, "LineItems": list(items)}]}


def test_the_documented_total_maps_to_the_gross_total_with_its_box_in_pdf_points():
    found, _, reasons = map_expense([answer(copy.deepcopy(AWS_TOTAL))], [LETTER])
    total = found["gross_total"]
    assert (total.value, total.raw, total.page) == ("$55.64", "$55.64", 1)
    # Both the type's and the value's reading must hold: the lower confidence, as 0..1.
    assert total.confidence == pytest.approx(0.9985165405273438)
    x0, y0, x1, y1 = total.bbox
    assert x0 == pytest.approx(0.66837477684021 * 612)
    assert x1 == pytest.approx((0.66837477684021 + 0.10395314544439316) * 612)
    assert y1 == pytest.approx((1 - 0.802734375) * 792)  # the top, measured from the bottom
    assert y0 == pytest.approx((1 - 0.802734375 - 0.0244140625) * 792)
    assert reasons == []


def test_summary_types_fill_the_invoice_fields_and_amounts_become_decimals():
    fields = [summary("INVOICE_RECEIPT_ID", "INV-2026-0042"),
              summary("INVOICE_RECEIPT_DATE", "2026-11-02"), summary("DUE_DATE", "2026-12-02"),
              summary("VENDOR_NAME", "Muster GmbH"), summary("RECEIVER_NAME", "Acme AG"),
              summary("VENDOR_VAT_NUMBER", "DE136695976"), summary("PO_NUMBER", "PO-7"),
              summary("SUBTOTAL", "1.000,00 €", Currency={"Code": "EUR", "Confidence": 90.0}),
              summary("TAX", "190,00 €"), copy.deepcopy(AWS_TOTAL) | {"ValueDetection": {
                  **AWS_TOTAL["ValueDetection"], "Text": "1.190,00 €"}},
              summary("AMOUNT_DUE", "1.190,00 €"),
              summary("OTHER", "DE89 3704 0044 0532 0130 00",
                      LabelDetection={"Text": "IBAN:", "Confidence": 99.0})]
    found, items, _ = map_expense([answer(*fields, items=[
        item(ITEM="Consulting", QUANTITY="10", UNIT_PRICE="100,00", PRICE="1.000,00"),
        {"LineItemExpenseFields": [AWS_EXPENSE_ROW]}])], [LETTER])
    document = documents.build(source="ocr", content_hash="blake3:" + "0" * 64, pages=1,
                               found=found, line_items=items, reasons=[])
    versions = ExtractorVersions("invoice-v2", "p", "textract:m", "c")
    published = conform(document, content_hash="blake3:" + "0" * 64, versions=versions)
    values = {name: entry["value"] for name, entry in published["fields"].items()}
    assert values == {
        # Textract's answer does not say what the document is
        "document_type": None, "preceding_invoice_number": None,
        "invoice_number": "INV-2026-0042", "issue_date": "2026-11-02", "due_date": "2026-12-02",
        "currency": "EUR", "seller_name": "Muster GmbH", "seller_vat_id": "DE136695976",
        "buyer_name": "Acme AG", "buyer_vat_id": None, "purchase_order": "PO-7",
        "iban": "DE89370400440532013000", "net_total": "1000.00", "tax_total": "190.00",
        "gross_total": "1190.00", "amount_due": "1190.00"}
    assert published["line_items"][0] == {"description": "Consulting", "quantity": "10",
                                          "unit_price": "100.00", "net_amount": "1000.00",
                                          "vat_rate": None}
    assert published["line_items"][1]["description"] == "Banana 5 $2.5"  # the whole row
    rules = {v["rule"]: v["status"] for v in published["validations"]}
    assert rules["BR-CO-15"] == "pass"  # the same EN 16931 arithmetic as the rules extractor


def test_a_long_invoices_totals_come_from_its_last_page_and_disagreement_asks_for_review():
    pages = [dict(LETTER, number=n) for n in (1, 2, 3)]
    found, _, reasons = map_expense([
        answer(summary("TOTAL", "100.00", confidence=99.9, page=1)),
        answer(summary("TOTAL", "350.00", confidence=91.0, page=3)),
        answer(summary("INVOICE_RECEIPT_ID", "A-1", confidence=80.0, page=1),
               summary("INVOICE_RECEIPT_ID", "A-7", confidence=95.0, page=2))], pages)
    assert (found["gross_total"].value, found["gross_total"].page) == ("350.00", 3)
    assert found["invoice_number"].value == "A-7"  # the surer reading
    assert "gross_total: Textract read 2 different values" in reasons
    assert "invoice_number: Textract read 2 different values" in reasons


def test_a_file_with_several_invoices_returns_the_first_and_says_so():
    found, _, reasons = map_expense([answer(summary("INVOICE_RECEIPT_ID", "ONE"), index=1),
                                     answer(summary("INVOICE_RECEIPT_ID", "TWO"), index=2)],
                                    [LETTER])
    assert found["invoice_number"].value == "ONE"
    assert reasons == ["the file holds 2 invoices; the first is returned"]


def test_an_empty_answer_gives_a_document_that_asks_for_review():
    found, items, _ = map_expense([], [LETTER])
    document = documents.build(source="ocr", content_hash="blake3:" + "0" * 64, pages=1,
                               found=found, line_items=items, reasons=[])
    assert document["review"]["required"]
    assert "invoice_number: not found on the invoice" in document["review"]["reasons"]
