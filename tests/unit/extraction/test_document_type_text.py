"""What a printed page says it is, when no title is printed: a label named after an invoice's
title (:func:`ledgerline.extraction.document_type.of_text`)."""

from cell_pages import page_of

from ledgerline.extraction import document_type as T
from ledgerline.extraction.review import DOCUMENT_TYPE_SURE


def _head(*lines: str):
    return page_of(*((40, 800 - 12 * k, text) for k, text in enumerate(lines)))


def test_a_label_named_after_the_invoice_title_makes_an_untitled_page_an_invoice():
    kind = T.of_text(_head("Bedrijf XYZ", "Factuurnummer: 20241214-001", "Datum: 14-12-2024"),
                     {})
    assert kind.value == T.INVOICE and kind.confidence == T.TITLE_IN_LABEL
    assert kind.confidence >= DOCUMENT_TYPE_SURE  # taken without review on this account
    assert kind.raw == "Factuur"


def test_without_such_a_label_an_untitled_page_stays_unsure():
    kind = T.of_text(_head("Bedrijf XYZ", "Nummer: 20241214-001"), {})
    assert kind.value == T.INVOICE and kind.confidence == T.UNTITLED < DOCUMENT_TYPE_SURE
    # the word inside a sentence or after other words is no label of the page
    kind = T.of_text(_head("Bedrijf XYZ", "Zie onze factuurvoorwaarden"), {})
    assert kind.confidence == T.UNTITLED


def test_a_label_named_after_a_credit_note_title_is_not_an_invoices():
    kind = T.of_text(_head("Bedrijf XYZ", "Creditnotanummer: 7", "Factuurnummer: 5"), {})
    assert kind.confidence == T.UNTITLED
    # a printed title still decides
    kind = T.of_text(_head("Creditnota", "Factuurnummer: 5"), {})
    assert kind.value == T.CREDIT_NOTE
