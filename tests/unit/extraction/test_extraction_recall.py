"""Candidate recall: the printed shapes whose right value was not among the candidates at all
(so no ranker could choose it) now give a candidate. Invented invoices, one shape each."""

import datetime as dt

from cell_pages import page_of as _doc

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.finders import parties as P
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.values.dates import find_dates


def _values(dt: DocText, field: str, kind: str | None = None) -> list:
    found = find_candidates(dt).fields[field]
    return [c.value for c in found if kind is None or c.evidence.kind == kind]


def test_a_number_under_its_label_in_a_header_row_is_a_candidate_even_when_it_reads_as_a_date():
    dt = _doc((400, 790, "Numer faktury"), (400, 776, "2/11/2023"), (40, 700, "Sprzedawca:"))
    assert "2/11/2023" in _values(dt, "invoice_number", "page_id")
    # the same token with no label over it is a date, not an identifier
    assert "2/11/2023" not in _values(_doc((400, 776, "2/11/2023")), "invoice_number")


def test_a_series_code_and_its_number_make_one_invoice_number():
    dt = _doc((200, 760, "Faktura nr FV 7/2021"))
    assert _values(dt, "invoice_number", "label") == ["FV 7/2021"]


def test_a_name_glued_to_its_address_by_a_comma_ends_at_the_comma():
    dt = _doc((200, 180, "Nordlund Verktyg AB, 12345, Storgatan 10."))
    assert "Nordlund Verktyg AB" in _values(dt, "seller_name", P.LEGAL_FORM)
    assert "Nordlund Verktyg AB" in _values(dt, "seller_name", "page_name")


def test_a_party_label_glued_to_the_name_is_not_part_of_it():
    dt = _doc((130, 755, "REMIT TO Example Broadcast Inc"), (130, 700, "Bill to Other Buyer Inc"))
    assert _values(dt, "seller_name", P.LEGAL_FORM) == ["Example Broadcast Inc"]
    assert "Example Broadcast Inc" in _values(dt, "seller_name", "page_name")
    assert "Other Buyer Inc" in _values(dt, "buyer_name", "page_name")


def test_the_signature_block_names_the_issuer():
    signed = _doc((400, 206, "For Example Freight Tools"), (420, 70, "Authorised Signatory"))
    assert _values(signed, "seller_name", P.SIGNATURE_BLOCK) == ["Example Freight Tools"]
    # "For …" without a signatory under it is any sentence
    unsigned = _doc((400, 206, "For Example Freight Tools"), (40, 70, "Authorised Signatory"))
    assert _values(unsigned, "seller_name", P.SIGNATURE_BLOCK) == []


def test_year_first_dates_with_dots_and_spaces():
    assert [d for d, _s, _e in find_dates("Kelte: 2008. 10. 17.")] == [dt.date(2008, 10, 17)]
    assert [d for d, _s, _e in find_dates("2024.3.5 and 2024-03-05")] == [
        dt.date(2024, 3, 5),
        dt.date(2024, 3, 5),
    ]


def test_a_name_that_starts_with_a_sub_label_word_is_not_cut_after_it():
    dt = _doc((400, 628, "FROM:"), (400, 613, "Company, LLC"), (400, 598, "1 Main St."))
    assert _values(dt, "seller_name", P.PARTY_LABEL) == ["Company, LLC"]
    dt = _doc((400, 628, "FROM:"), (400, 613, "Company: Example Works LLC"))
    assert _values(dt, "seller_name", P.PARTY_LABEL) == ["Example Works LLC"]


def test_a_czech_seller_block_and_a_brazilian_title():
    dt = _doc((46, 685, "Prodejce"), (320, 685, "Kupující"), (46, 661, "Jan Novák"),
              (320, 661, "Eva Malá"), (46, 644, "Polní 1"))
    assert _values(dt, "seller_name", P.PARTY_LABEL) == ["Jan Novák"]
    title = _doc((40, 800, "DANFE Simplificado"), (40, 780, "Empresa Exemplo Ltda"))
    assert "DANFE Simplificado" not in _values(title, "seller_name")


def test_a_heading_alone_on_its_row_heads_the_box_under_it_wherever_that_starts():
    dt = _doc((136, 630, "EMITENTE"), (20, 617, "NOME: Empresa Exemplo"),
              (20, 603, "CNPJ: 92.422.411/0001-93"), (140, 603, "IE: 1234567"))
    assert _values(dt, "seller_name", P.PARTY_LABEL) == ["Empresa Exemplo"]


def test_a_name_sub_label_is_read_whole_and_longest_first():
    # "nome:" is not the French "nom" followed by "e:", "firmanavn:" not "firma" and "navn:"
    for label in ("NOME:", "Firmanavn:", "Nazwa firmy:"):
        dt = _doc((40, 700, "Seller"), (40, 686, f"{label} Exemplo Verktøy"))
        assert _values(dt, "seller_name", P.PARTY_LABEL) == ["Exemplo Verktøy"], label


def test_the_first_name_over_an_address_under_the_title_is_the_letterhead():
    dt = _doc((404, 730, "Invoice number: 12345"), (85, 690, "Invoice"),
              (416, 713, "Date: March 31, 2018"), (85, 638, "Lumenwerk"),
              (85, 620, "26 rue des Lilas"), (85, 602, "69100 Villeurbanne"))
    assert _values(dt, "seller_name", P.LETTERHEAD) == ["Lumenwerk"]
    # as low on the page without an address under it, it is any line
    bare = _doc((404, 730, "Invoice number: 12345"), (85, 690, "Invoice"),
                (85, 638, "Lumenwerk"), (85, 560, "Thank you for your order"))
    assert _values(bare, "seller_name", P.LETTERHEAD) == []


def test_a_line_that_ends_with_a_colon_is_a_label_not_a_name():
    dt = _doc((20, 797, "RECEBEMOS DE EXEMPLO:"), (20, 770, "Nordlicht Handel"),
              (20, 756, "Hafenstraße 4"))
    assert "RECEBEMOS DE EXEMPLO" not in _values(dt, "seller_name")
    assert _values(dt, "seller_name", P.LETTERHEAD) == ["Nordlicht Handel"]


def test_inv_hash_labels_the_invoice_number_and_an_e_way_bill_number_is_not_it():
    dt = _doc((140, 760, "PO BOX 12345"), (300, 760, "Inv # 5512048"), (450, 760, "Acct # 3381"))
    assert _values(dt, "invoice_number", "label") == ["5512048"]
    way = _doc((300, 700, "E-Way Bill No."), (420, 700, "61234987"),
               (300, 740, "Invoice No."), (420, 740, "INV-1187-24"))
    assert _values(way, "invoice_number", "label") == ["INV-1187-24"]


def test_a_number_that_starts_with_a_label_word_is_read_as_the_value_of_the_label_before_it():
    # "GST" names a tax, but the cell is one identifier: the invoice number under its label
    dt = _doc((300, 740, "Invoice No."), (420, 740, "GST-1187-24"), (500, 740, "Invoice Date"))
    assert _values(dt, "invoice_number", "label") == ["GST-1187-24"]
