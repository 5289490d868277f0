"""Shapes of invoices from issuers the ranker was never trained on, read as a person would read
them: a label word in the prose between a label and its value, an identifier that holds a label
word, bilingual party labels, the letterhead over its address, a receipt's number, a filled-in
PDF form. Invented pages, one shape each."""

import datetime as dt
import io

from cell_pages import page_of as _doc

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.finders import parties as P
from ledgerline.extraction.finders.header_fields import first_date_candidates, read_id
from ledgerline.extraction.text import normalise_text


def _values(page, field: str, kind: str | None = None) -> list:
    found = find_candidates(page).fields[field]
    return [c.value for c in found if kind is None or c.evidence.kind == kind]


def test_unicode_hyphens_join_identifiers_and_dates_as_a_hyphen_does():
    assert normalise_text("IOPOLE\u2010jdz7 18\u201108\u20112026") == "IOPOLE-jdz7 18-08-2026"
    assert normalise_text("1 \u2013 2") == "1 \u2013 2"  # a dash keeps its meaning


def test_a_label_word_in_the_prose_between_a_label_and_its_value_is_passed_over():
    # "ust" is a VAT word, here an abbreviation of a paragraph of the law
    page = _doc((28, 377, "Data wystawienia, z zastrzeżeniem art. 106na ust. 1 ustawy: 2023-11-30"))
    assert dt.date(2023, 11, 30) in _values(page, "issue_date", "label")


def test_a_label_qualifying_the_one_before_it_still_ends_its_reach():
    # "N° TVA client": the number sign belongs to the VAT id, whose value is no invoice number
    page = _doc((34, 523, "N° TVA client"), (154, 523, "FR19787878784"))
    assert "FR19787878784" not in _values(page, "invoice_number", "label")


def test_an_identifier_that_holds_a_label_word_is_read_whole():
    page = _doc((8, 725, "INVOICE #: GST-3525-26"), (153, 725, "DATE: 23-Jul-2025"))
    assert _values(page, "invoice_number", "label") == ["GST-3525-26"]
    assert _values(page, "tax_total", "label") == []


def test_a_single_digit_or_a_date_shaped_number_after_a_strong_label_is_read_less_surely():
    assert read_id(" 4") == ("4", 1, 2, 0.8)
    tok, _s, _e, strength = read_id("2015-11-04")
    assert (tok, strength) == ("2015-11-04", 0.6)
    assert read_id(" 1.234,56") is None
    page = _doc((122, 480, "Invoice #2015-11-04"))
    assert _values(page, "invoice_number", "label") == ["2015-11-04"]


def test_a_receipt_number_numbers_the_receipt():
    page = _doc((36, 711, "Receipt Number"), (104, 711, "123"))
    assert _values(page, "invoice_number", "label") == ["123"]


def test_bilingual_party_labels_head_their_block():
    page = _doc((56, 567, "Dodavatel (Supplier):"), (206, 567, "Exemplo Sdružení, Americká 23"),
                (56, 749, "Odběratel (Client):"))
    assert "Exemplo Sdružení" in _values(page, "seller_name", P.PARTY_LABEL)
    page = _doc((36, 746, "Szállító/Sold by"), (36, 732, "Minta Kft."), (36, 718, "Fő utca 1"))
    assert _values(page, "seller_name", P.PARTY_LABEL) == ["Minta Kft."]


def test_invoice_by_names_the_seller():
    page = _doc((28, 623, "INVOICE BY"), (28, 610, "Trusk"), (28, 581, "INVOICE TO"),
                (28, 567, "My Company"))
    assert _values(page, "seller_name", P.PARTY_LABEL) == ["Trusk"]
    assert _values(page, "buyer_name", P.PARTY_LABEL) == ["My Company"]


def test_a_longer_name_sub_label_has_its_name_in_the_cell_to_its_right():
    page = _doc((63, 691, "Vendeur"), (62, 667, "Nom du vendeur:"),
                (141, 666, "COMPAGNIE EXEMPLE"))
    assert _values(page, "seller_name", P.PARTY_LABEL) == ["COMPAGNIE EXEMPLE"]


def test_the_letterhead_is_the_name_over_an_address():
    page = _doc((315, 740, "Property"), (381, 740, "WXYZ"), (120, 727, "WXYZ TV"),
                (120, 715, "645 Fifth Ave"), (120, 703, "Huntington, WV 25701"))
    assert _values(page, "seller_name", P.LETTERHEAD) == ["WXYZ TV"]
    # right-aligned: the address ends where the name ends
    page = _doc((429, 757, "Your Business Name"), (474, 742, "1 Main Street"))
    assert _values(page, "seller_name", P.LETTERHEAD) == ["Your Business Name"]


def test_a_field_and_its_value_is_no_letterhead():
    page = _doc((420, 764, "FACTURE"), (487, 733, "Version: someversion"),
                (31, 684, "Example Company"), (31, 660, "89 Rue de Brest"))
    assert "Version: someversion" not in _values(page, "seller_name", P.LETTERHEAD)


def test_an_item_row_with_a_price_is_no_sender_line():
    page = _doc((45, 518, "Premium Membership - Monthly - example.com (06/23/2018 - 07/23/2018)"),
                (473, 518, "USD $50.00"))
    assert _values(page, "seller_name", P.SENDER_LINE) == []
    sender = _doc((101, 679, "Bei Spiel GmbH ● Ecke 12 ● 12345 Stadthausen"),
                  (71, 657, "Theodor Est"))
    assert _values(sender, "seller_name", P.SENDER_LINE) == ["Bei Spiel GmbH"]


def test_an_invoice_number_that_reads_as_a_date_is_not_the_issue_date():
    page = _doc((505, 793, "Numer faktury"), (490, 774, "2/11/2023"),
                (28, 377, "Data wystawienia: 2023-11-30"))
    assert [c.value for c in first_date_candidates(page)] != [dt.date(2023, 11, 2)]


def test_a_short_legal_form_is_printed_in_capitals():
    assert P.printed_legal_form("Nordlund Verktyg AB")
    assert P.printed_legal_form("Muster GmbH") and P.printed_legal_form("Example Inc")
    assert not P.printed_legal_form("Licensed Concrete Ba")
    assert P.printed_legal_form("Esimerkki Oy")
    page = _doc((64, 300, "Metal Soap Sleek Wooden Chips Licensed Concrete Ba"))
    assert _values(page, "seller_name", P.LEGAL_FORM) == []


def test_the_values_of_a_filled_in_pdf_form_are_text_of_their_page(tmp_path):
    from reportlab.pdfgen import canvas

    from ledgerline.extraction import parse_pdf

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(595, 842))
    c.drawString(290, 620, "FATTURA n.")
    c.acroForm.textfield(name="totale", value="1424,96 Euro", x=380, y=268, width=80,
                         height=22, fontSize=11)
    c.save()
    path = tmp_path / "form.pdf"
    path.write_bytes(buf.getvalue())
    texts = [ln.text for p in parse_pdf(path).pages for ln in p.lines]
    assert "1424,96 Euro" in texts and "FATTURA n." in texts


def test_an_identifier_keeps_the_prefix_its_label_word_is_glued_to():
    assert _values(_doc((40, 700, "PO-07630")), "purchase_order", "label") == ["PO-07630"]
    assert _values(_doc((40, 700, "P.O. Number: 4711")), "purchase_order", "label") == ["4711"]


def test_nothing_is_taken_from_what_the_page_shows_as_an_example():
    page = _doc((60, 700, "Date de facture : 18/08/2026"), (60, 300, "Total TTC 1 166,40"),
                (60, 200, "Example : pénalités de retard dues le 30/09/2026, total 40,00"))
    assert dt.date(2026, 9, 30) not in _values(page, "issue_date") + _values(page, "due_date")
    assert _values(page, "issue_date", "label") == [dt.date(2026, 8, 18)]
    heading = _doc((60, 300, "Sample"), (60, 288, "Invoice No. 99999"), (60, 700, "Invoice No. 4711"))
    assert set(_values(heading, "invoice_number", "label")) == {"4711"}
