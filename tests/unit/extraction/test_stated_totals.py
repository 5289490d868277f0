"""Net and VAT totals are given only as the page states them
(:mod:`ledgerline.extraction.ranker.stated`), and a gross total printed over a deduction is a
subtotal. Invented values, one rule each."""

from __future__ import annotations

from decimal import Decimal

from cell_pages import page_of

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.ranker import joint, stated
from ledgerline.extraction.ranker.features import FEATURE_INDEX, FEATURE_NAMES, Row
from ledgerline.extraction.ranker.model import FieldPick, _subtotals
from ledgerline.extraction.ranker.rows import document_rows
from ledgerline.extraction.review import reasons_to_look

D = Decimal


class _Cand:
    def __init__(self, line: int):
        self.line, self.bbox = line, [400.0, 100.0 + line, 450.0, 109.0 + line]


def _row(field: str, value, line: int, *, label: bool = False) -> Row:
    x = [0.0] * len(FEATURE_NAMES)
    if label:
        x[FEATURE_INDEX["lab_weight"]] = 1.0
    return Row(field, D(value), [_Cand(line)], x)


def _picks(**printed) -> tuple[dict, dict]:
    """Picks and rows of the totals: field=(value, line, labelled[, derived])."""
    picks, rows = {}, {}
    for field, spec in printed.items():
        value, line, label, *derived = spec
        row = _row(field, value, line, label=label)
        rows[field] = [row]
        computed = bool(derived and derived[0])
        picks[field] = FieldPick(D(value), 0.9, 0.9, None if computed else row, computed)
    return picks, rows


def test_the_one_total_of_an_invoice_without_vat_is_not_also_its_net():
    picks, rows = _picks(net_total=("10545.00", 31, False), gross_total=("10545.00", 31, True))
    assert stated.unstated(picks, rows) == {"net_total": stated.NO_EVIDENCE}


def test_a_labelled_net_and_vat_are_given():
    picks, rows = _picks(net_total=("100.00", 20, True), tax_total=("19.00", 21, True),
                         gross_total=("119.00", 22, True))
    assert stated.unstated(picks, rows) == {}


def test_net_and_vat_that_make_the_gross_confirm_each_other_without_labels():
    picks, rows = _picks(net_total=("100.00", 20, False), tax_total=("19.00", 21, False),
                         gross_total=("119.00", 22, True))
    assert stated.unstated(picks, rows) == {}


def test_a_vat_of_zero_confirms_nothing_and_needs_its_label():
    # zeros fill discount columns, credit rows and empty tax columns: net + 0 = gross holds for
    # the one total of an invoice without VAT taken twice
    picks, rows = _picks(net_total=("567.50", 25, False), tax_total=("0", 5, False),
                         gross_total=("567.50", 25, True))
    assert stated.unstated(picks, rows) == {"net_total": stated.NO_EVIDENCE,
                                            "tax_total": stated.NO_EVIDENCE}
    picks, rows = _picks(net_total=("567.50", 24, True), tax_total=("0", 25, True),
                         gross_total=("567.50", 26, True))
    assert stated.unstated(picks, rows) == {}


def test_two_line_amounts_that_make_the_total_are_lines_not_a_net_and_a_vat():
    # 10 x 100.00 = 1,000.00 and 2 x 115.00 = 230.00, "Totale Fattura 1,230.00", no VAT printed
    picks, rows = _picks(net_total=("1000.00", 18, False), tax_total=("230.00", 22, False),
                         gross_total=("1230.00", 10, True))
    lines = frozenset({D("1000.00"), D("230.00")})
    assert stated.unstated(picks, rows, lines) == {"net_total": stated.NO_EVIDENCE,
                                                   "tax_total": stated.NO_EVIDENCE}
    assert stated.unstated(picks, rows) == {}


def test_a_computed_total_is_withheld():
    picks, rows = _picks(net_total=("100.00", 20, True), tax_total=("19.00", 0, False, True),
                         gross_total=("119.00", 22, True))
    assert stated.unstated(picks, rows) == {"tax_total": stated.COMPUTED}


def test_a_subtotal_that_does_not_make_the_gross_with_the_vat_is_not_the_net():
    # subtotal 109.90 + sales tax 10.99 + shipping 5.00 = total 125.89
    picks, rows = _picks(net_total=("109.90", 20, True), tax_total=("10.99", 21, True),
                         gross_total=("125.89", 23, True))
    assert stated.unstated(picks, rows) == {"net_total": stated.CONTRADICTED}


def test_without_a_vat_amount_a_net_above_the_gross_is_a_subtotal():
    # subtotal, a discount, shipping, the total: no tax printed
    picks, rows = _picks(net_total=("5661.12", 20, True), gross_total=("5314.27", 24, True))
    assert stated.unstated(picks, rows) == {"net_total": stated.CONTRADICTED}
    # a VAT printed as a rate alone leaves the gross above the net: no contradiction
    picks, rows = _picks(net_total=("30.00", 20, True), gross_total=("36.00", 22, True))
    assert stated.unstated(picks, rows) == {}


def test_a_withheld_value_says_in_its_review_reason_what_was_found():
    note = stated.withheld_note(D("16.00"), stated.COMPUTED)
    entry = {"value": None, "confidence": 0.0, "raw": None, "page": None, "bbox": None}
    fields = {name: dict(entry) for name in (
        "invoice_number", "issue_date", "currency", "seller_name", "net_total", "tax_total",
        "gross_total")}
    fields["document_type"] = {**entry, "value": "invoice", "confidence": 1.0}
    reasons = reasons_to_look(fields, {}, {"tax_total": note})
    assert "tax_total: the page does not state it (16.00 was found, but computed from the " \
           "other totals, not printed)" in reasons
    assert "net_total: not found on the invoice" in reasons


def _withheld(picks: dict, rows: dict, field: str) -> None:
    """The pick of ``field`` withheld as unstated, as the ranker withholds it."""
    found = picks[field].value
    picks[field] = FieldPick(None, 0.0, 0.0, None, withheld=stated.withheld_note(
        found, stated.NO_EVIDENCE), found=found)


def test_one_total_and_no_vat_at_all_states_no_net_and_no_vat():
    # "TOTAL DUE €10,545.00", no VAT anywhere: the one total was also found as the net
    picks, rows = _picks(net_total=("10545.00", 31, False), gross_total=("10545.00", 31, True))
    _withheld(picks, rows, "net_total")
    picks["tax_total"] = FieldPick(None, 0.0, 0.0, None)
    assert stated.states_no_vat(picks, rows, frozenset())
    # no net candidate at all: the same
    assert stated.states_no_vat({**picks, "net_total": FieldPick(None, 0.0, 0.0, None)}, rows,
                                frozenset())
    # a VAT rate printed without its amount leaves the VAT open
    assert not stated.states_no_vat(picks, rows, frozenset({D("7")}))
    # a figure a VAT label names, even one not chosen, says the page has VAT
    assert not stated.states_no_vat(
        picks, {**rows, "tax_total": [_row("tax_total", "3.89", 30, label=True)]}, frozenset())
    # a VAT total chosen: the page states VAT
    taxed, _ = _picks(tax_total=("0.00", 30, True))
    assert not stated.states_no_vat({**picks, **taxed}, rows, frozenset())
    # a gross total computed, not printed
    derived = {**picks, "gross_total": FieldPick(D("10545.00"), 0.9, 0.9, None, True)}
    assert not stated.states_no_vat(derived, rows, frozenset())


def test_a_subtotal_withheld_as_the_net_leaves_the_vat_open():
    # "Subtotal $10,600.00", "TOTAL $10,570.00": something between them is not stated
    picks, rows = _picks(net_total=("10600.00", 30, True), gross_total=("10570.00", 31, True))
    _withheld(picks, rows, "net_total")
    picks["tax_total"] = FieldPick(None, 0.0, 0.0, None)
    assert not stated.states_no_vat(picks, rows, frozenset())


def test_a_page_without_vat_is_not_reviewed_for_its_net_and_vat():
    entry = {"value": None, "confidence": 0.0, "raw": None, "page": None, "bbox": None}
    fields = {name: {**entry, "value": "x", "confidence": 1.0} for name in (
        "invoice_number", "issue_date", "currency", "seller_name", "gross_total")}
    fields.update({name: dict(entry) for name in ("net_total", "tax_total")})
    fields["document_type"] = {**entry, "value": "invoice", "confidence": 1.0}
    note = {"net_total": stated.withheld_note(D("10545.00"), stated.NO_EVIDENCE)}
    sure = dict.fromkeys(fields, 0.9)
    assert reasons_to_look(fields, sure, note, no_vat=True) == []
    assert [r.split(":")[0] for r in reasons_to_look(fields, sure, note)] == ["net_total",
                                                                           "tax_total"]


def test_a_gross_total_over_a_deduction_and_the_figure_after_it_is_a_subtotal():
    dt = page_of(
        (40, 800, "Invoice 4711"),
        (380, 300, "Gross Total"), (500, 300, "$1,640.00"),
        (380, 288, "Agency commission"), (506, 288, "-$246.00"),
        (380, 276, "Sales Tax"), (516, 276, "$0.00"),
        (380, 264, "NET TOTAL"), (500, 264, "$1,394.00"),
    )
    subtotals = _subtotals(document_rows(dt, find_candidates(dt)))
    assert D("1640.00") in subtotals and D("1394.00") not in subtotals
    values = {
        "net_total": {D("1394.00"): 0.6, D("1640.00"): 0.5},
        "tax_total": {D("0.00"): 0.5},
        "gross_total": {D("1640.00"): 0.8, D("1394.00"): 0.3},
        "amount_due": {},
    }
    assert joint.choose_totals(values)["gross_total"].value == D("1640.00")
    assert joint.choose_totals(values, subtotals=subtotals)["gross_total"].value == D("1394.00")


def test_a_page_that_prints_every_total_negative_has_no_subtotal():
    dt = page_of(
        (40, 800, "Credit note 12"),
        (380, 300, "Total"), (500, 300, "-119.00"),
        (380, 288, "Amount due"), (500, 288, "-119.00"),
        (380, 276, "Balance"), (500, 276, "-119.00"),
    )
    assert _subtotals(document_rows(dt, find_candidates(dt))) == frozenset()
