"""How the accuracy benchmark reads line-item truth given loosely (invoice2data's expected
output): printed line totals that include VAT are scored by their net amount."""

import importlib.util
from decimal import Decimal
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "accuracy_bench", Path(__file__).resolve().parents[2] / "bench" / "accuracy.py"
)
accuracy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(accuracy)


def _truth(net_total, gross_total):
    return {
        "net_total": net_total,
        "gross_total": gross_total,
        "line_items_raw": [
            {
                "name": "Tablet",
                "qty": 1,
                "price_unit": 399.0,
                "line_tax_percent": 21,
                "price_subtotal": 399.0,
            },
            {"line_note": "serial number"},
            {
                "name": "Cover",
                "qty": 1,
                "price_unit": 69.99,
                "line_tax_percent": 21,
                "price_subtotal": 69.99,
            },
            {
                "name": "Levy included above",
                "qty": 1,
                "line_tax_percent": 21,
                "price_subtotal": 4.24,
            },
        ],
    }


def test_line_totals_adding_up_to_the_gross_total_are_scored_without_their_vat():
    items = accuracy.truth_items(_truth(net_total=387.60, gross_total=468.99))
    assert items == [Decimal("329.75"), Decimal("57.84"), Decimal("3.5")]


def test_line_totals_adding_up_to_the_net_total_are_scored_as_printed():
    items = accuracy.truth_items(_truth(net_total=468.99, gross_total=567.48))
    assert items == [Decimal(399), Decimal("69.99"), Decimal("4.24")]


def test_without_both_totals_the_printed_line_totals_stand():
    items = accuracy.truth_items(_truth(net_total=None, gross_total=468.99))
    assert items == [Decimal(399), Decimal("69.99"), Decimal("4.24")]
