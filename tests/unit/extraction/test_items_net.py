"""The net total the line items imply: their sum through the document-level allowances and
charges the page prints (ranker/adjustments.py)."""
from decimal import Decimal as D

from ledgerline.extraction.ranker.adjustments import adjustments, items_net, items_sum

from cell_pages import page_of


def _net(dt, *amounts):
    plain = items_sum([{"net_amount": D(a)} for a in amounts])
    return items_net(dt, plain)


def test_a_discount_under_the_items_takes_their_sum_to_the_net():
    dt = page_of(
        (300, 500, "Total before discount"), (480, 500, "150.00"),
        (300, 485, "Discount 10 %"), (480, 485, "-15.00"),
        (300, 470, "Net total"), (480, 470, "135.00"),
        (300, 455, "VAT 20 %"), (480, 455, "27.00"),
        (300, 440, "Total"), (480, 440, "162.00"),
    )
    assert adjustments(dt, exclude=D("150.00")) == ({D("15.00")}, set())
    assert _net(dt, "100.00", "50.00") == D("135.00")


def test_allowances_and_charges_on_the_document_level_each_count_once():
    # an EN 16931 rendering: the sum of the charges in the totals block, each allowance and
    # charge in a block of its own with its base, its percentage and its VAT rate
    dt = page_of(
        (60, 700, "Summe aller Positionen"), (400, 700, "netto"), (530, 700, "10.000,00"),
        (60, 685, "Summe Zuschläge"), (400, 685, "netto"), (540, 685, "400,00"),
        (60, 670, "Gesamtsumme"), (400, 670, "netto"), (535, 670, "7.900,00"),
        (60, 600, "Grundbetrag"), (220, 600, "netto"), (270, 600, "2.000,00"),
        (60, 585, "Prozentsatz"), (270, 585, "40.00%"),
        (60, 570, "Nachlass"), (220, 570, "netto"), (270, 570, "1.000,00"),
        (60, 555, "Umsatzsteuersatz des Nachlasses"), (290, 555, "19"),
        (60, 540, "Nachlass"), (220, 540, "netto"), (270, 540, "1.500,00"),
        (60, 500, "Zuschlag"), (220, 500, "netto"), (270, 500, "400,00"),
    )
    assert adjustments(dt, exclude=D("10000.00")) == (
        {D("1000.00"), D("1500.00")}, {D("400.00")})
    assert _net(dt, "10000.00") == D("7900.00")


def test_the_plain_sum_is_kept_where_the_carried_one_is_not_printed():
    # a deduction from the gross (or a word read on another row) does not land on a figure
    dt = page_of(
        (300, 500, "Net total"), (480, 500, "100.00"),
        (300, 485, "VAT"), (480, 485, "20.00"),
        (300, 470, "Total"), (480, 470, "120.00"),
        (300, 455, "Discount for early payment"), (480, 455, "-2.40"),
    )
    assert _net(dt, "60.00", "40.00") == D("100.00")


def test_without_allowances_or_charges_the_sum_is_the_items_sum():
    dt = page_of((300, 500, "Total"), (480, 500, "100.00"))
    assert _net(dt, "60.00", "40.00") == D("100.00")
    assert items_sum([{"net_amount": D("60.00")}, {"net_amount": None}]) is None
    assert items_sum([]) is None
    assert items_sum([{"net_amount": D("-60.00")}, {"net_amount": D("-40.00")}]) == D("100.00")
