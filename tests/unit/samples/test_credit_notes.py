"""Generated credit notes: a title of their own in every language, the invoice they credit,
and a truth whose amounts are owed to the buyer (negative, as invoice-v2 gives them)."""

from __future__ import annotations

import io

import pytest
from pdfminer.high_level import extract_text

from ledgerline_tools.samples import LANGUAGE_CODES, LANGUAGES, generate
from ledgerline_tools.samples.languages import CREDIT_NOTE_KEYS

from .conftest import squash


@pytest.mark.parametrize("lang", LANGUAGE_CODES)
def test_a_credit_note_prints_its_title_and_the_invoice_it_credits(lang):
    pdf, truth = generate(3, lang=lang, template="letterhead", document_type="credit_note")
    text = squash(extract_text(io.BytesIO(pdf)))
    assert truth["document_type"] == "credit_note"
    assert any(title in text for title in LANGUAGES[lang].words["credit_note"])
    assert truth["preceding_invoice_number"] in text
    assert truth["preceding_invoice_number"] != truth["invoice_number"]
    assert truth["gross_total"] < 0 and truth["amount_due"] == truth["gross_total"]
    assert all(li["net_amount"] is None or li["net_amount"] < 0 for li in truth["line_items"])
    assert "credit_note" in truth["_generator"]["features"]


def test_every_language_names_a_credit_note():
    for code, lang in LANGUAGES.items():
        for key in CREDIT_NOTE_KEYS:
            assert lang.words.get(key), f"{code}: {key} missing"


def test_credit_notes_leave_the_invoices_of_other_seeds_as_they_were():
    invoice = generate(3, lang="de", template="letterhead", document_type="invoice")
    drawn = generate(3, lang="de", template="letterhead")
    assert invoice[1]["document_type"] == "invoice"
    if drawn[1]["document_type"] == "invoice":
        assert invoice == drawn
    credit = generate(3, lang="de", template="letterhead", document_type="credit_note")
    assert credit[1]["invoice_number"] == invoice[1]["invoice_number"]
