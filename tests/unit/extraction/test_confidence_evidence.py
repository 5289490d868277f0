"""The evidence a value's confidence rests on beyond the ranker's probability
(:mod:`ledgerline.extraction.ranker.confidence`): the VAT rate the page prints, a seller "name"
that is a code, totals that add up with doubtful partners, and how the calibrators are fitted
where a field has few wrong values."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from ledgerline.extraction import parse_pdf
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.ranker import confidence
from ledgerline.extraction.ranker import model as ranker_model
from ledgerline.extraction.ranker.issuer import is_code, is_label_or_sentence, issuer_evidence
from ledgerline.extraction.ranker.rates import (
    one_rate_of_several,
    printed_rates,
    rate_agreement,
)
from ledgerline.extraction.ranker.rows import document_rows
from ledgerline_tools.ranker import train
from tests.unit.extraction.test_issuer_evidence import UNLABELLED_ADDRESSEE

D = Decimal

# A VAT rate and an interest rate printed; the issuer's name, and its digital seal's code.
PAGE = [
    (50, 800, "Nordlicht Handel GmbH"),
    (350, 780, "Rechnung Nr. RE-2024-117"),
    (50, 500, "Nettobetrag"),
    (400, 500, "200,00"),
    (50, 486, "MwSt. 19 %"),
    (400, 486, "38,00"),
    (50, 472, "Gesamtbetrag"),
    (400, 472, "238,00"),
    (50, 120, "Verzugszinsen 9,5 % p.a."),
    (50, 100, "Sello digital: i12VqEYkG+asUByRFQ=="),
]


def _dt(make_pdf):
    return DocText(parse_pdf(make_pdf([PAGE])).pages)


def test_the_percentages_a_page_prints_are_its_rates(make_pdf):
    assert printed_rates(_dt(make_pdf)) == {D("19"), D("9.5")}


def test_a_vat_that_is_the_net_at_a_printed_rate_agrees():
    rates = frozenset({D("19"), D("9.5")})
    assert rate_agreement(D("200.00"), D("38.00"), rates) == 1.0
    # rounded per line: a cent or half a percent of the VAT off
    assert rate_agreement(D("1234.56"), D("234.57"), rates) == 1.0
    # a credit note's negative totals
    assert rate_agreement(D("-200.00"), D("-38.00"), rates) == 1.0


def test_no_printed_rate_fitting_says_nothing_against_the_pair():
    # a discount taken for the VAT, or the rate printed without its sign in a VAT column
    assert rate_agreement(D("1.80"), D("0.20"), frozenset({D("15")})) == 0.0
    assert rate_agreement(D("200.00"), D("48.00"), frozenset()) == 0.0
    # no VAT at all: exempt or reverse charge, whatever rate the page names
    assert rate_agreement(D("200.00"), D("0"), frozenset({D("19")})) == 0.0
    assert rate_agreement(None, D("38.00"), frozenset({D("19")})) == 0.0


def _breakdown(*rows: tuple[str, ...]) -> DocText:
    """A page printing each row's cells side by side, one row under the other."""
    from ledgerline.extraction.model import Line, Page

    lines = []
    for k, cells in enumerate(rows):
        y = 500.0 - 15 * k
        for n, text in enumerate(cells):
            x = 270.0 + 90 * n
            lines.append(Line(1, x, y, x + 5 * len(text), y + 9, text,
                              [(x + 5 * c, x + 5 * (c + 1)) for c in range(len(text))]))
    return DocText([Page(1, 595.0, 842.0, lines)])


def test_a_net_and_vat_that_are_one_rate_of_a_breakdown_are_that_rates_share():
    """The calibration's photo whose totals row OCR lost: its 22 % row was taken for the
    totals. The rows' sums, and a breakdown of one rate (its row is the totals), are not."""
    dt = _breakdown(("Aliquota", "Imponibile", "Imposta", "Importo IVA incl."),
                    ("22%", "2.597,35", "571,42", "3.168,77"),
                    ("10%", "237,98", "23,80", "261,78"))
    assert one_rate_of_several(D("2597.35"), D("571.42"), dt)
    assert one_rate_of_several(D("-237.98"), D("-23.80"), dt)
    assert not one_rate_of_several(D("2835.33"), D("595.22"), dt)
    assert not one_rate_of_several(None, D("571.42"), dt)
    single = _breakdown(("22%", "2.597,35", "571,42", "3.168,77"))
    assert not one_rate_of_several(D("2597.35"), D("571.42"), single)


def test_codes_are_not_names():
    for text in ("i12VqEYkG+asUByRFQ==", "GBA850422V27", "2021/0042", "5ED0B031-0FE0-4E8C"):
        assert is_code(text) and is_label_or_sentence(text), text
    for text in ("Nordlicht Handel GmbH", "1&1 Internet SE", "A1 Telekom Austria", "Studio 54",
                 "CZ.NIC, z.s.p.o.", "Tedros-IT & Associate AB", "[Seller Name]"):
        assert not is_code(text), text


def test_a_seller_name_that_is_a_code_has_the_page_against_it(make_pdf):
    dt = _dt(make_pdf)
    rows = document_rows(dt, find_candidates(dt)).rows["seller_name"]
    assert issuer_evidence("i12VqEYkG+asUByRFQ==", rows, None)[1] >= 1
    assert issuer_evidence("Nordlicht Handel GmbH", rows, None)[1] == 0


def test_disputed_seller_names_keep_their_order_under_the_ceiling(make_pdf):
    # the addressee at the top left with no label, the issuer only in the footer: the page
    # speaks against the addressee as the seller
    dt = DocText(parse_pdf(make_pdf([UNLABELLED_ADDRESSEE])).pages)
    doc = document_rows(dt, find_candidates(dt))
    confidences = []
    for p in (0.95, 0.6):
        probs = {f: np.zeros(len(rows)) for f, rows in doc.rows.items()}
        probs["seller_name"] = np.asarray(
            [p if str(r.value).startswith("Kestrel") else 0.0 for r in doc.rows["seller_name"]])
        pick = ranker_model.decide(doc, probs, {})["seller_name"]
        assert pick.value == "Kestrel Farms AG"
        assert pick.evidence[confidence.EVIDENCE.index("against")] >= 1
        confidences.append(pick.confidence)
    # both under the ceiling, and not tied there: the surer one stays the surer
    assert ranker_model.DISPUTED_CEILING >= confidences[0] > confidences[1]


def _picks(net, tax, gross, sure):
    return {name: ranker_model.FieldPick(D(value), sure[k], sure[k], None)
            for k, (name, value) in enumerate((("net_total", net), ("tax_total", tax),
                                                ("gross_total", gross)))}


def test_totals_that_add_up_agree_as_far_as_the_other_two_are_sure():
    sure = _picks("200.00", "38.00", "238.00", (0.95, 0.9, 0.97))
    assert ranker_model._arithmetic("net_total", sure) == 0.9
    # a subtotal, its discount and the figure after it add up too, and the ranker doubts them
    doubtful = _picks("1.80", "0.20", "2.00", (0.85, 0.39, 0.52))
    assert ranker_model._arithmetic("net_total", doubtful) == 0.39
    assert ranker_model._arithmetic("tax_total", doubtful) == 0.52
    # a contradiction is one whatever the others' probability
    assert ranker_model._arithmetic("net_total", _picks("200.00", "38.00", "250.00",
                                                        (0.9, 0.1, 0.1))) == -1.0


def _outcomes(places_of_wrong: int, n: int = 120):
    """Right where the ranker was sure; the few wrong values printed in more places."""
    xs, right = [], []
    for k in range(n):
        p = 0.3 + 0.7 * k / n
        wrong = k % 30 == 0
        xs.append(confidence.evidence(p, 0.5, 1.0, places_of_wrong if wrong else 1, 0.0, False))
        right.append(not wrong and p > 0.35)
    return xs, right


def test_evidence_that_comes_out_the_wrong_way_is_left_out_of_the_fit():
    xs, right = _outcomes(places_of_wrong=3)
    places = confidence.EVIDENCE.index("places")
    free = confidence.fit(xs, right, [1.0] * len(xs))
    assert free.coef[places] < 0  # printed in more places, less sure: an accident of the data
    signs = tuple(confidence.SIGNS[name] for name in confidence.EVIDENCE)
    bound = confidence.fit(xs, right, [1.0] * len(xs), signs)
    assert bound.coef[places] == 0.0
    assert all(c * s >= 0 for c, s in zip(bound.coef, signs, strict=True))
    # the probability still counts
    assert bound(xs[-1]) > bound(xs[5])


def test_a_field_with_too_few_wrong_values_is_calibrated_on_every_ranked_field():
    def outcomes(field_wrong_every, source_prefix):
        got = []
        for k in range(60):
            p = k / 60
            ev = confidence.evidence(p, p, 1.0, 1, 0.0, False)
            right = p > 0.3 if field_wrong_every is None else k % field_wrong_every != 1
            got.append(train.Outcome(ev, right, 1.0, f"{source_prefix}{k % 6}", True))
        return got

    # the invoice number was wrong once out of source; the dates and the totals more often
    pairs = {"invoice_number": outcomes(60, "a"), "issue_date": outcomes(None, "b"),
             "gross_total": outcomes(None, "c"), "currency": outcomes(60, "d")}
    cals, thresholds = train.fit_confidence(pairs)
    assert cals["invoice_number"].coef  # the evidence counts: not the raw probability
    low = confidence.evidence(0.2, 0.2, 1.0, 1, 0.0, False)
    high = confidence.evidence(0.9, 0.9, 1.0, 1, 0.0, False)
    assert cals["invoice_number"](low) < cals["invoice_number"](high)
    # the currency is not a ranked field: its evidence means other things, it is not pooled
    assert cals["currency"] == confidence.Calibrator()
    assert set(thresholds) >= {"invoice_number", "currency"}
