"""Which of an extraction's review reasons a correction replaces (domain/rechecks.py)."""
from ledgerline.domain.rechecks import _reasons


def _doc(reasons, **values):
    fields = {name: {"value": value} for name, value in values.items()}
    return {"fields": fields, "review": {"reasons": reasons}}


def test_a_rules_reason_goes_when_the_rule_is_checked_again_and_others_stay():
    model = _doc(["net_total, tax_total, gross_total: BR-CO-15 failed: 1.00 + 0.19 != 9.00",
                  "BR-CO-10 failed: the lines do not add up",
                  "seller_name: confidence 0.40 is below the 0.90 it needs",
                  "iban: LL-IBAN failed: bad checksum"],
                 net_total="1.00", tax_total="0.19", gross_total="9.00", seller_name="A",
                 iban="X")
    shown = _doc([], net_total="1.00", tax_total="0.19", gross_total="1.19", seller_name="A",
                 iban="X")
    kept = _reasons(model, shown, changed={"gross_total"}, rerun={"BR-CO-15", "BR-CO-16"},
                    rechecked=[{"rule": "BR-CO-15", "status": "pass", "detail": "ok"}])
    assert kept == ["BR-CO-10 failed: the lines do not add up",
                    "seller_name: confidence 0.40 is below the 0.90 it needs",
                    "iban: LL-IBAN failed: bad checksum"]


def test_a_corrected_fields_low_confidence_goes_and_a_cleared_key_field_asks_for_review():
    model = _doc(["seller_name: confidence 0.40 is below the 0.90 it needs"],
                 seller_name="Wrong GmbH", invoice_number="7")
    shown = _doc([], seller_name="Right GmbH", invoice_number=None)
    out = _reasons(model, shown, changed={"seller_name", "invoice_number"}, rerun=set(),
                   rechecked=[])
    assert out == ["invoice_number: cleared by a correction"]
