"""Pure parts of the duplicate-work report: days asked for, the table, the chart split."""
from __future__ import annotations

from datetime import date

import pytest

from ledgerline.http import charts
from ledgerline.reporting_format import duplicates_table
from ledgerline.service_layer.report import InvalidDay, InvalidRange, days, money, parse_day

DOC = {"day": "2026-11-29",
       "operations": [{"operation": "extract_invoice", "calls": 40000, "distinct_hashes": 34000,
                       "repeat_calls": 6000, "repeat_share": 0.15, "cost": 160.0,
                       "repeat_cost": 24.0, "overlapping_calls": 120, "overlapping_cost": 0.48,
                       "overlapping_repeat_calls": 60}],
       "requests": {"total": 44000, "cache_hits": 4000, "joined": 300, "bypass": 12,
                    "model_calls": 40000, "cost_avoided": 17.2, "would_be_hits": 0,
                    "would_be_joined": 0, "cost_would_be_avoided": 0.0}}


@pytest.mark.parametrize("text", ["2026-11-29", "2028-02-29"])
def test_days_are_iso_calendar_days(text):
    assert parse_day(text) == date.fromisoformat(text)


@pytest.mark.parametrize("text", ["29.11.2026", "20261129", "2026-W48-7", "2026-11-31",
                                  "2027-02-29", "", None, " 2026-11-29", "2026-11-29T00:00"])
def test_other_day_formats_are_refused(text):
    with pytest.raises(InvalidDay):
        parse_day(text)


def test_a_range_is_inclusive_and_at_most_366_days():
    span = days(first="2028-01-01", last="2028-12-31")
    assert len(list(span)) == 366
    with pytest.raises(InvalidRange):
        days(first="2027-01-01", last="2028-01-02")
    with pytest.raises(InvalidRange):
        days(first="2026-11-30", last="2026-11-29")
    with pytest.raises(InvalidRange):
        days(day="2026-11-29", first="2026-11-29", last="2026-11-30")
    with pytest.raises(InvalidDay):
        days(first="2026-11-29")


def test_money_keeps_micro_dollars_as_json_numbers():
    assert money("160.000000") == 160.0 and money("0.480000") == 0.48
    assert money("0.0000004") == 0.0 and money(3) == 3.0


def test_the_table_shows_the_contract_example_readably():
    text = duplicates_table([DOC])
    assert "40,000    34,000    6,000  15.0 %    160.00       24.00          120         0.48" in text
    assert "44,000" in text and "17.20" in text


def test_the_chart_splits_calls_into_parts_that_add_up():
    split = charts.day_calls(DOC)
    assert (split.unique, split.repeats, split.overlapping) == (33940, 5940, 120)
    assert split.unique + split.repeats + split.overlapping == 40000


def test_charts_draw_bars_only_for_days_with_data():
    empty = {**DOC, "day": "2026-11-30", "operations": [],
             "requests": {**DOC["requests"], "total": 0, "cache_hits": 0}}
    svg = charts.calls_chart([DOC, empty])
    assert svg.startswith('<svg id="calls-chart"') and svg.endswith("</svg>")
    assert svg.count("<rect") == 3
    assert "2026-11-29: 5,940 repeats" in svg


@pytest.mark.parametrize("value, top", [(0, 1.0), (0.3, 0.5), (7, 10), (40000, 50000),
                                        (1200, 2000), (250, 250), (0.0123, 0.02)])
def test_axis_maxima_are_round(value, top):
    assert charts._nice(value) == pytest.approx(top)
