"""EN 16931 arithmetic rules, identifier checksums and their effect on confidence."""

import datetime as dt
from decimal import Decimal as D

from ledgerline.extraction.validation import (
    apply_to_confidence,
    arithmetic_rules,
    br_co_17_row,
    date_check,
    iban_check,
    run_all,
    vat_id_check,
)


def _by_rule(results):
    return {r["rule"]: r for r in results}


def test_consistent_xml_invoice_passes_everything():
    fields = {
        "net_total": D("198.00"),
        "tax_total": D("37.62"),
        "gross_total": D("235.62"),
        "amount_due": D("235.62"),
    }
    items = [{"net_amount": D("198.00")}]
    totals = {
        "line_total": D("198.00"),
        "allowance_total": None,
        "charge_total": None,
        "prepaid": None,
        "rounding": None,
    }
    breakdown = [{"basis": D("198.00"), "amount": D("37.62"), "rate": D("19")}]
    res = _by_rule(
        arithmetic_rules(fields, line_items=items, totals=totals, tax_breakdown=breakdown)
    )
    assert {k: v["status"] for k, v in res.items()} == {
        "BR-CO-10": "pass",
        "BR-CO-13": "pass",
        "BR-CO-14": "pass",
        "BR-CO-15": "pass",
        "BR-CO-16": "pass",
        "BR-CO-17": "pass",
    }


def test_br_co_15_is_exact():
    res = _by_rule(
        arithmetic_rules(
            {"net_total": D("100"), "tax_total": D("19"), "gross_total": D("119.01")},
            line_items=None,
            totals=None,
            tax_breakdown=None,
        )
    )
    assert res["BR-CO-15"]["status"] == "fail"
    assert "0.01" in res["BR-CO-15"]["detail"]
    assert res["BR-CO-14"]["status"] == "skipped"


def test_a_printed_gross_rounded_to_whole_units_passes_br_co_15():
    # "Taxable Amount 3,805.00", "Total Tax 684.90", "Total Amount After Tax 4,490.00": the
    # total rounded to the rupee, no rounding amount printed
    rounded = {"net_total": D("3805.00"), "tax_total": D("684.90"), "gross_total": D("4490.00")}
    res = _by_rule(run_all(rounded, line_items=None, totals=None, tax_breakdown=None))
    assert res["BR-CO-15"]["status"] == "pass"
    assert "rounded to whole units" in res["BR-CO-15"]["detail"]
    # an e-invoice states its rounding (BT-114): its rule stays exact
    exact = _by_rule(arithmetic_rules(rounded, line_items=None, totals=None, tax_breakdown=None))
    assert exact["BR-CO-15"]["status"] == "fail"
    # not whole units, half a unit or more away, or too large a share of a small total: wrong
    for gross in ("4490.50", "4490.40", "4491", "4489"):
        wrong = {**rounded, "gross_total": D(gross)}
        res = _by_rule(run_all(wrong, line_items=None, totals=None, tax_breakdown=None))
        assert res["BR-CO-15"]["status"] == "fail", gross
    small = {"net_total": D("1.70"), "tax_total": D("0.36"), "gross_total": D("2")}
    res = _by_rule(run_all(small, line_items=None, totals=None, tax_breakdown=None))
    assert res["BR-CO-15"]["status"] == "fail"


def test_a_page_that_states_no_vat_passes_br_co_15_on_its_gross_total_alone():
    only_gross = {"net_total": None, "tax_total": None, "gross_total": D("10545.00")}
    res = _by_rule(run_all(only_gross, line_items=None, totals=None, tax_breakdown=None,
                           no_vat=True))
    assert res["BR-CO-15"]["status"] == "pass"
    assert "no VAT printed" in res["BR-CO-15"]["detail"]
    # not known to state no VAT: the check cannot run, and a person looks
    res = _by_rule(run_all(only_gross, line_items=None, totals=None, tax_breakdown=None))
    assert res["BR-CO-15"]["status"] == "skipped"
    assert apply_to_confidence([res["BR-CO-15"]], {})
    # a gross total computed from the others proves nothing
    res = _by_rule(run_all(only_gross, line_items=None, totals=None, tax_breakdown=None,
                           derived=frozenset({"gross_total"}), no_vat=True))
    assert res["BR-CO-15"]["status"] == "skipped"


def test_br_co_13_with_allowances_and_charges():
    totals = {"line_total": D("202.70"), "allowance_total": D("14.73"), "charge_total": D("5.80")}
    ok = _by_rule(
        arithmetic_rules(
            {"net_total": D("193.77")}, line_items=[], totals=totals, tax_breakdown=None
        )
    )
    assert ok["BR-CO-13"]["status"] == "pass"
    bad = _by_rule(
        arithmetic_rules(
            {"net_total": D("202.70")}, line_items=[], totals=totals, tax_breakdown=None
        )
    )
    assert bad["BR-CO-13"]["status"] == "fail"


def test_br_co_16_uses_paid_and_rounding():
    totals = {"prepaid": D("50.00"), "rounding": D("0.01")}
    res = _by_rule(
        arithmetic_rules(
            {"gross_total": D("215.07"), "amount_due": D("165.08")},
            line_items=None,
            totals=totals,
            tax_breakdown=None,
        )
    )
    assert res["BR-CO-16"]["status"] == "pass"


def test_br_co_17_tolerance_is_one_unit():
    assert br_co_17_row(D("198.00"), D("37.62"), D("19"))
    assert br_co_17_row(D("198.00"), D("38.62"), D("19"))  # within 1.00
    assert not br_co_17_row(D("198.00"), D("38.63"), D("19"))
    assert br_co_17_row(D("100"), D("0"), D("0"))
    assert not br_co_17_row(D("100"), D("5"), D("0"))
    assert br_co_17_row(D("-5.00"), D("-0.95"), D("19"))  # credit amounts compare by magnitude


def test_text_layer_line_sum_mismatch_is_not_a_failure():
    res = _by_rule(
        arithmetic_rules(
            {"net_total": D("100")},
            line_items=[{"net_amount": D("60")}],
            totals=None,
            tax_breakdown=None,
        )
    )
    assert res["BR-CO-13"]["status"] == "skipped"


def test_identifier_checks():
    assert vat_id_check("LL-SELLER-VATID", "DE136695976")["status"] == "pass"
    assert vat_id_check("LL-SELLER-VATID", "DE123456789")["status"] == "fail"
    assert vat_id_check("LL-SELLER-VATID", None)["status"] == "skipped"
    assert vat_id_check("LL-SELLER-VATID", "XX12345")["status"] == "skipped"
    assert iban_check("DE02 1203 0000 0000 2020 51")["status"] == "pass"
    assert iban_check("DE02120300000000202052")["status"] == "fail"


def test_date_sanity():
    today = dt.date(2026, 11, 30)
    assert date_check("2026-11-01", "2026-12-01", today)["status"] == "pass"
    assert date_check("2026-11-01", "2026-10-01", today)["status"] == "fail"
    assert date_check("2029-01-01", None, today)["status"] == "fail"
    assert date_check(None, None, today)["status"] == "skipped"


def test_failed_rules_lower_confidence_and_give_reasons():
    fields = {
        "net_total": D("100"),
        "tax_total": D("19"),
        "gross_total": D("120"),
        "seller_vat_id": "DE123456789",
        "issue_date": "2024-01-01",
        "due_date": None,
    }
    results = run_all(fields, line_items=[], totals=None, tax_breakdown=None)
    conf = {
        "net_total": 0.9,
        "tax_total": 0.9,
        "gross_total": 0.9,
        "seller_vat_id": 0.9,
        "issue_date": 0.9,
    }
    reasons = apply_to_confidence(results, conf)
    assert conf["gross_total"] < 0.9 and conf["seller_vat_id"] < 0.9 and conf["issue_date"] == 0.9
    # each reason names the fields of its rule
    assert any(r.startswith("net_total, tax_total, gross_total: BR-CO-15") for r in reasons)
    assert any(r.startswith("seller_vat_id: LL-SELLER-VATID") for r in reasons)


def test_a_derived_total_never_confirms_the_rule_it_came_from():
    fields = {"net_total": D("100"), "tax_total": D("19"), "gross_total": D("119")}
    res = _by_rule(run_all(fields, line_items=[], totals=None, tax_breakdown=None,
                           derived=frozenset({"tax_total"})))
    assert res["BR-CO-15"]["status"] == "skipped"
    assert "tax_total computed" in res["BR-CO-15"]["detail"]
    reasons = apply_to_confidence(list(res.values()), {})
    assert any("BR-CO-15 not checked" in r for r in reasons)


def test_an_identifier_read_as_vat_and_a_negative_net_derived_from_it_fail():
    fields = {"net_total": D("-29670868774.00"), "tax_total": D("29670869006.00"),
              "gross_total": D("232.00")}
    res = _by_rule(run_all(fields, line_items=[], totals=None, tax_breakdown=None,
                           derived=frozenset({"net_total"})))
    assert res["BR-CO-15"]["status"] == "fail"
    assert "negative" in res["BR-CO-15"]["detail"]


def test_no_vat_printed_with_net_equal_to_gross_passes_the_totals_rule():
    res = _by_rule(run_all({"net_total": D("100"), "gross_total": D("100")}, line_items=[],
                           totals=None, tax_breakdown=None))
    assert res["BR-CO-15"]["status"] == "pass"
    # a net derived from the gross proves nothing
    res = _by_rule(run_all({"net_total": D("100"), "gross_total": D("100")}, line_items=[],
                           totals=None, tax_breakdown=None, derived=frozenset({"net_total"})))
    assert res["BR-CO-15"]["status"] == "skipped"


def test_totals_that_cannot_be_checked_ask_for_review():
    res = run_all({"gross_total": D("119")}, line_items=[], totals=None, tax_breakdown=None)
    assert _by_rule(res)["BR-CO-15"]["status"] == "skipped"
    assert any(r.startswith("net_total, tax_total, gross_total: BR-CO-15 not checked: ")
               for r in apply_to_confidence(res, {}))


def test_a_huge_gap_between_lines_and_net_is_a_failure_not_a_skip():
    res = _by_rule(arithmetic_rules({"net_total": D("29670869006.00")},
                                    line_items=[{"net_amount": D("200")}], totals=None,
                                    tax_breakdown=None))
    assert res["BR-CO-13"]["status"] == "fail"
