import datetime as dt
from decimal import Decimal

import pytest

from ledgerline.extraction.values.amounts import (
    find_amounts,
    format_amount,
    guess_decimal_separator,
    parse_amount,
    parse_percent,
)
from ledgerline.extraction.values.dates import find_dates, parse_date


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1.234,56", "1234.56"),
        ("1 234,56", "1234.56"),
        ("1\u00a0234,56", "1234.56"),
        ("1\u202f234,56", "1234.56"),
        ("1,234.56", "1234.56"),
        ("1'234.56", "1234.56"),
        ("1\u2019234.56", "1234.56"),
        ("12.345.678,90", "12345678.90"),
        ("571,04", "571.04"),
        ("0,75 €", "0.75"),
        ("€ 12.00", "12.00"),
        ("$4.11", "4.11"),
        ("EUR 571,04", "571.04"),
        ("571.04 EUR", "571.04"),
        ("-1.234,56 €", "-1234.56"),
        ("−12,00", "-12.00"),
        ("12,00-", "-12.00"),
        ("(12.00)", "-12.00"),
        ("9,9000", "9.9000"),
        ("1,234", "1234"),
        ("1.234", "1234"),
        ("42", "42"),
    ],
)
def test_parse_amount(text, expected):
    assert parse_amount(text) == Decimal(expected)


@pytest.mark.parametrize("text,expected", [("1.234.56", "1234.56"), ("1,234,56", "1234.56"),
                                           ("$10.688.75", "10688.75"), ("1.234.567", "1234567")])
def test_a_repeated_separator_before_two_decimals_is_their_separator(text, expected):
    # OCR reads the comma of 10,688.75 as a point: the last group is no group of three
    assert parse_amount(text) == Decimal(expected)
    (found,) = find_amounts(f"Total due {text}")
    assert found[0] == Decimal(expected) and found[3] == (expected != "1234567")


def test_parse_amount_uses_decimal_hint_for_three_decimals():
    assert parse_amount("1,234", decimal_hint=",") == Decimal("1.234")
    assert parse_amount("1.234", decimal_hint=".") == Decimal("1.234")
    assert parse_amount("1.234", decimal_hint=",") == Decimal("1234")


@pytest.mark.parametrize("text", ["", "abc", "12/03/2024", "DE123456789", None])
def test_parse_amount_rejects_non_amounts(text):
    assert parse_amount(text) is None


def test_find_amounts_skips_dates_and_keeps_order():
    found = find_amounts("Total TTC : 56,02 € TVA 20% : 9,34 € payable 04.04.2018", ",")
    values = [v for v, *_ in found]
    assert Decimal("56.02") in values and Decimal("9.34") in values
    assert all(v != Decimal("4.04") for v in values)


def test_guess_decimal_separator():
    assert guess_decimal_separator("Summe 1.234,56 und 12,00") == ","
    assert guess_decimal_separator("Total 1,234.56 and 12.00") == "."
    assert guess_decimal_separator("no numbers") is None


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2014-08-03", "2014-08-03"),
        ("05.03.2018", "2018-03-05"),
        ("5.3.18", "2018-03-05"),
        ("13/11/2017", "2017-11-13"),
        ("8-9-2022", "2022-09-08"),
        ("August 3 , 2014", "2014-08-03"),
        ("Oct 20, 2015", "2015-10-20"),
        ("3 August 2014", "2014-08-03"),
        ("3. März 2018", "2018-03-03"),
        ("13 novembre 2017", "2017-11-13"),
        ("1er février 2020", "2020-02-01"),
        ("20 de octubre de 2015", "2015-10-20"),
        ("12 maart 2021", "2021-03-12"),
        ("7 giugno 2019", "2019-06-07"),
        ("20-Oct-2015", "2015-10-20"),
        # a month glued to its day, as OCR reads a narrow space
        ("Oct20, 2015", "2015-10-20"),
        ("Jul27,2017", "2017-07-27"),
        ("27Jul2017", "2017-07-27"),
    ],
)
def test_parse_date(text, expected):
    assert parse_date(text) == dt.date.fromisoformat(expected)


def test_a_month_and_year_alone_are_no_date():
    assert parse_date("Mar 2024") is None and parse_date("Dec2024") is None


def test_parse_date_month_first_only_when_asked():
    assert parse_date("03/04/2014") == dt.date(2014, 4, 3)
    assert parse_date("03/04/2014", month_first=True) == dt.date(2014, 3, 4)
    # an impossible month decides by itself
    assert parse_date("03/29/2014") == dt.date(2014, 3, 29)


def test_invalid_dates_are_ignored():
    assert parse_date("31.02.2020") is None
    assert find_dates("Version 1.2.3") == []


def test_parse_percent():
    assert parse_percent("USt. 19 %") == Decimal("19")
    assert parse_percent("TVA 5,5%") == Decimal("5.5")
    assert parse_percent("none") is None


@pytest.mark.parametrize(
    "value,expected",
    [
        ("4.1", "4.10"),
        ("9.9000", "9.90"),
        ("-0.00", "0.00"),
        ("0.123", "0.123"),
        ("1E+2", "100.00"),
    ],
)
def test_format_amount(value, expected):
    assert format_amount(Decimal(value)) == expected


def test_absurd_magnitudes_are_not_amounts():
    from ledgerline.extraction.document import format_plain

    assert format_amount(Decimal("1E+30")) is None
    assert format_amount(Decimal("NaN")) is None
    assert (
        format_plain(Decimal("20.0000")) == "20"
        and format_plain(Decimal("400.00001")) == "400.00001"
    )
    assert parse_amount("1" * 60) is None


def test_dot_leaders_do_not_hide_amounts():
    assert [v for v, *_ in find_amounts("Total.............1,234.50")] == [Decimal("1234.50")]
    assert [v for v, *_ in find_amounts("Summe ______ 12,00 €", ",")] == [Decimal("12.00")]
