"""Chinese and Japanese pages: their labels, dates, amounts, currencies and company names read
as the Latin languages' do, and OCR's words of Han or kana make lines as a text layer's."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.finders.header_fields import LABEL_FIELDS
from ledgerline.extraction.finders.labels import match_labels
from ledgerline.extraction.finders.labels import resolve as _resolve
from ledgerline.extraction.finders.parties import printed_legal_form
from ledgerline.extraction.text import fold
from ledgerline.extraction.values.amounts import find_amounts, parse_amount
from ledgerline.extraction.values.dates import find_dates
from tests.unit.extraction.cell_pages import page_of


def _fields(text: str) -> list[str]:
    f = fold(text)
    return [h.field for h in _resolve(match_labels(f, LABEL_FIELDS), f)]


@pytest.mark.parametrize(
    "text,field",
    [
        ("发票号码: 07007198", "invoice_number"),
        ("开票日期: 2018年03月23日", "issue_date"),
        ("价税合计 (大写)", "gross_total"),
        ("税额", "tax_total"),
        ("不含税金额", "net_total"),
        ("請求書番号 A-12", "invoice_number"),
        ("請求日 2023年5月12日", "issue_date"),
        ("ご請求金額", "gross_total"),
        ("小計", "net_total"),
        ("消費税額", "tax_total"),
        ("お支払期限", "due_date"),
    ],
)
def test_chinese_and_japanese_labels(text, field):
    assert field in _fields(text)


def test_year_month_day_dates_with_or_without_ocrs_spaces():
    assert [d for d, _, _ in find_dates("开票日期: 2018年03月23日")] == [dt.date(2018, 3, 23)]
    assert [d for d, _, _ in find_dates("2017 年 6 月 7 日発行")] == [dt.date(2017, 6, 7)]
    assert find_dates("2017年13月7日") == []


def test_amounts_closed_by_yen_or_yuan_and_the_full_width_yen_sign():
    assert [a[0] for a in find_amounts("請求金額 1,616,650円")] == [Decimal("1616650")]
    assert [a[0] for a in find_amounts("(小写) ￥294.82")] == [Decimal("294.82")]
    assert parse_amount("1,616,650円") == Decimal("1616650")
    assert parse_amount("50元") == Decimal("50")
    # another letter after figures still makes them an identifier's
    assert find_amounts("12345X") == []


def test_a_legal_form_glued_to_a_chinese_or_japanese_name():
    assert printed_legal_form("湖北随岳南高速公路有限公司")
    assert printed_legal_form("北海道電力株式会社")
    assert not printed_legal_form("有限公司の説明")


def test_a_chinese_vat_invoices_labels_give_their_values():
    page = page_of(
        (400, 780, "发票号码 : 07007198"),
        (400, 760, "开票日期 : 2018 年 03 月 23 日"),
        (60, 200, "价税合计 (大写)"),
        (400, 200, "(小写) ￥294.82"),
        (60, 120, "名称 : 湖北随岳南高速公路有限公司"),
    )
    found = find_candidates(page).fields
    labelled = {f: [c.value for c in found[f] if c.evidence.kind == "label"]
                for f in ("invoice_number", "issue_date", "gross_total")}
    assert labelled["invoice_number"][0] == "07007198"
    assert labelled["issue_date"][0] == dt.date(2018, 3, 23)
    assert Decimal("294.82") in labelled["gross_total"]
    assert "湖北随岳南高速公路有限公司" in {c.value for c in found["seller_name"]}
    assert "CNY" in {c.value for c in found["currency"]}
