"""The invoice's total after its document-level allowances (ranker/adjustments.py,
ranker/joint.py): a figure printed over an allowance ("Gross Total", "Agency Commission", "Net
Amount Due") is a subtotal, and the figure the allowance leaves is the gross total, the amount
due and, with no VAT between, the net total (EN 16931: BT-109 = BT-106 - BT-107 + BT-108). A
discount for paying early, a deposit paid or a bare negative figure is no such allowance."""

from decimal import Decimal

import pytest
from cell_pages import page_of

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.ranker import joint
from ledgerline.extraction.ranker.rows import document_rows

D = Decimal


def _after(*cells) -> dict:
    dt = page_of((40, 800, "Invoice 4711"), *cells)
    return document_rows(dt, find_candidates(dt)).after_allowances


def test_a_broadcasters_gross_billing_less_the_agency_commission():
    assert _after(
        (380, 300, "Gross Total"), (500, 300, "$1,485.00"),
        (380, 288, "Agency Commission"), (510, 288, "$222.75"),
        (380, 276, "Net Amount Due"), (500, 276, "$1,262.25"),
    ) == {D("1485.00"): (D("1262.25"), True, frozenset({D("222.75")}))}


def test_a_box_border_read_before_the_label_and_a_zero_tax_between():
    # OCR reads a box's left border as "[", and the sales tax row between adds nothing
    assert _after(
        (380, 300, "[Gross Total"), (500, 300, "$12,575.00"),
        (380, 288, "[Commission"), (496, 288, "($1,886.25)"),
        (380, 276, "Sales Tax"), (516, 276, "$0.00"),
        (380, 258, "[Net Total"), (500, 258, "$10,688.75"),
    ) == {D("12575.00"): (D("10688.75"), True, frozenset({D("1886.25")}))}


@pytest.mark.parametrize(("subtotal", "allowance", "total"), [
    ("Zwischensumme", "Rabatt", "Gesamtbetrag"),
    ("Sous-total", "Remise", "Total"),
    ("Subtotal", "Descuento", "Total"),
    ("Subtotale", "Sconto", "Totale"),
    ("Subtotaal", "Korting", "Totaal"),
    ("Delsumma", "Rabatt", "Att betala"),
])
def test_every_languages_allowance_words(subtotal, allowance, total):
    assert _after(
        (380, 300, subtotal), (500, 300, "1.000,00"),
        (380, 288, allowance), (510, 288, "100,00"),
        (380, 276, total), (506, 276, "900,00"),
    ) == {D("1000.00"): (D("900.00"), True, frozenset({D("100.00")}))}


def test_vat_between_moves_the_gross_not_the_net():
    # the subtotal less the discount plus the VAT: the figure after includes VAT
    assert _after(
        (380, 300, "Subtotal"), (500, 300, "1,000.00"),
        (380, 288, "Discount"), (506, 288, "-100.00"),
        (380, 276, "VAT 19 %"), (506, 276, "171.00"),
        (380, 264, "Total"), (500, 264, "1,071.00"),
    ) == {D("1000.00"): (D("1071.00"), False, frozenset({D("100.00")}))}


@pytest.mark.parametrize("label", [
    "Skonto 2 %", "Cash discount", "Discount for early payment", "Escompte 2 %",
    "Descuento por pronto pago", "Deposit paid", "Anzahlung",
])
def test_a_discount_for_paying_early_or_a_deposit_leaves_the_total(label):
    assert _after(
        (380, 300, "Total"), (500, 300, "1,000.00"),
        (380, 288, label), (506, 288, "-20.00"),
        (380, 276, "Amount payable"), (506, 276, "980.00"),
    ) == {}


def test_a_bare_negative_figure_is_no_allowance():
    # a withholding tax deducted from the total to pay leaves the gross total as it is
    assert _after(
        (380, 300, "Total"), (500, 300, "1,000.00"),
        (380, 288, "IRPF 15 %"), (506, 288, "-150.00"),
        (380, 276, "Total to pay"), (506, 276, "850.00"),
    ) == {}


def test_the_arithmetic_must_hold_to_the_cent():
    assert _after(
        (380, 300, "Gross Total"), (500, 300, "$1,485.00"),
        (380, 288, "Agency Commission"), (510, 288, "$222.75"),
        (380, 276, "Net Amount Due"), (500, 276, "$1,262.00"),
    ) == {}


def _totals(after):
    # a real scan's probabilities: "Gross Total" sure, the commission a likely VAT (net 1262.25
    # and 222.75 add up to 1485.00, by the page's design)
    values = {
        "net_total": {D("1262.25"): 0.998, D("1485.00"): 0.001},
        "tax_total": {D("222.75"): 0.154, D("225.00"): 0.005},
        "gross_total": {D("1485.00"): 0.795, D("1262.25"): 0.023},
        "amount_due": {D("1262.25"): 0.993, D("1485.00"): 0.063},
    }
    return joint.choose_totals(values, deducted=frozenset({D("1485.00")}),
                               subtotals=frozenset({D("1485.00")}), after=after)


def test_the_figure_after_the_allowance_takes_the_subtotals_weight():
    after = {D("1485.00"): (D("1262.25"), True, frozenset({D("222.75")}))}
    picks = _totals(after)
    assert [picks[f].value for f in ("net_total", "tax_total", "gross_total", "amount_due")] == [
        D("1262.25"), None, D("1262.25"), D("1262.25")]
    # without the page's arithmetic, only the subtotal's prior: the commission taken for VAT
    picks = _totals({})
    assert (picks["tax_total"].value, picks["gross_total"].value) == (D("222.75"), D("1485.00"))


def test_with_vat_between_the_net_total_stays_the_rankers():
    values = {
        "net_total": {D("1000.00"): 0.6, D("900.00"): 0.3},
        "tax_total": {},
        "gross_total": {D("1000.00"): 0.9, D("1071.00"): 0.05},
        "amount_due": {},
    }
    picks = joint.choose_totals(
        values, subtotals=frozenset({D("1000.00")}),
        after={D("1000.00"): (D("1071.00"), False, frozenset({D("100.00")}))})
    assert (picks["net_total"].value, picks["gross_total"].value) == (D("1000.00"), D("1071.00"))
