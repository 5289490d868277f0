"""Candidates behind misses on layouts no source taught: a sentence is no party name, a heading
that ends with a party label heads its block, a padded number or one continued by another is no
amount and one with its currency word beside it is, "I.V.A." labels the VAT. Invented pages,
one shape each."""

from __future__ import annotations

from decimal import Decimal

from cell_pages import page_of

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.ranker import stated
from ledgerline.extraction.ranker.rows import document_rows

D = Decimal


def test_an_exclamation_or_a_question_is_no_name():
    dt = page_of(
        (50, 800, "Bereiche ohne Inhalte werden nicht dargestellt!"),
        (50, 780, "Nordlicht Trading Ltd"),
        (50, 766, "12 Harbour Street, Leeds LS1 4AB"),
    )
    names = {c.value for c in find_candidates(dt).fields["seller_name"]}
    assert "Nordlicht Trading Ltd" in names
    assert not any(str(n).endswith("!") for n in names)


def test_a_number_padded_with_zeros_is_no_amount():
    dt = page_of((50, 800, "Invoice 12"), (100, 500, "00000"), (100, 480, "0427"),
                 (400, 300, "Total"), (500, 300, "38290"))
    amounts = {c.value for c in find_candidates(dt).fields["tax_total"]}
    assert D("38290") in amounts and D("0") not in amounts and D("427") not in amounts


def test_dotted_vat_abbreviations_label_the_vat_total():
    dt = page_of((40, 800, "Factura A-106"), (400, 300, "SUB-TOTAL:"), (500, 300, "$95.13"),
                 (400, 288, "I.V.A. 16%:"), (500, 288, "$15.22"),
                 (400, 276, "TOTAL:"), (500, 276, "$110.35"))
    rows = document_rows(dt, find_candidates(dt)).rows["tax_total"]
    assert any(r.value == D("15.22") and stated.names_it(r) for r in rows)


def test_a_heading_that_ends_with_a_party_label_heads_the_partys_block():
    dt = page_of(
        (60, 770, "Informationen zum Käufer"),
        (60, 750, "Name:"), (136, 750, "Kestrel Farms GmbH"),
        (60, 700, "Informationen zum Verkäufer"),
        (60, 680, "Firmenname:"), (136, 680, "Nordlicht Handel GmbH"),
        (60, 662, "PLZ:"), (136, 662, "12345"),
    )
    found = find_candidates(dt).fields
    labelled = {f: {c.value for c in found[f] if c.evidence.kind == "party_label"}
                for f in ("seller_name", "buyer_name")}
    assert labelled == {"seller_name": {"Nordlicht Handel GmbH"},
                        "buyer_name": {"Kestrel Farms GmbH"}}


def test_an_amount_with_its_currency_word_beside_it_is_an_amount():
    dt = page_of((50, 800, "FATTURA"), (300, 400, "Task Demo"), (380, 400, "1168 Euro"),
                 (300, 300, "TOTALE"), (380, 300, "1424,96 Euro"),
                 (120, 200, "ai sensi del DPR 642/72 e successive modifiche"))
    amounts = {c.value for c in find_candidates(dt).fields["net_total"]}
    assert D("1168") in amounts and D("1424.96") in amounts and D("642") not in amounts


def test_a_party_label_alone_on_its_line_is_no_name():
    dt = page_of((50, 800, "Szállító/Sold by"), (50, 786, "Vendeur"),
                 (300, 800, "Invoice 17"), (50, 600, "Minta Kft, 1111 Budapest"))
    names = {c.value for c in find_candidates(dt).fields["seller_name"]}
    assert "Szállító/Sold by" not in names and "Vendeur" not in names


def test_an_address_line_under_a_party_heading_is_no_name():
    dt = page_of((75, 790, "LOGO Vendeur"), (75, 769, "35 rue d'ici, Seller line 2"),
                 (75, 759, "75018 PARIS, FR"), (300, 790, "FACTURE N° : F20200027"))
    names = {c.value for c in find_candidates(dt).fields["seller_name"]}
    assert not any(str(n).startswith("35 rue") for n in names)


def test_an_article_and_a_party_word_under_a_heading_is_the_partys_name():
    dt = page_of(
        (60, 770, "Adresse du Client"),
        (60, 756, "LE CLIENT"),
        (60, 742, "12 rue des Lilas, 75011 Paris"),
        (300, 800, "FACTURE N° F-2021-7"),
    )
    names = {c.value for c in find_candidates(dt).fields["buyer_name"]
             if c.evidence.kind == "party_label"}
    assert names == {"LE CLIENT"}


def test_a_law_cited_in_the_small_print_gives_no_invoice_number():
    dt = page_of(
        (130, 632, "data:  29/03/2021"), (276, 618, "FATTURA n."),
        (123, 242, "Il presente documento non costituisce fattura ai sensi dell'art. 21 del DPR"),
        (123, 230, "633/72. L'operazione è assoggettata ad imposta (art.6,"),
        (123, 219, "comma 2, del DPR 642/72) e verrà emessa regolare fattura fiscale."),
        (123, 150, "Article 196 of Directive 2006/112/EC: reverse charge"),
    )
    numbers = {c.value for c in find_candidates(dt).fields["invoice_number"]}
    assert not numbers & {"633/72", "21", "642/72", "2", "art.6", "DPR", "196", "2006/112/EC"}
