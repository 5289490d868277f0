"""Crafted e-invoices cannot switch the official EN 16931 rules off: a document the rules'
engine (Saxon) would not read is refused before it with its own code, a value the rules refuse
is not read as a number, and rules that apply but could not run send the invoice to review."""
from __future__ import annotations

import re

import pytest
from tests import einvoices
from tests.unit.extraction.test_einvoice_files import by_rule, extract

from ledgerline.extraction import ExtractionError
from ledgerline.extraction.sources.xml_model import xs_decimal
from ledgerline.extraction.sources.xml_parsing import MAX_ATTRIBUTES, MAX_DEPTH

ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
PERSIAN = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
# Where each syntax writes the seller's and buyer's country (BR-09, BR-11), a VAT rate and
# the gross total.
COUNTRY = {"cii": r"<ram:CountryID>\w+</ram:CountryID>",
           "ubl": r"<cbc:IdentificationCode>\w+</cbc:IdentificationCode>"}
RATE = {"cii": r"(<ram:RateApplicablePercent>)([0-9.]+)(<)", "ubl": r"(<cbc:Percent>)([0-9.]+)(<)"}
GROSS = {"cii": r"(<ram:GrandTotalAmount>)([0-9.]+)(<)",
         "ubl": r"(<cbc:TaxInclusiveAmount[^>]*>)([0-9.]+)(<)"}


def without_countries(kind: str) -> str:
    """An invoice that breaks BR-09 and BR-11 (no seller or buyer country)."""
    xml = einvoices.make(kind, 4)[0].decode()
    return re.sub(COUNTRY[kind], "", xml)


def digits(xml: str, pattern: str, table) -> str:
    return re.sub(pattern, lambda m: m[1] + m[2].translate(table) + m[3], xml, count=1)


def junk(xml: str, element: str) -> bytes:
    """`element` just inside the root element."""
    close = xml.rfind("</")
    return (xml[:close] + element + xml[close:]).encode()


def reasons(document) -> list[str]:
    return document["review"]["reasons"]


@pytest.mark.parametrize("kind", ["cii", "ubl"])
def test_broken_rules_reach_the_review_by_their_ids(tmp_path, kind):
    document = extract(tmp_path, without_countries(kind).encode())
    assert by_rule(document)["EN16931"]["status"] == "fail"
    assert document["review"]["required"] is True
    assert {"BR-09", "BR-11"} <= {r.split()[0] for r in reasons(document)}


@pytest.mark.parametrize("kind", ["cii", "ubl"])
@pytest.mark.parametrize("table", [PERSIAN, ARABIC_INDIC], ids=["persian", "arabic-indic"])
def test_a_rate_in_other_digits_sends_the_invoice_to_review(tmp_path, kind, table):
    xml = digits(without_countries(kind), RATE[kind], table)
    document = extract(tmp_path, xml.encode())
    official = by_rule(document)["EN16931"]
    assert official["status"] == "skipped" and "engine failed" in official["detail"]
    assert document["review"]["required"] is True
    assert any(r.startswith("EN16931 not checked: the schematron engine failed")
               for r in reasons(document)), reasons(document)


@pytest.mark.parametrize("kind", ["cii", "ubl"])
def test_a_gross_total_in_arabic_indic_digits_is_not_read_as_a_number(tmp_path, kind):
    xml = digits(einvoices.make(kind, 4)[0].decode(), GROSS[kind], ARABIC_INDIC)
    document = extract(tmp_path, xml.encode())
    assert document["fields"]["gross_total"]["value"] is None
    assert document["review"]["required"] is True
    assert any(r.startswith("EN16931 not checked") for r in reasons(document))


@pytest.mark.parametrize("text", ["١٢٠.٠٠", "۱۹", "1e3", "1_000", "Infinity", "NaN", "12 345",
                                  "1,5", "", "+", "."])
def test_only_the_xs_decimal_form_is_a_number(text):
    assert xs_decimal(text) is None


@pytest.mark.parametrize("text, value", [("120.00", "120.00"), (" -3.5\n", "-3.5"),
                                         ("+.5", "0.5"), ("7.", "7")])
def test_the_xs_decimal_form_is_read(text, value):
    from decimal import Decimal

    assert xs_decimal(text) == Decimal(value)


CRAFTED = {
    "240_deep": ("<junk>" * 240 + "</junk>" * 240, "xml_too_deep"),
    "10001_attributes": ("<junk " + " ".join(f'a{i}="1"' for i in range(10_001)) + "/>",
                         "xml_too_many_attributes"),
    "201_namespace_declarations": ("<junk " + " ".join(f'xmlns:p{i}="urn:p:{i}"'
                                                        for i in range(201)) + "/>",
                                   "xml_too_many_attributes"),
    "long_element_name": (f"<{'j' * 1001}/>", "xml_name_too_long"),
    "long_attribute_name": (f"<junk {'a' * 1001}='1'/>", "xml_name_too_long"),
    "long_prefix": (f"<{'p' * 1001}:junk xmlns:{'p' * 1001}='urn:p'/>", "xml_name_too_long"),
}


@pytest.mark.parametrize("kind", ["cii", "ubl"])
@pytest.mark.parametrize("case", CRAFTED)
def test_what_the_rules_engine_cannot_read_is_refused_before_it(tmp_path, kind, case):
    element, code = CRAFTED[case]
    with pytest.raises(ExtractionError) as raised:
        extract(tmp_path, junk(without_countries(kind), element))
    assert raised.value.code == code


@pytest.mark.parametrize("kind", ["cii", "ubl"])
def test_up_to_the_limits_the_rules_still_run(tmp_path, kind):
    """The junk starts at level 2: MAX_DEPTH - 1 more levels reach the limit exactly."""
    deep = MAX_DEPTH - 1
    crafted = ("<junk>" * deep + "</junk>" * deep
               + "<junk " + " ".join(f'a{i}="1"' for i in range(MAX_ATTRIBUTES)) + "/>")
    document = extract(tmp_path, junk(without_countries(kind), crafted))
    assert by_rule(document)["EN16931"]["status"] == "fail"  # it ran: BR-09, BR-11
    assert {"BR-09", "BR-11"} <= {r.split()[0] for r in reasons(document)}


def test_a_ksef_line_rate_in_other_digits_is_not_read_as_a_rate(tmp_path):
    xml = einvoices.make("ksef-fa3", 4)[0].decode()
    xml = xml.replace("<P_12>23</P_12>", "<P_12>۲۳</P_12>", 1)
    document = extract(tmp_path, xml.encode())
    rates = [item["vat_rate"] for item in document["line_items"]]
    assert rates[0] is None and "23" in rates[1:]
