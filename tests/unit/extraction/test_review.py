"""When a document read from its page is taken without review, and what a review reason says."""

from ledgerline.extraction import document as D
from ledgerline.extraction import review

THRESHOLDS = {name: 0.9 for name in review.ACCEPT_FIELDS} | {"amount_due": 0.9}


def _fields(**values) -> dict:
    """Every key field read at confidence 0.95, then ``values`` ((value, confidence) pairs)."""
    base = {"invoice_number": "RE-1", "issue_date": "2026-11-02", "currency": "EUR",
            "seller_name": "Muster GmbH", "net_total": "100.00", "tax_total": "19.00",
            "gross_total": "119.00", "amount_due": "119.00", "document_type": "invoice"}
    fields = {name: D.field_entry(name, None, 0.0) for name in D.FIELD_NAMES}
    for name, value in base.items():
        fields[name] = D.field_entry(name, value, 0.95, raw=value)
    for name, (value, confidence) in values.items():
        fields[name] = D.field_entry(name, value, confidence, raw=value)
    return fields


def test_a_document_whose_key_fields_clear_their_thresholds_is_taken():
    assert review.reasons_to_look(_fields(), THRESHOLDS) == []


def test_a_field_below_its_threshold_names_itself_its_confidence_and_its_evidence():
    fields = _fields(seller_name=("Muster GmbH", 0.7))
    [reason] = review.reasons_to_look(fields, THRESHOLDS, {"seller_name": "no label names it"})
    assert reason.startswith("seller_name: confidence 0.70 is below the 0.90")
    assert reason.endswith("no label names it")


def test_a_missing_tax_is_fine_only_where_net_and_gross_agree():
    no_tax = _fields(tax_total=(None, 0.0), gross_total=("100.00", 0.95))
    assert review.reasons_to_look(no_tax, THRESHOLDS) == []
    missing = _fields(tax_total=(None, 0.0))
    assert review.reasons_to_look(missing, THRESHOLDS) == ["tax_total: not found on the invoice"]


def test_a_field_without_a_threshold_is_never_taken_unseen():
    reasons = review.reasons_to_look(_fields(), {**THRESHOLDS, "currency": review.NO_THRESHOLD})
    assert [r.split(":")[0] for r in reasons] == ["currency"]


def test_an_unsure_document_type_and_an_unsure_credit_note_ask_for_review():
    unsure = _fields(document_type=("invoice", 0.5))
    assert any(r.startswith("document_type:") for r in review.reasons_to_look(unsure, THRESHOLDS))
    credit = _fields(document_type=("credit_note", 0.95), gross_total=("-119.00", 0.8))
    reasons = review.reasons_to_look(credit, THRESHOLDS)
    assert any(r.startswith("credit note: its amounts") and "gross_total 0.80" in r
               for r in reasons)


def test_a_seller_vat_id_equal_to_the_buyers_is_a_contradiction():
    fields = _fields(seller_vat_id=("DE123456789", 0.95), buyer_vat_id=("DE123456789", 0.95))
    [reason] = review.contradictions(fields)
    assert reason.startswith("seller_vat_id: equals the buyer's VAT id")
    assert fields["seller_vat_id"]["confidence"] < 0.95 and fields["buyer_vat_id"]["confidence"] < 0.95


def test_an_amount_that_looks_like_an_identifier_is_said_and_doubted():
    fields = _fields(amount_due=("29670869006", 0.95))
    [reason] = review.contradictions(fields)
    assert reason.startswith("amount_due: '29670869006' looks like an identifier")
    assert fields["amount_due"]["confidence"] < 0.5
    assert review.contradictions(_fields()) == []


def test_a_confidence_just_under_its_threshold_is_shown_with_the_digits_that_tell_them_apart():
    fields = _fields(tax_total=("19.00", 0.990))
    [reason] = review.reasons_to_look(fields, THRESHOLDS | {"tax_total": 0.9901})
    assert reason.startswith("tax_total: confidence 0.9900 is below the 0.9901 it needs")
