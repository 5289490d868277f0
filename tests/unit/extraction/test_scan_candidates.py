"""Candidates on real scans and photos: the currency and the seller where the page says them in
a way OCR'd receipts and templates do, and what OCR or a template prints that is never a name or
an invoice number (finders/currency.py, finders/parties.py, finders/page_values.py)."""
from __future__ import annotations

from decimal import Decimal

from cell_pages import page_of

from ledgerline.extraction.choice.currency import choose_currency
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.finders.currency import currency_mentions, issuer_country
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Line, Page


def currency(dt: DocText) -> str | None:
    chosen, _why = choose_currency([], currency_mentions(dt))
    return chosen.value if chosen is not None else None


def test_a_country_code_is_not_read_across_a_line_end():
    # a description ending "BONE-IN" over a column of figures is no Indian VAT id
    dt = page_of((50, 800, "CHICKEN BREAST BONE-IN"), (50, 786, "61.00"), (50, 772, "1.99"),
                 (50, 758, "121.39"), (50, 700, "WYCKOFF, NJ 07481"), (400, 300, "$1,161.12"))
    assert issuer_country(dt) == "US"
    assert currency(dt) == "USD"


def test_an_australian_business_number_names_australia_and_its_dollar():
    dt = page_of((50, 800, "ABN 51 824 753 556"), (400, 300, "TOTAL"), (480, 300, "$182.90"))
    assert issuer_country(dt) == "AU"
    assert currency(dt) == "AUD"
    assert issuer_country(page_of((50, 800, "Bank: ABN AMRO"), (50, 780, "$12.00"))) is None


def test_malaysias_sdn_bhd_is_a_legal_form_and_total_rm_its_ringgit():
    dt = page_of((50, 800, "IKANO HANDEL SDN BHD"), (50, 600, "Total RM Including GST 6%"),
                 (50, 586, "538.00"))
    assert "BHD" not in {c.value for c in currency_mentions(dt)}
    assert currency(dt) == "MYR"


def test_rupees_in_words_name_the_rupee():
    dt = page_of((50, 800, "Address: New Delhi, Delhi, 110058, India."), (400, 300, "Total"),
                 (480, 300, "30,180.00"), (50, 280, "Rs. Thirty Thousand one Hundred Eighty only"))
    assert issuer_country(dt) == "IN"
    assert currency(dt) == "INR"


def seller_names(dt: DocText) -> set:
    return {c.value for c in find_candidates(dt).fields["seller_name"]}


def test_a_logo_placeholder_and_base64_text_are_no_names():
    dt = page_of((50, 800, "YOUR LOGO"), (50, 780, "Smug Cat Law Firm LLC"),
                 (50, 100, "uS3mW/sLQOHHBUheLQ=="))
    names = seller_names(dt)
    assert "Smug Cat Law Firm LLC" in names
    assert "YOUR LOGO" not in names and "uS3mW/sLQOHHBUheLQ==" not in names


def test_a_sentence_and_a_bare_legal_form_are_no_names():
    dt = page_of((50, 800, "Gulf Enterprises"), (50, 786, "Al Moraggabat Street, Dubai"),
                 (50, 300, "SE"),
                 (50, 60, "We warrant that the actual broadcast information shown is true"))
    names = seller_names(dt)
    assert "Gulf Enterprises" in names
    assert "SE" not in names
    assert not any(str(n).startswith("We warrant") for n in names)


def test_a_line_ocr_read_unsure_throughout_is_no_name():
    def line(y, text, sure):
        chars = [(50 + k * 5.0, 55 + k * 5.0) for k in range(len(text))]
        return Line(1, 50, y, 50 + 5 * len(text), y + 9, text, chars, [sure] * len(text))

    dt = DocText([Page(1, 595, 842, [line(800, "Gulf Enterprises", 0.97),
                                     line(786, "Lill ga", 0.3),
                                     line(772, "Al Moraggabat Street", 0.92)])])
    names = seller_names(dt)
    assert "Gulf Enterprises" in names and "Lill ga" not in names


def test_an_unlabelled_phone_number_is_no_invoice_number():
    dt = page_of((50, 800, "INV-26-A0001"), (50, 700, "123-456-7890"), (50, 680, "(412) 237-1100"))
    numbers = {c.value for c in find_candidates(dt).fields["invoice_number"]}
    assert "INV-26-A0001" in numbers
    assert not numbers & {"123-456-7890", "(412) 237-1100", "237-1100"}


def test_an_amount_ocr_read_with_a_space_after_its_thousands_separator():
    from ledgerline.extraction.values.amounts import find_amounts

    text = "$300, 000.00"
    assert [(a[0], a[1], a[2]) for a in find_amounts(text, ".")] == [
        (Decimal("300000.00"), 0, len(text))]
    # without decimals under the other mark, a comma and a space part two numbers
    assert [a[0] for a in find_amounts("5, 100", ".")] == [Decimal("5"), Decimal("100")]


def test_a_legal_form_that_follows_a_name_names_nothing_at_the_start_of_a_line():
    # a footer misread by OCR: "SE" (Societas Europaea) is written after the company's name
    from ledgerline.extraction.finders.parties import LEGAL_FORM, printed_legal_form

    dt = page_of((50, 800, "Gulf Enterprises"), (50, 786, "Al Moraggabat Street, Dubai"),
                 (50, 40, "SE BUENOS"), (50, 26, "Nordlicht Handel SE"))
    found = find_candidates(dt).fields["seller_name"]
    by_form = {c.value for c in found if c.evidence.kind == LEGAL_FORM}
    assert "Nordlicht Handel SE" in by_form and "SE BUENOS" not in by_form
    for text in ("SE BUENOS", "GmbH Muster", "S.L. Madrid"):
        assert not printed_legal_form(text), text
    # the forms that may lead a name still do, and every form after a name
    for text in ("SARL Dupont", "Oy Hartwall Ab", "I/S Vestforbrænding", "V.O.F. De Bakker",
                 "Aktiebolaget Electrolux", "Muster SE", "Muster GmbH", "Ejemplo S.L."):
        assert printed_legal_form(text), text
