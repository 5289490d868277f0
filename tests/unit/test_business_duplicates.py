from ledgerline.domain.duplicates import Summary, matched_on

BILL = Summary(seller_name="Muster GmbH", invoice_number="RE-2026-001", gross_total="119.00",
               issue_date="2026-11-02")


def test_same_seller_and_number_is_a_duplicate_whatever_the_spacing_or_case():
    other = Summary("MUSTER  GMBH", "re-2026-001 ", "120.00", "2026-11-03")
    assert matched_on(BILL, other) == ["seller_name", "invoice_number"]


def test_same_seller_gross_and_date_is_a_duplicate_even_with_a_new_number():
    other = Summary("Muster GmbH", "RE-2026-777", "119.0", "2026-11-02")
    assert matched_on(BILL, other) == ["seller_name", "gross_total", "issue_date"]


def test_other_seller_or_other_bill_is_not_a_duplicate():
    assert matched_on(BILL, Summary("Other AG", "RE-2026-001", "119.00", "2026-11-02")) == []
    assert matched_on(BILL, Summary("Muster GmbH", "RE-2026-002", "119.00", "2026-11-03")) == []
    assert matched_on(BILL, Summary("Muster GmbH", "RE-2026-002", "99.00", "2026-11-02")) == []


def test_missing_fields_never_match():
    empty = Summary(None, None, None, None)
    assert matched_on(empty, empty) == []
    assert matched_on(Summary("Muster GmbH", None, None, None),
                      Summary("Muster GmbH", None, None, None)) == []
