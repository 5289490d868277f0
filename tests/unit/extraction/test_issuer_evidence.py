"""What the page says for and against a chosen seller name (:mod:`ledgerline.extraction.ranker.issuer`),
and how the confidence and the acceptance threshold use it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from cell_pages import page_of

from ledgerline.extraction import parse_pdf
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.ranker import confidence
from ledgerline.extraction.ranker.issuer import (
    is_label_or_sentence,
    is_place,
    issuer_evidence,
    name_core,
)
from ledgerline.extraction.ranker.model import DISPUTED_CEILING, decide
from ledgerline.extraction.ranker.rows import document_rows
from ledgerline_tools.ranker import train

# The issuer under a seller label, with its VAT id in the block, its website and its bank
# account in the footer; the addressee under a "Bill to" label.
PAGE = [
    (50, 800, "Invoice"),
    (350, 780, "Invoice number: 4711"),
    (50, 760, "From:"),
    (50, 746, "Nordlicht Trading Ltd"),
    (50, 732, "12 Harbour Street, Leeds LS1 4AB"),
    (50, 718, "VAT number: GB123456789"),
    (300, 760, "Bill to:"),
    (300, 746, "Kestrel Farms Ltd"),
    (300, 732, "4 Mill Lane, York YO1 7HH"),
    (50, 80, "www.nordlicht-trading.co.uk"),
    (50, 66, "Account name: Nordlicht Trading Ltd, IBAN GB29NWBK60161331926819"),
]


def _seller_rows(make_pdf):
    dt = DocText(parse_pdf(make_pdf([PAGE])).pages)
    return document_rows(dt, find_candidates(dt)).rows["seller_name"]


def test_the_issuers_own_lines_support_its_name(make_pdf):
    rows = _seller_rows(make_pdf)
    support, against = issuer_evidence("Nordlicht Trading Ltd", rows, "Kestrel Farms Ltd")
    assert support >= 3 and against == 0


def test_the_addressee_taken_for_the_issuer_has_the_page_against_it(make_pdf):
    rows = _seller_rows(make_pdf)
    support, against = issuer_evidence("Kestrel Farms Ltd", rows, "Kestrel Farms Ltd")
    issuer = issuer_evidence("Nordlicht Trading Ltd", rows, "Kestrel Farms Ltd")
    assert against >= 1 and support < issuer[0]


def test_spellings_of_one_name_share_its_core():
    assert name_core("NORDLICHT TRADING LTD.") == name_core("Nordlicht Trading")
    assert name_core("Nordlicht Trading") != name_core("Kestrel Farms")


def test_labels_and_sentences_are_not_names():
    for text in ("Vendeur", "Bill to:", "Teljesítés időpontja/",
                 "Bereiche ohne Inhalte werden nicht dargestellt und bleiben leer!"):
        assert is_label_or_sentence(text), text
    for text in ("Nordlicht Trading Ltd", "Muster GmbH & Co. KG"):
        assert not is_label_or_sentence(text), text


def test_one_or_two_wrong_values_fit_no_calibrator():
    xs = [confidence.evidence(k / 100, 0.5, 1.0, 1, 0.0, False) for k in range(100)]
    two_wrong = [k not in (60, 80) for k in range(100)]
    assert confidence.fit(xs, two_wrong, [1.0] * 100) == confidence.Calibrator()
    three_wrong = [k not in (10, 20, 30) for k in range(100)]
    assert confidence.fit(xs, three_wrong, [1.0] * 100) != confidence.Calibrator()


def test_the_threshold_is_chosen_on_truth_written_from_the_printed_page():
    # a source whose truth names the issuer otherwise (wrong at every confidence) and sources
    # whose truth is the page's, wrong only where the evidence was weak
    def outcome(p, right, source, printed):
        return train.Outcome(confidence.evidence(p, p, 1.0, 1, 0.0, False), right, 1.0, source,
                             printed)

    template = [outcome(0.5 + k / 100, k % 4 != 0, "template", False) for k in range(49)]
    page = [outcome(k / 40, k >= 12, f"page{k}", True) for k in range(40)]
    _cals, thresholds = train.fit_confidence({"seller_name": template + page})
    assert thresholds["seller_name"] < confidence.NEVER
    as_printed = [replace(o, printed_truth=True) for o in template]
    _cals, with_template = train.fit_confidence({"seller_name": as_printed + page})
    assert with_template["seller_name"] == confidence.NEVER


# The addressee at the top left with no label; the issuer only in the footer, with its e-mail
# domain and its VAT id.
UNLABELLED_ADDRESSEE = [
    (318, 780, "Faktura"),
    (312, 744, "Fakturanr 463"),
    (33, 688, "Kestrel Farms AG"),
    (314, 688, "Förfallodag: 2021-07-15"),
    (208, 177, "Nordlicht Handel AB, 23145, Sankta gatan 10."),
    (140, 166, "Kontakta oss, Mejla: info@nordlichthandel.se."),
    (110, 155, "Organisationsnr: 556251-6806. Momsregnr: SE556251680601."),
]


def test_another_name_with_more_of_the_issuers_lines_speaks_against_a_seller(make_pdf):
    dt = DocText(parse_pdf(make_pdf([UNLABELLED_ADDRESSEE])).pages)
    rows = document_rows(dt, find_candidates(dt)).rows["seller_name"]
    issuer = next(str(r.value) for r in rows if str(r.value).startswith("Nordlicht"))
    _support, against = issuer_evidence("Kestrel Farms AG", rows, None)
    assert against >= 1
    assert issuer_evidence(issuer, rows, None)[1] == 0


def test_a_seller_name_the_page_speaks_against_is_never_sure_enough_to_take(make_pdf):
    dt = DocText(parse_pdf(make_pdf([UNLABELLED_ADDRESSEE])).pages)
    doc = document_rows(dt, find_candidates(dt))
    probs = {f: np.zeros(len(rows)) for f, rows in doc.rows.items()}
    probs["seller_name"] = np.asarray(
        [0.99 if str(r.value).startswith("Kestrel") else 0.01 for r in doc.rows["seller_name"]])
    pick = decide(doc, probs, {})["seller_name"]
    assert pick.value == "Kestrel Farms AG"
    assert pick.confidence <= DISPUTED_CEILING


def test_a_name_is_in_a_domain_by_whole_words_only():
    from ledgerline.extraction.ranker.features import name_in_domain

    labels = {"courtbouillon", "org"}
    assert name_in_domain("Court Bouillon", labels) and name_in_domain("CourtBouillon", labels)
    # "our" is inside "courtbouillon", never a word of it
    assert not name_in_domain("Our awesome developers", labels)
    assert name_in_domain("Kenlan Engineering Ltd", {"kenlaneng", "com"})  # its first word
    assert name_in_domain("Planung Hamann OHG", {"planung", "hamann", "de"})
    assert not name_in_domain("The GmbH", {"thegmbh"})  # common words name no one


# The issuer in the letterhead; the addressee under a label framed by a rule, with its e-mail.
FRAMED_BUYER = [
    (75, 807, "Gujarat Freight Tools"),
    (65, 796, "Plot No A 64, Road No 21,"),
    (52, 774, "Mumbai, Maharashtra - 360001"),
    (91, 740, "TAX INVOICE"),
    (14, 710, "=============== BILLED TO ==============="),
    (8, 695, "Name : Shiv Engineering"),
    (8, 676, "Email : hardik@shiveng.com"),
    (8, 657, "Phone : 9878789878"),
]


def test_the_addressees_e_mail_domain_is_no_line_of_the_issuer():
    from ledgerline.extraction.ranker.features import FEATURE_INDEX

    dt = page_of(*FRAMED_BUYER)
    found = find_candidates(dt)
    assert "Shiv Engineering" in {c.value for c in found.fields["buyer_name"]}
    rows = document_rows(dt, found).rows["seller_name"]
    shiv = [r for r in rows if str(r.value) == "Shiv Engineering"]
    assert shiv and not any(r.x[FEATURE_INDEX["name_in_domain"]] for r in shiv)
    assert all(r.x[FEATURE_INDEX["name_in_buyer_block"]] for r in shiv)
    assert issuer_evidence("Gujarat Freight Tools", rows, None)[1] == 0


def test_labels_of_totals_and_columns_and_places_are_no_rival_names():
    for text in ("Totaal", "Unit Price", "Description", "Subtotal"):
        assert is_label_or_sentence(text), text
    for text in ("Price Waterhouse", "Total Energies", "Net Solutions Ltd"):
        assert not is_label_or_sentence(text), text
    for text in ("UNITED STATES", "Schweiz", "FR", "117 58 Liljeholmen Sverige",
                 "SEATTLE WASHINGTON 98101"):
        assert is_place(text), text
    for text in ("Gujarat Freight Tools", "Chad Smith", "Turkey Hill Dairy"):
        assert not is_place(text), text
    # a country printed twice (the issuer's and the addressee's address) disputes no issuer
    dt = page_of((50, 800, "Bedrijf XYZ"), (50, 786, "Straat 123, 4567 AB Plaatsnaam"),
                 (50, 772, "Nederland"), (300, 700, "Jan Jansen"), (300, 686, "Nederland"),
                 (400, 600, "Totaal"), (400, 400, "Totaal"), (480, 400, "€ 1499.99"))
    rows = document_rows(dt, find_candidates(dt)).rows["seller_name"]
    assert issuer_evidence("Bedrijf XYZ", rows, None)[1] == 0
