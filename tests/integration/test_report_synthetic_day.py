"""Generated traffic of a known shape reads back from the report as exactly that shape."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from ledgerline.config import Settings
from ledgerline.service_layer.report import Days, duplicate_report
from ledgerline_tools.synthetic_day import Shape, generate, synthetic_caller, write

from .test_report_sql import _dispose_engines, engine  # noqa: F401  (SQLite and PostgreSQL)

DAY = date(2026, 11, 29)
PRICE = Decimal("0.004")


def write_day(engine, shape, seed=7):
    caller = synthetic_caller(engine, "synthetic")
    write(engine, generate(DAY, shape, price=PRICE, account="synthetic", caller_id=caller, seed=seed))
    [doc] = duplicate_report(engine, Settings(price_per_call=PRICE), Days(DAY, DAY))
    return doc


@pytest.mark.slow
def test_the_contract_example_day_reads_back_exactly(engine):
    doc = write_day(engine, Shape(calls=40_000, repeats=6_000, overlapping_pairs=60, shadow=True))
    [op] = doc["operations"]
    assert op == {"operation": "extract_invoice", "calls": 40_000, "distinct_hashes": 34_000,
                  "repeat_calls": 6_000, "repeat_share": 0.15, "cost": 160.0,
                  "repeat_cost": 24.0, "overlapping_calls": 120, "overlapping_cost": 0.48,
                  "overlapping_repeat_calls": 60, "unbilled_calls": 0}
    assert doc["requests"]["model_calls"] == 40_000 and doc["requests"]["total"] == 40_000
    assert doc["requests"]["would_be_hits"] == 5_940
    assert doc["requests"]["would_be_joined"] == 60
    assert doc["requests"]["cost_would_be_avoided"] == 24.0


def test_served_uploads_and_bypasses_show_on_the_request_side(engine):
    doc = write_day(engine, Shape(calls=400, repeats=60, overlapping_pairs=3, hits=40, joined=3,
                               bypass=2))
    [op] = doc["operations"]
    assert (op["calls"], op["repeat_calls"], op["overlapping_calls"]) == (400, 60, 6)
    assert doc["requests"] == {
        "total": 443, "retries": 0, "cache_hits": 40, "joined": 3, "bypass": 2, "model_calls": 400,
        "cost_avoided": 0.172, "would_be_hits": 0, "would_be_joined": 0,
        "cost_would_be_avoided": 0.0}
