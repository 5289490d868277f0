"""Candidates on real scans and photos: the currency and the seller where the page says them in
a way OCR'd receipts and templates do, and what OCR or a template prints that is never a name or
an invoice number (finders/currency.py, finders/parties.py, finders/page_values.py)."""
from __future__ import annotations

from decimal import Decimal

from cell_pages import page_of

from ledgerline.extraction.choice.currency import choose_currency
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.finders import parties as P
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


def test_a_line_of_trade_words_completes_the_name_over_it():
    # a receipt's head: the name centred on two lines, the second saying only the trade
    dt = page_of((100, 800, "THREE STOOGES"), (100, 791, "BISTRO & CAFE"),
                 (100, 782, "109, SS21/1A,"), (95, 773, "DAMANSARA UTAMA"))
    assert letterhead(dt) == ["THREE STOOGES BISTRO & CAFE"]
    # the name's line in a wider type, not aligned with the address: the trade words' line is
    # the one over the address, and the name over it completes it
    wide = page_of((92, 800, "THREE STOOGES"), (100, 791, "BISTRO & CAFE"),
                   (100, 782, "109, SS21/1A,"), (95, 773, "DAMANSARA UTAMA"))
    assert letterhead(wide) == ["THREE STOOGES BISTRO & CAFE"]
    # set apart (a line's height of space between), the two lines are not one name
    apart = page_of((100, 800, "THREE STOOGES"), (100, 780, "BISTRO & CAFE"),
                    (100, 771, "109, SS21/1A,"), (95, 762, "DAMANSARA UTAMA"))
    assert letterhead(apart) == ["THREE STOOGES"]
    # nor a line of trade words under a line in another type
    lower = page_of((100, 800, "Three Stooges"), (100, 791, "BISTRO & CAFE"),
                    (100, 782, "109, SS21/1A,"), (95, 773, "DAMANSARA UTAMA"))
    assert letterhead(lower) == ["Three Stooges"]


def letterhead(dt: DocText) -> list:
    return [c.value for c in find_candidates(dt).fields["seller_name"]
            if c.evidence.kind == P.LETTERHEAD]


def test_trade_words_only():
    assert P.trade_words_only("bistro & cafe")
    assert P.trade_words_only("restaurant and bar")
    assert not P.trade_words_only("three stooges")
    assert not P.trade_words_only("smug cat law firm")
    assert not P.trade_words_only("&")


def test_the_letterhead_is_read_from_the_left_of_its_row():
    # a form's header: the station over its address at the left, a labelled cell beside it
    # whose baseline is a point higher
    dt = page_of((136, 757.8, "WPXI"), (240, 758.2, "Advertiser"),
                 (308, 758.5, "Pol/T Murphy/R/Con/PA (16299)"), (136, 747, "P.O. Box 640132"),
                 (308, 746.6, "BrabenderCox (3844)"), (136, 736, "Pittsburgh, PA 15264-0132"))
    assert letterhead(dt) == ["WPXI"]


def test_here_under_a_logo_placeholder_is_no_name():
    dt = page_of((50, 800, "YOUR LOGO"), (60, 786, "HERE"), (50, 700, "Smug Cat Law Firm LLC"))
    assert "HERE" not in seller_names(dt)


def test_a_firm_under_its_contact_person_is_the_party():
    dt = page_of((20, 700, "Recipient"), (330, 700, "Contractor"), (20, 686, "Jane Doe"),
                 (330, 686, "John Smith"), (20, 672, "Big Brain Industries LLC"),
                 (330, 672, "Smug Cat Law Firm"), (20, 658, "jane@bigbrainindustries.com"),
                 (330, 658, "john@smugcatlawfirm.com"))
    found = find_candidates(dt).fields
    labelled = [c.value for c in found["seller_name"] if c.evidence.kind == P.PARTY_LABEL]
    assert labelled == ["Smug Cat Law Firm"]
    assert "Big Brain Industries LLC" in {c.value for c in found["buyer_name"]}


def test_a_names_second_line_without_a_name_of_its_own_stays_part_of_it():
    # "International Ltd" completes "Acme Widgets"; "MVM Musterhafter" is no person's name
    for first, second in (("Acme Widgets", "International Ltd"),
                          ("MVM Musterhafter", "Versicherungsverein Musterstadt a.G.")):
        dt = page_of((50, 700, "Seller"), (50, 686, first), (50, 672, second))
        labelled = [c.value for c in find_candidates(dt).fields["seller_name"]
                    if c.evidence.kind == P.PARTY_LABEL]
        assert labelled == [f"{first} {second}"]


def test_a_persons_name():
    assert P._person_name("John Smith") and P._person_name("Jane Q. Doe")
    assert not P._person_name("MVM Musterhafter")
    assert not P._person_name("Smith Holdings Ltd")
    assert not P._person_name("Smug Cat Law Firm")
